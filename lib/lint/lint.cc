// The engine behind lint::Lint: the options applied to the model, the selected rules built,
// offered the failures to claim, and run.
#include "shapelint/lint/lint.h"

#include <algorithm>
#include <memory>
#include <tuple>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "lint/analysis.h"
#include "lint/declared_dims.h"
#include "lint/recorded_sizes.h"
#include "lint/rule.h"
#include "lint/selection.h"
#include "lint/severity.h"
#include "shapelint/sym/expr.h"

namespace shapelint::lint {
namespace {

// The sizes the model was exported at, as a binding of its input symbols.
absl::StatusOr<sym::Binding> ExampleSizes(const Analysis& analysis, const ProbeSpec& spec) {
  if (spec.range_symbol) return absl::InvalidArgumentError("export dims: a size, not a range");
  auto example = BindSizes(analysis, spec);
  if (!example.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("export dims: ", example.status().message()));
  }
  return example;
}

// The sizes torch.export specialized while tracing are sizes of the example for certain: they
// join the example (the user's --export-dims win where both give one), so that the literals
// derived from them are found without being told (SL007, SL008).
void AddRecordedExampleSizes(Analysis& analysis) {
  sym::Binding example = analysis.example();
  bool added = false;
  for (const auto& [symbol, size] : analysis.specialized()) {
    if (example.Get(symbol)) continue;
    example.Set(symbol, size);
    added = true;
  }
  // So are the input sizes a decomposed adaptive pool records (lint/recorded_sizes.h).
  for (const auto& [symbol, size] : RecordedPoolSizes(analysis.model(), analysis.inference())) {
    if (example.Get(symbol)) continue;
    example.Set(symbol, size);
    added = true;
  }
  // Setting the example moves the witness to it: only when it changed.
  if (added) analysis.SetExample(std::move(example));
}

// True for a dim name an exporter made up, which says nothing of the axis it is: torch's "s53",
// ONNX's and ONNX Runtime's "unk__12".
bool OpaqueSymbol(absl::string_view name) {
  absl::string_view digits = name;
  if (!absl::ConsumePrefix(&digits, "s") && !absl::ConsumePrefix(&digits, "unk__")) return false;
  return !digits.empty() && std::all_of(digits.begin(), digits.end(), [](char c) {
    return absl::ascii_isdigit(static_cast<unsigned char>(c));
  });
}

// True when `word` stands in `text` as a whole name (not inside "s530" or "xs53").
bool NamesWord(absl::string_view text, absl::string_view word) {
  auto part_of_name = [](char c) {
    return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '_';
  };
  for (size_t at = text.find(word); at != absl::string_view::npos; at = text.find(word, at + 1)) {
    const size_t end = at + word.size();
    if ((at == 0 || !part_of_name(text[at - 1])) &&
        (end == text.size() || !part_of_name(text[end]))) {
      return true;
    }
  }
  return false;
}

// Names the input axis of every made-up symbol a finding speaks of (Finding::symbol_axes).
void NameSymbolAxes(const Analysis& analysis, Finding& f) {
  std::vector<std::string> named;
  for (const infer::InputDim& d : analysis.inference().input_dims) {
    const std::optional<std::string_view> symbol = d.dim ? d.dim->AsSymbol() : std::nullopt;
    if (!symbol) continue;
    const std::string s(*symbol);
    if (!OpaqueSymbol(s)) continue;
    if (std::find(named.begin(), named.end(), s) != named.end()) continue;
    bool spoken = NamesWord(f.message, s) ||
                  std::find(f.symbols.begin(), f.symbols.end(), s) != f.symbols.end();
    if (f.counterexample) {
      for (const auto& [b, v] : f.counterexample->binding) spoken |= b == s;
    }
    if (f.witness) {
      for (const SymbolRange& r : f.witness->ranges) spoken |= r.symbol == s;
    }
    if (!spoken) continue;
    named.push_back(s);
    f.symbol_axes.emplace_back(s, absl::StrCat(d.input, " axis ", d.axis));
  }
}

// A rule reports at most at its level (its doc page's "Severity:"): more is a bug in the rule.
absl::Status CheckLevels(const Rule& rule, absl::Span<const Finding> findings) {
  for (const Finding& f : findings) {
    if (f.severity <= rule.info().level) continue;
    return absl::InternalError(absl::StrCat(
        "rule ", std::string(rule.info().code), " reported ", std::string(SeverityName(f.severity)),
        " '", f.message, "', above its level ", std::string(SeverityName(rule.info().level))));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<PreparedAnalysis> PrepareAnalysis(const ir::Model& given,
                                                 const LintOptions& options) {
  PreparedAnalysis prepared;
  if (!options.dynamic.empty() || !options.static_dims.empty()) {
    auto m = WithDeclaredDims(given, options.dynamic, options.static_dims);
    if (!m.ok()) return m.status();
    prepared.adjusted = *std::move(m);
  }
  prepared.analysis = std::make_unique<Analysis>(prepared.adjusted ? *prepared.adjusted : given);
  Analysis& analysis = *prepared.analysis;
  if (options.export_dims) {
    auto example = ExampleSizes(analysis, *options.export_dims);
    if (!example.ok()) return example.status();
    analysis.SetExample(*std::move(example));
  }
  AddRecordedExampleSizes(analysis);
  if (options.fix_its) analysis.WantFixes();
  if (!options.witness_hint.empty() && !analysis.has_example()) {
    sym::Binding hint;
    for (const auto& [symbol, size] : options.witness_hint) hint.Set(symbol, size);
    analysis.PreferWitness(hint);
  }
  return prepared;
}

absl::StatusOr<std::vector<Finding>> RunRules(const ir::Model& given, const LintOptions& options,
                                              absl::Span<const RuleFactory> registry) {
  return RunRules(given, options, registry, [](const Analysis&) {});
}

absl::StatusOr<std::vector<Finding>> RunRules(const ir::Model& given, const LintOptions& options,
                                              absl::Span<const RuleFactory> registry,
                                              absl::FunctionRef<void(const Analysis&)> inspect) {
  std::vector<RuleInfo> infos;
  for (const RuleFactory& f : registry) infos.push_back(f.info);
  auto selected = SelectedRules(infos, options.select, options.ignore);
  if (!selected.ok()) return selected.status();
  // Every expression of this run is freed at its end: findings hold only strings.
  sym::InternScope scope;
  absl::StatusOr<PreparedAnalysis> prepared = PrepareAnalysis(given, options);
  if (!prepared.ok()) return prepared.status();
  Analysis& analysis = *prepared->analysis;
  std::vector<std::unique_ptr<Rule>> rules;
  std::vector<const Matcher*> matchers;
  for (size_t i = 0; i < registry.size(); ++i) {
    if (!(*selected)[i]) continue;
    rules.push_back(registry[i].make(registry[i].info));
    matchers.push_back(rules.back().get());
  }
  analysis.AssignCauses(matchers);
  std::vector<Finding> findings;
  for (const auto& rule : rules) {
    const size_t before = findings.size();
    rule->Check(analysis, findings);
    for (size_t i = before; i < findings.size(); ++i) {
      ApplySeverityPolicy(findings[i]);
      NameSymbolAxes(analysis, findings[i]);
    }
    const absl::Span<const Finding> added(findings.data() + before, findings.size() - before);
    if (auto st = CheckLevels(*rule, added); !st.ok()) return st;
  }
  std::stable_sort(findings.begin(), findings.end(), [](const Finding& a, const Finding& b) {
    return std::tie(a.node.graph, a.node.index, a.rule) <
           std::tie(b.node.graph, b.node.index, b.rule);
  });
  inspect(analysis);
  return findings;
}

std::string_view Version() { return SHAPELINT_VERSION; }

}  // namespace shapelint::lint
