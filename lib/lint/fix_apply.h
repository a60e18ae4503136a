// The fix-its chosen for one model as one rewrite of its serialized form (lib/ir/rewrite.h), and
// the lines of the diff that say what it changes.
#ifndef SHAPELINT_LIB_LINT_FIX_APPLY_H_
#define SHAPELINT_LIB_LINT_FIX_APPLY_H_

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "ir/rewrite.h"
#include "shapelint/ir/model.h"
#include "shapelint/lint/fix_it.h"
#include "shapelint/lint/lint.h"

namespace shapelint::lint {

struct Edits {
  ir::ModelRewrite rewrite;
  std::vector<std::string> diff;
};

// `fixes` and their siblings (FixIt::siblings), in order.
std::vector<const FixIt*> WithSiblings(absl::Span<const FixIt* const> fixes);

// The rewrite that applies `fixes` (with their siblings) to `model` (their indices are its main
// graph's), declaring `dynamic` (the axes the lint was told to treat as dynamic) as the lint saw
// them. Nodes a fix lists as unread go only when nothing reads them after every fix.
absl::StatusOr<Edits> BuildEdits(const ir::Model& model, absl::Span<const FixIt* const> fixes,
                                 const std::vector<DynamicAxis>& dynamic);

// Declarations of `fixed`'s outputs and value_info that the fix made stale, as edits, with a
// diff line each: a dim `original` computes as declared and `fixed` computes from the inputs
// becomes that expression, where the two agree at `witness`; so does each of `also` (FixIt::
// stale_declarations, of the fixes applied) however the original computed it.
std::vector<ir::DimEdit> StaleDeclarations(const ir::Model& fixed, const ir::Model& original,
                                           const std::map<std::string, int64_t>& witness,
                                           const std::set<std::pair<std::string, int>>& also,
                                           std::vector<std::string>& diff);

}  // namespace shapelint::lint

#endif  // SHAPELINT_LIB_LINT_FIX_APPLY_H_
