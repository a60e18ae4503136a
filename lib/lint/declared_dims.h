// The model as the user means it: --dynamic and --static applied to its declared dims.
#ifndef SHAPELINT_LIB_LINT_DECLARED_DIMS_H_
#define SHAPELINT_LIB_LINT_DECLARED_DIMS_H_

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "shapelint/ir/model.h"
#include "shapelint/lint/lint.h"

namespace shapelint::lint {

// A copy of `model` whose graph inputs declare the `dynamic` axes dynamic (named, or unnamed)
// and whose dims named in `static_dims` are fixed to their size, in inputs, outputs and
// value_info. Where a dynamic axis was declared static, the static dims of value_info are left
// unknown: the exporter inferred them from the old declaration. An error names an input, axis or
// dim name the model does not have.
absl::StatusOr<std::unique_ptr<ir::Model>> WithDeclaredDims(
    const ir::Model& model, const std::vector<DynamicAxis>& dynamic,
    const std::vector<std::pair<std::string, int64_t>>& static_dims);

}  // namespace shapelint::lint

#endif  // SHAPELINT_LIB_LINT_DECLARED_DIMS_H_
