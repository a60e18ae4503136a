// The direct definition of ParseOnnxText (see onnx_text.h). It stays alone in its file: the
// onnx-shapelint binary defines the function itself, and the linker takes this object from the
// library's archive only when nothing else defines it.
#include "ir/onnx_text.h"

#include <onnx/defs/parser.h>

#include <exception>

namespace shapelint::ir {

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
    // Without Abseil's StripAsciiWhitespace: the module that holds this file links libonnx only.
    const std::string& message = status.ErrorMessage();
    const size_t first = message.find_first_not_of(" \t\r\n");
    const size_t last = message.find_last_not_of(" \t\r\n");
    error = first == std::string::npos ? "" : message.substr(first, last - first + 1);
    return TextParse::kInvalid;
  }
  return TextParse::kParsed;
}

}  // namespace shapelint::ir
