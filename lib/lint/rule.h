// The rule interface. A rule queries the analysis (never re-runs inference) and emits
// findings; rules are listed, one line each, in rules/rules.def.
#ifndef SHAPELINT_LIB_LINT_RULE_H_
#define SHAPELINT_LIB_LINT_RULE_H_

#include <memory>
#include <string>
#include <vector>

#include "lint/analysis.h"
#include "shapelint/lint/finding.h"
#include "shapelint/lint/lint.h"

namespace shapelint::lint {

// Longest expression a finding spells out: expressions share subexpressions and can print
// far longer than they are.
inline constexpr size_t kMaxExprText = 120;

// "lhs == rhs" for `requirement`, each side cut at kMaxExprText.
std::string EqualityText(const infer::Requirement& requirement);

class Rule {
 public:
  explicit Rule(const RuleInfo& info) : info_(info) {}
  virtual ~Rule() = default;
  const RuleInfo& info() const { return info_; }
  virtual void Check(const Analysis& analysis, std::vector<Finding>& out) const = 0;

 protected:
  // A finding for `cause` with the rule's code and name, located at `node` of the cause's
  // graph, with witness and counterexample filled in. Without a counterexample the severity
  // drops to warning: an error must be demonstrable.
  Finding FindingFor(const Analysis& analysis, const Cause& cause, int node,
                     std::string message) const;
  // A finding with the rule's code and name at `node` of `graph`; the rest is the rule's to
  // fill in (for findings that are not about a cause, such as SL007's literals).
  Finding FindingAt(const Analysis& analysis, const ir::Graph& graph, int node, Severity severity,
                    std::string message) const;

 private:
  const RuleInfo& info_;
};

#define SHAPELINT_RULE(code, name, factory, level, summary) \
  std::unique_ptr<Rule> factory(const RuleInfo& info);
#include "rules/rules.def"
#undef SHAPELINT_RULE

}  // namespace shapelint::lint

#endif  // SHAPELINT_LIB_LINT_RULE_H_
