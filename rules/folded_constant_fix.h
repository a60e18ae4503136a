// SL005's repair, private to the rule (folded_constant.cc, folded_constant_fix.cc).
#ifndef SHAPELINT_RULES_FOLDED_CONSTANT_FIX_H_
#define SHAPELINT_RULES_FOLDED_CONSTANT_FIX_H_

#include "absl/status/statusor.h"
#include "lint/analysis.h"
#include "lint/blame.h"
#include "shapelint/lint/fix_it.h"

namespace shapelint::lint {

// The repair of the literal `cause` blames: where it is the shape operand of an Expand, a Tile
// or a Resize, each entry a pin holds at the literal computed from the dim it stands for; where
// it is a tensor of its own (an arange, a mask), the tensor rebuilt from its pattern along the
// axes sized at the example. An error says why neither applies.
absl::StatusOr<FixIt> RepairFoldedConstant(const Analysis& analysis, const Cause& cause);

}  // namespace shapelint::lint

#endif  // SHAPELINT_RULES_FOLDED_CONSTANT_FIX_H_
