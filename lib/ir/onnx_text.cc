// The direct definitions of ParseOnnxText and CheckOnnxModel (see onnx_text.h). They stay alone
// in their file: the onnx-shapelint binary defines both itself, and the linker takes this object
// from the library's archive only when nothing else defines them.
#include "ir/onnx_text.h"

#include <onnx/checker.h>
#include <onnx/defs/parser.h>
#include <onnx/defs/schema.h>
#include <onnx/shape_inference/implementation.h>

#include <exception>

namespace shapelint::ir {
namespace {

// Without Abseil's StripAsciiWhitespace: the module that holds this file links libonnx only.
std::string Stripped(const std::string& message) {
  const size_t first = message.find_first_not_of(" \t\r\n");
  const size_t last = message.find_last_not_of(" \t\r\n");
  return first == std::string::npos ? "" : message.substr(first, last - first + 1);
}

// Why this build's ONNX cannot judge `model`: an opset of a domain it has, newer than it knows.
std::string UnknownOpset(const ONNX_NAMESPACE::ModelProto& model) {
  const auto& known = ONNX_NAMESPACE::OpSchemaRegistry::DomainToVersionRange::Instance().Map();
  for (const auto& opset : model.opset_import()) {
    const std::string domain = opset.domain() == "ai.onnx" ? "" : opset.domain();
    auto it = known.find(domain);
    if (it == known.end() || opset.version() <= it->second.second) continue;
    return "the model imports opset " + std::to_string(opset.version()) + " of '" + domain +
           "', this build's ONNX knows " + std::to_string(it->second.second) + " at most";
  }
  return "";
}

}  // namespace

TextParse ParseOnnxText(const char* text, ONNX_NAMESPACE::ModelProto& model, std::string& error) {
  ONNX_NAMESPACE::Common::Status status;
  // ONNX's parser reports most errors as a status, but lets std::stof and friends throw on a
  // malformed number: no exception may leave the library.
  try {
    status = ONNX_NAMESPACE::OnnxParser::Parse(model, text);
  } catch (const std::exception& e) {
    error = e.what();
    return TextParse::kInvalid;
  }
  if (!status.IsOK()) {
    error = Stripped(status.ErrorMessage());
    return TextParse::kInvalid;
  }
  return TextParse::kParsed;
}

ModelCheck CheckOnnxModel(std::string_view bytes, std::string& message) {
  ONNX_NAMESPACE::ModelProto model;
  if (!model.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    message = "protobuf cannot parse it";
    return ModelCheck::kRefused;
  }
  message = UnknownOpset(model);
  if (!message.empty()) return ModelCheck::kSkipped;
  try {
    ONNX_NAMESPACE::checker::check_model(model);
    ONNX_NAMESPACE::shape_inference::InferShapes(
        model, ONNX_NAMESPACE::OpSchemaRegistry::Instance(),
        ONNX_NAMESPACE::ShapeInferenceOptions(true, 1, false));
  } catch (const std::exception& e) {
    message = Stripped(e.what());
    return ModelCheck::kRefused;
  }
  return ModelCheck::kAccepted;
}

}  // namespace shapelint::ir
