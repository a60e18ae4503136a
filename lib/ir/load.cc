#include "shapelint/ir/load.h"

#include <onnx/defs/parser.h>

#include <cerrno>
#include <climits>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>
#include <system_error>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/io/coded_stream.h"

namespace shapelint::ir {
namespace {

absl::Status InputError(const std::string& source, const std::string& message) {
  return absl::InvalidArgumentError(absl::StrCat(source, ": ", message));
}

bool LooksLikeText(const std::string& source, std::string_view bytes) {
  if (absl::EndsWith(source, ".onnxtxt")) return true;
  size_t first = bytes.find_first_not_of(" \t\r\n");
  std::string_view head = first == std::string_view::npos ? "" : bytes.substr(first);
  // ONNX text starts with the model header "<" or with a comment; a serialized ModelProto
  // starts with a field tag, which is never '<' (field 7, wire type 4) or '#' in practice.
  return !head.empty() && (head.front() == '<' || head.front() == '#');
}

absl::StatusOr<ONNX_NAMESPACE::ModelProto> ParseBinary(const std::string& source,
                                                       std::string_view bytes) {
  ONNX_NAMESPACE::ModelProto proto;
  if (bytes.size() > static_cast<size_t>(INT_MAX)) {
    return InputError(source, "larger than 2 GiB, the limit of a protobuf model");
  }
  google::protobuf::io::CodedInputStream stream(reinterpret_cast<const uint8_t*>(bytes.data()),
                                                static_cast<int>(bytes.size()));
  // The default limit is 64 MiB in older protobuf releases; models go up to 2 GiB.
  stream.SetTotalBytesLimit(INT_MAX);
  if (!proto.ParseFromCodedStream(&stream) || !stream.ConsumedEntireMessage()) {
    return InputError(source, "cannot be parsed as an ONNX model (not a protobuf, or truncated)");
  }
  return proto;
}

absl::StatusOr<ONNX_NAMESPACE::ModelProto> ParseText(const std::string& source,
                                                     std::string_view bytes) {
  ONNX_NAMESPACE::ModelProto proto;
  std::string text(bytes);  // the parser needs a NUL-terminated buffer
  auto status = ONNX_NAMESPACE::OnnxParser::Parse(proto, text.c_str());
  if (!status.IsOK()) {
    return InputError(source,
                      absl::StrCat("invalid ONNX text format: ",
                                   std::string(absl::StripAsciiWhitespace(status.ErrorMessage()))));
  }
  return proto;
}

}  // namespace

absl::StatusOr<std::unique_ptr<Model>> LoadModelFromBytes(std::string_view bytes,
                                                          std::string source, ModelFormat format) {
  if (bytes.empty()) return InputError(source, "empty file");
  if (format == ModelFormat::kAuto) {
    format = LooksLikeText(source, bytes) ? ModelFormat::kText : ModelFormat::kBinary;
  }
  auto proto = format == ModelFormat::kText ? ParseText(source, bytes) : ParseBinary(source, bytes);
  if (!proto.ok()) return proto.status();
  if (!proto->has_graph()) {
    return InputError(source, "not an ONNX model (no graph; is this an ONNX file?)");
  }
  return Model::FromProto(*std::move(proto), std::move(source));
}

absl::StatusOr<std::unique_ptr<Model>> LoadModel(const std::string& path, ModelFormat format) {
  std::string bytes;
  if (path == "-") {
    std::ostringstream buffer;
    buffer << std::cin.rdbuf();
    bytes = std::move(buffer).str();
    return LoadModelFromBytes(bytes, "<stdin>", format);
  }
  std::error_code ec;
  auto status = std::filesystem::status(path, ec);
  if (ec || !std::filesystem::exists(status)) return InputError(path, "no such file");
  if (std::filesystem::is_directory(status)) return InputError(path, "is a directory, not a model");
  std::ifstream in(path, std::ios::binary);
  if (!in) return InputError(path, absl::StrCat("cannot open: ", std::strerror(errno)));
  bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  if (in.bad()) return InputError(path, "read error");
  return LoadModelFromBytes(bytes, path, format);
}

}  // namespace shapelint::ir
