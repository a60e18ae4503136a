// The severity policy's check of a bake against its repair (docs/severity.md, "A bake's repair
// runs where the bake fails").
//
// An error says that the model fails at its counterexample because a literal holds the
// example's size of an input dim (a Reshape target's 6, the 4 of a folded ConstantOfShape
// shape). Its repair makes that literal follow the dim. Where the graph so repaired still fails
// at the counterexample at a trained weight (a Linear(6, 12) after reshape(-1, 6), a
// Linear(4, 8) after a concatenation with new_zeros(b, pad, 4)), the weight needs that size
// anyway: the literal repeats a size of the model's own, eager PyTorch fails there too, and the
// finding is the model's design (a note), not evidence of a bake.
#ifndef SHAPELINT_LIB_LINT_REPAIR_CHECK_H_
#define SHAPELINT_LIB_LINT_REPAIR_CHECK_H_

#include <vector>

#include "lint/analysis.h"
#include "shapelint/lint/finding.h"

namespace shapelint::lint {

// Runs the engine once with the literal of every error (evidence kContradiction or
// kExporterRecord) that pins an input dim to one size made to follow that dim, all together (a
// size baked twice is repaired twice), and makes each finding whose counterexample still fails
// at a trained weight a finding of design, with a note that says where. After the severity
// policy was applied: it maps what this finds as it maps every rule's evidence.
void CheckRepairs(const Analysis& analysis, std::vector<Finding>& findings);

}  // namespace shapelint::lint

#endif  // SHAPELINT_LIB_LINT_REPAIR_CHECK_H_
