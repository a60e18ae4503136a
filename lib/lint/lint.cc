#include "shapelint/lint/lint.h"

#include <algorithm>
#include <tuple>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "lint/analysis.h"
#include "lint/declared_dims.h"
#include "lint/rule.h"
#include "shapelint/sym/expr.h"

namespace shapelint::lint {
namespace {

struct RuleEntry {
  RuleInfo info;
  std::unique_ptr<Rule> (*factory)(const RuleInfo&);
};

const std::vector<RuleEntry>& Registry() {
  static const auto* entries = new std::vector<RuleEntry>{
#define SHAPELINT_RULE(code, name, factory, level, summary) \
  {{#code, name, summary, Severity::level}, factory},
#include "rules/rules.def"
#undef SHAPELINT_RULE
  };
  return *entries;
}

bool Names(const RuleInfo& info, const std::vector<std::string>& list) {
  return std::any_of(list.begin(), list.end(), [&](const std::string& s) {
    return absl::EqualsIgnoreCase(s, absl::string_view(info.code.data(), info.code.size())) ||
           absl::EqualsIgnoreCase(s, absl::string_view(info.name.data(), info.name.size()));
  });
}

bool Selected(const RuleInfo& info, const LintOptions& options) {
  if (Names(info, options.ignore)) return false;
  return options.select.empty() || Names(info, options.select);
}

}  // namespace

const std::vector<RuleInfo>& AllRules() {
  static const auto* infos = [] {
    auto* v = new std::vector<RuleInfo>();
    for (const auto& e : Registry()) v->push_back(e.info);
    return v;
  }();
  return *infos;
}

absl::StatusOr<std::vector<Finding>> Lint(const ir::Model& given, const LintOptions& options) {
  // Every expression of this run is freed at its end: findings hold only strings.
  sym::InternScope scope;
  std::unique_ptr<ir::Model> adjusted;
  if (!options.dynamic.empty() || !options.static_dims.empty()) {
    auto m = WithDeclaredDims(given, options.dynamic, options.static_dims);
    if (!m.ok()) return m.status();
    adjusted = *std::move(m);
  }
  const ir::Model& model = adjusted ? *adjusted : given;
  Analysis analysis(model);
  if (options.export_dims) {
    if (options.export_dims->range_symbol) {
      return absl::InvalidArgumentError("export dims: a size, not a range");
    }
    auto example = BindSizes(analysis, *options.export_dims);
    if (!example.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("export dims: ", example.status().message()));
    }
    analysis.SetExample(*std::move(example));
  }
  std::vector<Finding> findings;
  for (const RuleEntry& e : Registry()) {
    if (!Selected(e.info, options)) continue;
    e.factory(e.info)->Check(analysis, findings);
  }
  std::stable_sort(findings.begin(), findings.end(), [](const Finding& a, const Finding& b) {
    return std::tie(a.node.graph, a.node.index, a.rule) <
           std::tie(b.node.graph, b.node.index, b.rule);
  });
  return findings;
}

std::string_view Version() { return SHAPELINT_VERSION; }

}  // namespace shapelint::lint
