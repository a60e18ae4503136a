// Field numbers of onnx.proto that the hand-written wire readers (wire_nodes.cc) and the
// rewriter (rewrite.cc) walk: one list, so that the two cannot disagree on a number.
#ifndef SHAPELINT_LIB_IR_WIRE_FIELDS_H_
#define SHAPELINT_LIB_IR_WIRE_FIELDS_H_

#include <cstdint>

namespace shapelint::ir::wire {

inline constexpr uint64_t kModelGraph = 7;
inline constexpr uint64_t kModelMetadata = 14;
inline constexpr uint64_t kModelFunctions = 25;
inline constexpr uint64_t kGraphNode = 1;
inline constexpr uint64_t kGraphInitializer = 5;
inline constexpr uint64_t kGraphInput = 11;
inline constexpr uint64_t kGraphOutput = 12;
inline constexpr uint64_t kGraphValueInfo = 13;
inline constexpr uint64_t kNodeInput = 1;
inline constexpr uint64_t kTensorName = 8;
inline constexpr uint64_t kTensorExternalData = 13;
inline constexpr uint64_t kTensorDataLocation = 14;
inline constexpr uint64_t kExternal = 1;  // TensorProto.DataLocation.EXTERNAL
inline constexpr uint64_t kValueInfoName = 1;
inline constexpr uint64_t kEntryKey = 1;  // StringStringEntryProto
inline constexpr uint64_t kEntryValue = 2;

}  // namespace shapelint::ir::wire

#endif  // SHAPELINT_LIB_IR_WIRE_FIELDS_H_
