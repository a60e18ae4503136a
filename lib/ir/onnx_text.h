// Parsing ONNX's text format (the syntax of onnx::OnnxParser, .onnxtxt files).
//
// libonnx's parser (and, for `fix`, its checker) is all of libonnx the linter uses, and loading
// libonnx costs a
// process 2.7 million instructions (a quarter of a run on a small model) and 1 MB before main()
// (docs/performance.md). So this function has two
// definitions, and each program links exactly one of them:
// - lib/ir/onnx_text.cc, in the library, calls the parser directly;
// - tools/onnx_text_loader.cc, in the onnx-shapelint binary, loads the parser from a module
//   the first time a text model is read, so that linting binary models never loads libonnx.
#ifndef SHAPELINT_LIB_IR_ONNX_TEXT_H_
#define SHAPELINT_LIB_IR_ONNX_TEXT_H_

#include <onnx/onnx_pb.h>

#include <cstddef>
#include <string>
#include <string_view>

namespace shapelint::ir {

enum class TextParse {
  kParsed,
  kInvalid,      // `error` has the parser's message
  kUnavailable,  // the binary cannot load the parser; `error` says why
};

// Parses the NUL-terminated `text` into `model`. Never throws.
TextParse ParseOnnxText(const char* text, ONNX_NAMESPACE::ModelProto& model, std::string& error);

enum class ModelCheck {
  kAccepted,
  kRefused,      // `message` has the checker's or shape inference's words
  kSkipped,      // this build's ONNX does not know an opset the model imports; `message` says
  kUnavailable,  // the binary cannot load the checker; `message` says why
};

// ONNX's checker and its strict shape inference (Python's onnx.checker.check_model with
// full_check=True) on the serialized model `bytes`. Never throws.
ModelCheck CheckOnnxModel(std::string_view bytes, std::string& message);

}  // namespace shapelint::ir

// The entry points of the module onnx-shapelint-text.so (tools/onnx_text_module.cc), which the
// binary finds by these names.
//
// The build the module comes from: SHAPELINT_VERSION "+abi" SHAPELINT_TEXT_MODULE_ABI. The
// binary calls the parser only when this is its own, so that a module left over from another
// version or build is refused with a message instead of being called with the wrong contract.
// C symbols, looked up by name with dlsym: lower case, prefixed, unlike the C++ functions.
extern "C" const char* shapelint_onnx_text_build();  // NOLINT(readability-identifier-naming)
// Bumped whenever shapelint_parse_onnx_text changes its signature or meaning.
#define SHAPELINT_TEXT_MODULE_ABI "3"

// Receives, in one or more pieces, what shapelint_parse_onnx_text has to say.
using ShapelintTextSink = void (*)(void* sink, const char* data, std::size_t size);

// Parses the NUL-terminated `text`. True when parsed, with the model serialized to `append`;
// false with the parser's message written to it. Only C types cross: the binary may link its
// own copies of protobuf and of the C++ runtime (tools/cmake/static_runtime.cmake), and the
// module those of libonnx, so neither can use the other's objects.
extern "C" bool shapelint_parse_onnx_text(  // NOLINT(readability-identifier-naming)
    const char* text, void* sink, ShapelintTextSink append);

// CheckOnnxModel on `size` bytes at `data`: a ModelCheck as an int, with its message written to
// `append`.
extern "C" int shapelint_check_onnx_model(  // NOLINT(readability-identifier-naming)
    const char* data, std::size_t size, void* sink, ShapelintTextSink append);

#endif  // SHAPELINT_LIB_IR_ONNX_TEXT_H_
