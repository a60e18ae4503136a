// The engine behind lint::Lint: the options applied to the model, the selected rules built,
// offered the failures to claim, and run.
#include "shapelint/lint/lint.h"

#include <algorithm>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "lint/analysis.h"
#include "lint/declared_dims.h"
#include "lint/recorded_sizes.h"
#include "lint/repair_check.h"
#include "lint/rule.h"
#include "lint/run_records.h"
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
constexpr int64_t kLargestDeclaredSize = int64_t{1} << 62;

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
  // So are the sizes a graph output's declaration written at the example gives
  // (Analysis::DeclaredAtExample): TorchScript declares an output dynamic_axes does not name at
  // the example's sizes, so where the graph computes an axis as one input symbol, the number
  // declared there is that symbol's size at export. A symbol two declarations disagree on is
  // left out.
  std::map<std::string, int64_t> declared;
  std::set<std::string> disagree;
  for (const infer::Requirement& r : analysis.inference().requirements) {
    if (r.kind != infer::RequirementKind::kDeclaredShape || !r.interface ||
        !analysis.DeclaredAtExample(r.value)) {
      continue;
    }
    const std::optional<std::string_view> symbol = r.lhs.AsSymbol();
    const std::optional<int64_t> size = r.rhs.AsConstant();
    // A size past any anyone runs gives nothing, as a recorded range starting there does.
    if (!symbol || !size || *size < 1 || *size > kLargestDeclaredSize) continue;
    const auto [it, fresh] = declared.emplace(std::string(*symbol), *size);
    if (!fresh && it->second != *size) disagree.insert(it->first);
  }
  for (const auto& [symbol, size] : declared) {
    if (disagree.contains(symbol) || example.Get(symbol)) continue;
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

// The input axis of every made-up symbol (Finding::symbol_axes), the first axis declaring it,
// in input order. Built once per model, so that a finding pays for the names it uses, not for
// the model's rank (a rank-10,000 input gives as many findings).
class SymbolAxes {
 public:
  explicit SymbolAxes(const infer::Inference& inference) {
    for (const infer::InputDim& d : inference.input_dims) {
      const std::optional<std::string_view> symbol = d.dim ? d.dim->AsSymbol() : std::nullopt;
      if (!symbol) continue;
      std::string s(*symbol);
      if (!OpaqueSymbol(s) || index_.contains(s)) continue;
      index_.emplace(s, axes_.size());
      axes_.emplace_back(std::move(s), absl::StrCat(d.input, " axis ", d.axis));
    }
  }

  // Names those the finding uses: in its symbols, witness and counterexample, or as a whole
  // word of its message (not inside "s530" or "xs53").
  void Name(Finding& f) const {
    if (axes_.empty()) return;
    std::set<size_t> spoken;
    auto use = [&](const std::string& s) {
      if (auto it = index_.find(s); it != index_.end()) spoken.insert(it->second);
    };
    for (const std::string& s : f.symbols) use(s);
    if (f.counterexample) {
      for (const auto& [s, size] : f.counterexample->binding) use(s);
    }
    if (f.witness) {
      for (const SymbolRange& r : f.witness->ranges) use(r.symbol);
    }
    const std::string& text = f.message;
    for (size_t i = 0; i < text.size();) {
      size_t end = i;
      while (end < text.size() && PartOfName(text[end])) ++end;
      if (end > i) use(text.substr(i, end - i));
      i = end + 1;
    }
    for (size_t i : spoken) f.symbol_axes.push_back(axes_[i]);
  }

 private:
  static bool PartOfName(char c) {
    return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '_';
  }

  std::vector<std::pair<std::string, std::string>> axes_;  // symbol -> "x axis 2"
  absl::flat_hash_map<std::string, size_t> index_;         // symbol -> its place in axes_
};

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
  const SymbolAxes symbol_axes(analysis.inference());
  std::vector<Finding> findings;
  for (const auto& rule : rules) {
    const size_t before = findings.size();
    rule->Check(analysis, findings);
    for (size_t i = before; i < findings.size(); ++i) {
      ApplySeverityPolicy(findings[i]);
      NoteSpecializedReadings(analysis.specialized(), findings[i]);
      symbol_axes.Name(findings[i]);
    }
    const absl::Span<const Finding> added(findings.data() + before, findings.size() - before);
    if (auto st = CheckLevels(*rule, added); !st.ok()) return st;
  }
  // Every rule's errors are tried against their repair together (lint/repair_check.h): the
  // policy maps what that finds as it maps every rule's evidence.
  CheckRepairs(analysis, findings);
  // Runs recorded in the model settle severities the same way wherever the file is linted.
  ApplyRunRecords(ReadRunRecords(analysis.model()), findings);
  std::stable_sort(findings.begin(), findings.end(), [](const Finding& a, const Finding& b) {
    return std::tie(a.node.graph, a.node.index, a.rule) <
           std::tie(b.node.graph, b.node.index, b.rule);
  });
  inspect(analysis);
  return findings;
}

std::string_view Version() { return SHAPELINT_VERSION; }

}  // namespace shapelint::lint
