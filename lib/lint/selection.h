// Rule selectors, as --select, --ignore, configuration files, LintOptions and the Python module
// take them: a code or a name in any case, a code prefix of two or more characters ("SL00"),
// or "ALL".
#ifndef SHAPELINT_LIB_LINT_SELECTION_H_
#define SHAPELINT_LIB_LINT_SELECTION_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "shapelint/lint/lint.h"

namespace shapelint::lint {

// True when `selector` names `rule`.
bool SelectorNames(std::string_view selector, const RuleInfo& rule);

// The codes of the rules of `rules` that `selector` names, in their order; empty when none.
std::vector<std::string> CodesMatching(absl::Span<const RuleInfo> rules, std::string_view selector);

// Whether each rule of `rules` runs: selected by `select` (every rule when it is unset) and not
// named by `ignore`. An error names a selector that names no rule.
absl::StatusOr<std::vector<bool>> SelectedRules(
    absl::Span<const RuleInfo> rules, const std::optional<std::vector<std::string>>& select,
    const std::vector<std::string>& ignore);

}  // namespace shapelint::lint

#endif  // SHAPELINT_LIB_LINT_SELECTION_H_
