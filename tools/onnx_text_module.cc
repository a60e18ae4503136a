// The module onnx-shapelint-text.so: libonnx's text parser, which the onnx-shapelint binary
// loads the first time it reads a model in ONNX's text format (lib/ir/onnx_text.h). The binary
// and the module share libonnx_proto and libprotobuf, so the model is parsed in place.
#include <string>

#include "ir/onnx_text.h"

__attribute__((visibility("default"))) const char* shapelint_onnx_text_build() {
  return SHAPELINT_VERSION "+abi" SHAPELINT_TEXT_MODULE_ABI;
}

__attribute__((visibility("default"))) bool shapelint_parse_onnx_text(
    const char* text, ONNX_NAMESPACE::ModelProto* model, std::string* error) {
  return shapelint::ir::ParseOnnxText(text, *model, *error) == shapelint::ir::TextParse::kParsed;
}
