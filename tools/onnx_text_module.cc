// The module onnx-shapelint-text.so: libonnx's text parser and checker, which the onnx-shapelint
// binary loads the first time it reads a model in ONNX's text format or checks a fixed model
// (lib/ir/onnx_text.h). The binary
// may have protobuf built in, so the model crosses serialized, as bytes.
#include <string>
#include <string_view>

#include "ir/onnx_text.h"

__attribute__((visibility("default"))) const char* shapelint_onnx_text_build() {
  return SHAPELINT_VERSION "+abi" SHAPELINT_TEXT_MODULE_ABI;
}

__attribute__((visibility("default"))) bool shapelint_parse_onnx_text(const char* text, void* sink,
                                                                      ShapelintTextSink append) {
  ONNX_NAMESPACE::ModelProto model;
  std::string out;
  if (shapelint::ir::ParseOnnxText(text, model, out) != shapelint::ir::TextParse::kParsed) {
    append(sink, out.data(), out.size());
    return false;
  }
  if (!model.SerializeToString(&out)) {
    constexpr std::string_view kTooLarge = "the parsed model is larger than protobuf's 2 GB limit";
    append(sink, kTooLarge.data(), kTooLarge.size());
    return false;
  }
  append(sink, out.data(), out.size());
  return true;
}

__attribute__((visibility("default"))) int shapelint_check_onnx_model(const char* data,
                                                                      std::size_t size, void* sink,
                                                                      ShapelintTextSink append) {
  std::string message;
  const auto result = shapelint::ir::CheckOnnxModel(std::string_view(data, size), message);
  append(sink, message.data(), message.size());
  return static_cast<int>(result);
}
