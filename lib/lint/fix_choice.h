// Which fix-its of one lint run go together (lib/lint/fix.cc applies and proves them): those
// the options allow, that edit different nodes and inputs, and that never undo each other.
#ifndef SHAPELINT_LIB_LINT_FIX_CHOICE_H_
#define SHAPELINT_LIB_LINT_FIX_CHOICE_H_

#include <map>
#include <string>
#include <vector>

#include "shapelint/lint/fix.h"
#include "shapelint/lint/fix_it.h"
#include "shapelint/lint/lint.h"

namespace shapelint::lint {

// Symbols a fix makes the graph follow, each with the fix that does (Where): the symbols of a
// finding whose repair sizes no symbol (a Reshape target computed from the input's shape).
using Followed = std::map<std::string, std::string>;

// A finding as the fix's messages name it: its rule and node.
std::string Where(const Finding& f);

// True when `fix` (or a sibling) declares a size for a symbol instead of making the graph follow
// it.
bool SizesSymbols(const FixIt& fix);

// The findings whose fix-its can go together, in order; the others join `unfixed`. `followed`
// holds the symbols earlier rounds made the graph follow; this round's are added.
std::vector<const Finding*> Choose(const std::vector<Finding>& findings, const FixOptions& options,
                                   std::vector<UnfixedFinding>& unfixed, Followed& followed);

}  // namespace shapelint::lint

#endif  // SHAPELINT_LIB_LINT_FIX_CHOICE_H_
