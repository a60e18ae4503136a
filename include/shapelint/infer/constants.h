// The values of literal tensors as ops read them.
#ifndef SHAPELINT_INFER_CONSTANTS_H_
#define SHAPELINT_INFER_CONSTANTS_H_

#include <optional>
#include <string_view>
#include <vector>

#include "shapelint/ir/model.h"

namespace shapelint::infer {

// The data of the float or double initializer or Constant node named `name`, as seen from
// `graph` (enclosing graphs included); nullopt for anything else.
std::optional<std::vector<double>> ConstantFloats(const ir::Graph& graph, std::string_view name);

}  // namespace shapelint::infer

#endif  // SHAPELINT_INFER_CONSTANTS_H_
