// The registry: every rule of rules/rules.def, in its order, and the entry points that run them.
// The order is the rules' precedence: the blame walk offers each failure to the rules that run
// in this order, and the first that claims it reports it.
#include <memory>
#include <vector>

#include "lint/rule.h"
#include "shapelint/lint/fix.h"
#include "shapelint/lint/lint.h"

namespace shapelint::lint {

#define SHAPELINT_RULE(code, name, factory, level, summary) \
  std::unique_ptr<Rule> factory(const RuleInfo& info);
#include "rules/rules.def"
#undef SHAPELINT_RULE

namespace {

const std::vector<RuleFactory>& Registry() {
  static const auto* entries = new std::vector<RuleFactory>{
#define SHAPELINT_RULE(code, name, factory, level, summary) \
  {{#code, name, summary, Severity::level}, factory},
#include "rules/rules.def"
#undef SHAPELINT_RULE
  };
  return *entries;
}

}  // namespace

const std::vector<RuleInfo>& AllRules() {
  static const auto* infos = [] {
    auto* v = new std::vector<RuleInfo>();
    for (const RuleFactory& e : Registry()) v->push_back(e.info);
    return v;
  }();
  return *infos;
}

absl::StatusOr<std::vector<Finding>> Lint(const ir::Model& model, const LintOptions& options) {
  return RunRules(model, options, Registry());
}

absl::StatusOr<FixResult> Fix(std::string_view model_bytes, const std::string& source,
                              const FixOptions& options) {
  return FixWithRules(model_bytes, source, options, Registry());
}

absl::StatusOr<FixResult> FixFile(const std::string& path, const FixOptions& options) {
  return FixFileWithRules(path, options, Registry());
}

}  // namespace shapelint::lint
