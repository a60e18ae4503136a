#ifndef SHAPELINT_LIB_IR_INLINE_FUNCTIONS_H_
#define SHAPELINT_LIB_IR_INLINE_FUNCTIONS_H_

#include <onnx/onnx_pb.h>

#include <cstdint>

#include "absl/status/status.h"

namespace shapelint::ir {

// Calls of model-local functions nest at most this deep (a call from the main graph is level
// 1), and expanding them makes at most this many nodes; past either, the model is refused.
inline constexpr int kMaxInlineDepth = 16;
inline constexpr int64_t kMaxInlinedNodes = 1'000'000;

// Replaces every call of a model-local function, in the main graph and in subgraphs, by the
// function's body with the call's inputs, outputs and attributes bound. Inner values are
// renamed "<call node>/<name>" (unnamed calls are "<op>_<index>"), with "_2", "_3", ... after
// the call's name where that would repeat a name already there; inner nodes are named
// "<call node>/<node>". Calls of a recursive function (one that calls itself, directly or
// through others) stay calls. Returns an error, having changed nothing, when the expansion
// would pass a cap above.
absl::Status InlineFunctions(ONNX_NAMESPACE::ModelProto& model);

}  // namespace shapelint::ir

#endif  // SHAPELINT_LIB_IR_INLINE_FUNCTIONS_H_
