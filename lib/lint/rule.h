// The rule interface. A rule does two things, both in its own file under rules/:
//  - it may claim failures the blame walk offers it (Matcher, lint/blame.h): "is this node, or
//    this literal, where the example size entered by my pattern?";
//  - it reports findings: for the causes it claimed, and for anything it finds on its own by
//    querying the analysis (never by running inference again).
// Rules are listed, one line each, in rules/rules.def, which rules/registry.cc turns into the
// registry that lint::Lint runs.
#ifndef SHAPELINT_LIB_LINT_RULE_H_
#define SHAPELINT_LIB_LINT_RULE_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "lint/analysis.h"
#include "shapelint/lint/finding.h"
#include "shapelint/lint/fix.h"
#include "shapelint/lint/lint.h"

namespace shapelint::lint {

class Rule : public Matcher {
 public:
  explicit Rule(const RuleInfo& info) : info_(info) {}
  const RuleInfo& info() const { return info_; }
  // Appends this rule's findings to `out`.
  virtual void Check(const Analysis& analysis, std::vector<Finding>& out) const = 0;

 protected:
  // True when this rule claimed `cause`.
  bool Owns(const Cause& cause) const { return cause.owner == this; }
  // A finding for `cause` with the rule's code and name, located at `node` of the cause's
  // graph, with witness and counterexample filled in, resting on a contradiction (which the
  // severity policy makes a hypothesis where no counterexample shows it).
  Finding FindingFor(const Analysis& analysis, const Cause& cause, int node,
                     std::string message) const;
  // A finding with the rule's code and name at `node` of `graph`; the rest is the rule's to
  // fill in (for findings that are not about a cause, such as SL007's literals).
  Finding FindingAt(const Analysis& analysis, const ir::Graph& graph, int node, Evidence evidence,
                    std::string message) const;

 private:
  const RuleInfo& info_;
};

// One line of the registry: a rule's description and how to make it.
struct RuleFactory {
  RuleInfo info;
  std::unique_ptr<Rule> (*make)(const RuleInfo& info);
};

// Lints `model` with the rules of `registry` that `options` select, in registry order: the
// order in which they are offered the failures to claim. Fails when `options` do not fit the
// model or name no rule of `registry` (lint::Lint), and when a rule reports above its level.
absl::StatusOr<std::vector<Finding>> RunRules(const ir::Model& model, const LintOptions& options,
                                              absl::Span<const RuleFactory> registry);
// The same, showing `inspect` the analysis the rules ran on once they have, before it is freed
// (what lint::Fix compares between a model and its repair).
absl::StatusOr<std::vector<Finding>> RunRules(const ir::Model& model, const LintOptions& options,
                                              absl::Span<const RuleFactory> registry,
                                              absl::FunctionRef<void(const Analysis&)> inspect);

// lint::Fix with the rules of `registry` (shapelint/lint/fix.h).
absl::StatusOr<FixResult> FixWithRules(std::string_view model_bytes, const std::string& source,
                                       const FixOptions& options,
                                       absl::Span<const RuleFactory> registry);
// lint::FixFile with the rules of `registry`.
absl::StatusOr<FixResult> FixFileWithRules(const std::string& path, const FixOptions& options,
                                           absl::Span<const RuleFactory> registry);

}  // namespace shapelint::lint

#endif  // SHAPELINT_LIB_LINT_RULE_H_
