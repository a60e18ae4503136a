// The values of a small literal tensor, read from its TensorProto, and written back as bytes:
// what a fix that rebuilds a folded constant from a pattern reads and checks.
#ifndef SHAPELINT_LIB_LINT_TENSOR_VALUES_H_
#define SHAPELINT_LIB_LINT_TENSOR_VALUES_H_

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace shapelint::lint {

// A tensor's values in row-major order, as doubles (every float32, int32, bool and int64 up to
// 2^53 is exact in one), with its element type and dims.
struct TensorValues {
  int32_t data_type = 0;
  std::vector<int64_t> dims;
  std::vector<double> values;
};

// True for the element types ReadTensorValues reads: float, double, int32, int64, bool.
bool IsReadableType(int32_t data_type);

// The values of `tensor`; an error when they are external, not kept by the loader (a large
// tensor's payload is skimmed), of another type, or more than `max_elements`.
absl::StatusOr<TensorValues> ReadTensorValues(const ONNX_NAMESPACE::TensorProto& tensor,
                                              int64_t max_elements);

// `values` as the little-endian raw_data of a tensor of `data_type` (IsReadableType).
std::string RawData(int32_t data_type, const std::vector<double>& values);

}  // namespace shapelint::lint

#endif  // SHAPELINT_LIB_LINT_TENSOR_VALUES_H_
