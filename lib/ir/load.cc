#include "shapelint/ir/load.h"

#include <algorithm>
#include <climits>
#include <filesystem>
#include <functional>
#include <system_error>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/arena.h"
#include "google/protobuf/io/coded_stream.h"
#include "ir/file_bytes.h"
#include "ir/foreign_format.h"
#include "ir/onnx_text.h"
#include "ir/skim.h"
#include "ir/wire_nodes.h"

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

// Parses `bytes` (a serialized ModelProto) onto a new arena.
absl::StatusOr<ONNX_NAMESPACE::ModelProto*> ParseOnArena(const std::string& source,
                                                         std::string_view bytes,
                                                         google::protobuf::Arena& arena) {
  if (bytes.size() > static_cast<size_t>(INT_MAX)) {
    return InputError(source, "larger than 2 GiB, the limit of a protobuf model");
  }
  auto* proto = google::protobuf::Arena::CreateMessage<ONNX_NAMESPACE::ModelProto>(&arena);
  google::protobuf::io::CodedInputStream stream(reinterpret_cast<const uint8_t*>(bytes.data()),
                                                static_cast<int>(bytes.size()));
  // The default limit is 64 MiB in older protobuf releases; models go up to 2 GiB.
  stream.SetTotalBytesLimit(INT_MAX);
  // The default depth (100) would refuse a model with 33 levels of If as "not a protobuf".
  stream.SetRecursionLimit(kMaxMessageDepth);
  if (!proto->ParseFromCodedStream(&stream) || !stream.ConsumedEntireMessage()) {
    return InputError(source, NotAProtobufMessage());
  }
  if (!proto->has_graph()) {
    return InputError(source, "not an ONNX model (no graph; is this an ONNX file?)");
  }
  return proto;
}

// Parses and indexes a binary model. `file`, when given, holds `bytes` and is released as soon
// as nothing points into it.
absl::StatusOr<std::unique_ptr<Model>> LoadBinary(std::string source, std::string_view bytes,
                                                  FileBytes* file) {
  // Weights are most of a model's bytes and none of what linting reads: they are left out
  // before parsing, so they are neither copied nor, in a mapped file, even read from disk.
  // The walk maps the pages around every tensor header it reads; they go as it passes them.
  std::optional<Skimmed> skimmed = SkimTensorPayloads(
      bytes, kMaxKeptTensorBytes,
      file == nullptr ? std::function<void(size_t)>()
                      : [file](size_t offset) { file->DropPagesBefore(offset); });
  if (skimmed) {
    bytes = skimmed->bytes;
    if (file != nullptr) file->Release();  // the skimmed copy is all that is read from here on
  }
  // On an arena, a graph's millions of small messages are allocated in blocks and freed at once.
  auto arena = std::make_unique<google::protobuf::Arena>();
  // Nodes are nearly all of a graph, and a NodeProto costs several times its bytes: the main
  // graph's nodes are read from the wire format into compact records instead.
  if (std::optional<SplitModel> split = SplitMainGraphNodes(bytes)) {
    absl::StatusOr<ONNX_NAMESPACE::ModelProto*> proto =
        ParseOnArena(source, split->without_nodes, *arena);
    if (!proto.ok()) return proto.status();
    std::string().swap(split->without_nodes);
    // Once the nodes are read, the model's bytes (the file's pages, or the skimmed copy) leave
    // the process before indexing allocates the rest: the peak is then lower by their size.
    return Model::FromArenaAndWireNodes(std::move(arena), *proto, split->nodes, std::move(source),
                                        [&] {
                                          if (file != nullptr) file->Release();
                                          skimmed.reset();
                                        });
  }
  absl::StatusOr<ONNX_NAMESPACE::ModelProto*> proto = ParseOnArena(source, bytes, *arena);
  if (!proto.ok()) return proto.status();
  // The parsed proto holds copies of everything it needs: the file's pages leave the process
  // before indexing and inference allocate theirs, which lowers the peak by the file's size.
  if (file != nullptr) file->Release();
  skimmed.reset();
  return Model::FromArena(std::move(arena), *proto, std::move(source));
}

// How deeply (), [] and {} nest in ONNX text, outside strings and comments. ONNX's parser
// recurses into nested graphs and types without a limit, so deep text must be refused before it
// gets there.
int TextNesting(std::string_view text) {
  int depth = 0, deepest = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '#') {
      i = text.find('\n', i);
      if (i == std::string_view::npos) break;
    } else if (c == '"') {
      for (++i; i < text.size() && text[i] != '"'; ++i) {
        if (text[i] == '\\') ++i;
      }
    } else if (c == '(' || c == '[' || c == '{') {
      deepest = std::max(deepest, ++depth);
    } else if ((c == ')' || c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return deepest;
}

// A graph nested 64 levels deep (a body's braces and its signature's parentheses and dims per
// level) stays well under this.
constexpr int kMaxTextNesting = 4 * 64;

absl::StatusOr<ONNX_NAMESPACE::ModelProto> ParseText(const std::string& source,
                                                     std::string_view bytes) {
  if (const int depth = TextNesting(bytes); depth > kMaxTextNesting) {
    return InputError(source, absl::StrCat("invalid ONNX text format: brackets nest deeper than ",
                                           kMaxTextNesting, " levels"));
  }
  ONNX_NAMESPACE::ModelProto proto;
  std::string text(bytes);  // the parser needs a NUL-terminated buffer
  std::string error;
  switch (ParseOnnxText(text.c_str(), proto, error)) {
    case TextParse::kParsed:
      break;
    case TextParse::kInvalid:
      return InputError(source, absl::StrCat("invalid ONNX text format: ", error));
    case TextParse::kUnavailable:
      return absl::FailedPreconditionError(absl::StrCat(source, ": ", error));
  }
  return proto;
}

// Loads `bytes` as an ONNX model; `file`, when given, holds them and is released as soon as
// they are parsed.
absl::StatusOr<std::unique_ptr<Model>> LoadOnnx(std::string_view bytes, std::string source,
                                                ModelFormat format, FileBytes* file) {
  if (format == ModelFormat::kAuto) {
    format = LooksLikeText(source, bytes) ? ModelFormat::kText : ModelFormat::kBinary;
  }
  if (format == ModelFormat::kBinary) return LoadBinary(std::move(source), bytes, file);
  auto proto = ParseText(source, bytes);
  if (!proto.ok()) return proto.status();
  if (!proto->has_graph()) {
    return InputError(source, "not an ONNX model (no graph; is this an ONNX file?)");
  }
  return Model::FromProto(*std::move(proto), std::move(source));
}

// LoadOnnx, except that bytes of another format (a PyTorch checkpoint, say) that do not load
// are reported as that format, with the way to an ONNX model.
absl::StatusOr<std::unique_ptr<Model>> Load(std::string_view bytes, std::string source,
                                            ModelFormat format, FileBytes* file) {
  if (bytes.empty()) return InputError(source, "empty file");
  // Looked at now, while the bytes are at hand (loading releases them), and said only when the
  // bytes are no ONNX model: a model that loads is never taken for another format.
  const std::optional<std::string> foreign = DescribeForeignFormat(bytes, source);
  const std::string name = source;
  absl::StatusOr<std::unique_ptr<Model>> model = LoadOnnx(bytes, std::move(source), format, file);
  if (!model.ok() && foreign && absl::IsInvalidArgument(model.status())) {
    return InputError(name, *foreign);
  }
  return model;
}

}  // namespace

absl::StatusOr<std::unique_ptr<Model>> LoadModelFromBytes(std::string_view bytes,
                                                          std::string source, ModelFormat format) {
  return Load(bytes, std::move(source), format, nullptr);
}

absl::StatusOr<std::unique_ptr<Model>> LoadModel(const std::string& path, ModelFormat format) {
  if (path == "-") {
    absl::StatusOr<FileBytes> input = FileBytes::ReadStandardInput();
    if (!input.ok()) return input.status();
    return LoadModelFromBytes(input->bytes(), "<stdin>", format);
  }
  std::error_code ec;
  auto status = std::filesystem::status(path, ec);
  if (ec || !std::filesystem::exists(status)) return InputError(path, "no such file");
  if (std::filesystem::is_directory(status)) return InputError(path, "is a directory, not a model");
  absl::StatusOr<FileBytes> file = FileBytes::Open(path);
  if (!file.ok()) return file.status();
  return LoadOpenedFile(*file, path, format);
}

absl::StatusOr<std::unique_ptr<Model>> LoadOpenedFile(FileBytes& file, const std::string& path,
                                                      ModelFormat format) {
  absl::StatusOr<std::unique_ptr<Model>> model = Load(file.bytes(), path, format, &file);
  // What was read past the file's new end was zeros: neither the model nor an error about its
  // bytes would be about the file.
  if (file.truncated()) {
    return InputError(path,
                      "the file was truncated while it was read (rewritten by another "
                      "process?); lint it again once it is complete");
  }
  return model;
}

}  // namespace shapelint::ir
