// The rule documentation pages (docs/rules/<CODE>.md), built into the binary for --explain.
#ifndef SHAPELINT_TOOLS_RULE_DOCS_H_
#define SHAPELINT_TOOLS_RULE_DOCS_H_

#include <optional>
#include <string_view>

namespace shapelint::cli {

// The Markdown page of the rule with this code ("SL001"), or nullopt.
std::optional<std::string_view> RuleDoc(std::string_view code);

}  // namespace shapelint::cli

#endif  // SHAPELINT_TOOLS_RULE_DOCS_H_
