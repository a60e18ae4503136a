// SL010's residue classes: the sizes at which a node's relations hold, where they are every
// fourth size (a view to a literal multiple), every second (pairs of frames), or a window that
// repeats (h % 32 not in [1, 24] where a detector's strides round up).
#ifndef SHAPELINT_RULES_DESIGN_RANGE_CLASS_H_
#define SHAPELINT_RULES_DESIGN_RANGE_CLASS_H_

#include <optional>
#include <string>
#include <vector>

#include "lint/analysis.h"
#include "shapelint/infer/engine.h"
#include "shapelint/lint/finding.h"
#include "shapelint/sym/expr.h"

namespace shapelint::lint {

// The classes of `symbols` at which every one of `relations` holds, each symbol moved alone with
// the others at `at`, as a witness: its ranges hold each class (SymbolRange::congruent_from),
// its summary "works only for T a multiple of 4". Only the node's own relations are read, not
// the exporter's recorded range (torch.export's T >= 4 is no size the graph fails at). nullopt
// where none of the symbols has such a class, where one is restricted otherwise (a bound), or
// where the relations read more symbols than a class is worth scanning for (16).
std::optional<Witness> RelationClasses(const std::vector<const infer::Requirement*>& relations,
                                       const std::vector<std::string>& symbols,
                                       const sym::Binding& at);

// "" where `relations` accept the same sizes of each symbol with a class in `classes` whatever
// the others among `symbols` are (a view's batch and features cancel out of its element count);
// else " (each with the others at C=2, H=2)", the sizes of those that move a class: a flattened
// count 10 must divide needs a multiple of 5 along one axis where another is even, of 10 where
// none is.
std::string ClassOthersText(const std::vector<const infer::Requirement*>& relations,
                            const std::vector<std::string>& symbols, const sym::Binding& at,
                            const Witness& classes);

// Where a Pad with literal amounts makes up the class `classes` states for `requirement`'s
// node (lint/padding.h: a class that leaves out the multiples, or a side left literal where the
// same Pad grows another to the multiple), makes `f` a hypothesis that names the Pad and its fix
// (`sizes`: the sizes the class holds, for "or serve only ..."), and returns true.
bool NotePadToClass(const Analysis& analysis, const infer::Requirement& requirement,
                    const Witness& classes, const std::string& sizes, Finding& f);

}  // namespace shapelint::lint

#endif  // SHAPELINT_RULES_DESIGN_RANGE_CLASS_H_
