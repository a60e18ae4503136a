#ifndef SHAPELINT_LIB_IR_INLINE_FUNCTIONS_H_
#define SHAPELINT_LIB_IR_INLINE_FUNCTIONS_H_

#include <onnx/onnx_pb.h>

namespace shapelint::ir {

// Replaces every call of a model-local function, in the main graph and in subgraphs, by the
// function's body with the call's inputs, outputs and attributes bound. Inner values are
// renamed "<call node>/<name>"; inner nodes are named "<call node>/<node>".
void InlineFunctions(ONNX_NAMESPACE::ModelProto& model);

}  // namespace shapelint::ir

#endif  // SHAPELINT_LIB_IR_INLINE_FUNCTIONS_H_
