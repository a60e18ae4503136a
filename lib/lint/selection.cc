#include "lint/selection.h"

#include <algorithm>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace shapelint::lint {
namespace {

// A prefix shorter than this ("S") would name every rule by accident.
constexpr size_t kMinPrefix = 2;

absl::string_view View(std::string_view s) { return absl::string_view(s.data(), s.size()); }

// Marks in `on` the rules that the selectors of `list` name; an error for one that names none.
absl::Status Mark(absl::Span<const RuleInfo> rules, const std::vector<std::string>& list,
                  std::string_view option, std::vector<bool>& on) {
  for (const std::string& selector : list) {
    bool any = false;
    for (size_t i = 0; i < rules.size(); ++i) {
      if (!SelectorNames(selector, rules[i])) continue;
      on[i] = true;
      any = true;
    }
    if (!any) {
      return absl::InvalidArgumentError(
          absl::StrCat(View(option), ": '", selector,
                       "' names no rule (a code, a code prefix, a name, or ALL)"));
    }
  }
  return absl::OkStatus();
}

}  // namespace

bool SelectorNames(std::string_view selector, const RuleInfo& rule) {
  const absl::string_view s = View(selector);
  return absl::EqualsIgnoreCase(s, "ALL") || absl::EqualsIgnoreCase(s, View(rule.code)) ||
         absl::EqualsIgnoreCase(s, View(rule.name)) ||
         (s.size() >= kMinPrefix && absl::StartsWithIgnoreCase(View(rule.code), s));
}

std::vector<std::string> CodesMatching(absl::Span<const RuleInfo> rules,
                                       std::string_view selector) {
  std::vector<std::string> codes;
  for (const RuleInfo& rule : rules) {
    if (SelectorNames(selector, rule)) codes.emplace_back(rule.code);
  }
  return codes;
}

absl::StatusOr<std::vector<bool>> SelectedRules(
    absl::Span<const RuleInfo> rules, const std::optional<std::vector<std::string>>& select,
    const std::vector<std::string>& ignore) {
  std::vector<bool> selected(rules.size(), !select.has_value());
  if (select) {
    if (auto st = Mark(rules, *select, "select", selected); !st.ok()) return st;
  }
  std::vector<bool> ignored(rules.size(), false);
  if (auto st = Mark(rules, ignore, "ignore", ignored); !st.ok()) return st;
  for (size_t i = 0; i < rules.size(); ++i) selected[i] = selected[i] && !ignored[i];
  return selected;
}

}  // namespace shapelint::lint
