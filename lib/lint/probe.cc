#include "shapelint/lint/probe.h"

#include <algorithm>
#include <set>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "lint/analysis.h"
#include "shapelint/infer/engine.h"
#include "shapelint/sym/expr.h"

namespace shapelint::lint {
namespace {

// True when the model breaks at `c`: a node fails, or an output differs from its declaration.
// An intermediate value_info that disagrees is the writing tool's inference (a hint), not a
// break: ONNX Runtime runs there.
bool Breaks(const Counterexample& c) {
  if (c.node_fails) return true;
  for (const ShapeAt& o : c.outputs) {
    if (o.expected && o.actual != *o.expected) return true;
  }
  return !c.failure.empty() && !c.hint_only;
}

// True when `name` is a graph input of rank 1.
bool IsOneDimensionalInput(const infer::Inference& inference, std::string_view name) {
  int rank = 0;
  for (const infer::InputDim& d : inference.input_dims) rank += d.input == name;
  return rank == 1;
}

}  // namespace

absl::StatusOr<sym::Binding> BindSizes(const Analysis& analysis, const ProbeSpec& spec) {
  return BindSizes(analysis.model(), analysis.inference(), spec);
}

absl::StatusOr<sym::Binding> BindSizes(const ir::Model& model, const infer::Inference& inference,
                                       const ProbeSpec& spec) {
  const std::vector<std::string> symbols = inference.InputSymbols();
  const std::set<std::string> known(symbols.begin(), symbols.end());
  sym::Binding binding;
  if (!spec.shapes.empty()) {
    std::string why;
    auto bound = BindInputShapes(model, inference, spec.shapes, &why);
    if (!bound) {
      return absl::InvalidArgumentError(
          absl::StrCat("an input shape does not fit the model: ", why));
    }
    binding = *bound;
  }
  auto check = [&](const std::string& s) -> absl::Status {
    if (known.contains(s)) return absl::OkStatus();
    std::string names;
    for (const auto& k : symbols) absl::StrAppend(&names, names.empty() ? "" : ", ", k);
    return absl::InvalidArgumentError(
        absl::StrCat("the model has no input dim named '", s, "' (its input dims: ", names, ")"));
  };
  for (const auto& [s, v] : spec.sizes) {
    // A dim name first; else the name of a 1-D input (lengths=2 for lengths: [batch]).
    if (!known.contains(s) && IsOneDimensionalInput(inference, s)) {
      auto bound = BindInputShapes(model, inference, {{s, {v}}});
      if (!bound) {
        return absl::InvalidArgumentError(absl::StrCat("the 1-D input '", s,
                                                       "' cannot have the size ", v,
                                                       " (its dim is static with another size)"));
      }
      for (const auto& [name, value] : bound->values()) {
        if (binding.Get(name) && *binding.Get(name) != value) {
          return absl::InvalidArgumentError(absl::StrCat(
              "'", s, "=", v, "' gives ", name, " the size ", value, ", another size than before"));
        }
        binding.Set(name, value);
      }
      continue;
    }
    if (auto st = check(s); !st.ok()) return st;
    binding.Set(s, v);
  }
  if (spec.range_symbol) {
    if (auto st = check(*spec.range_symbol); !st.ok()) return st;
  }
  return binding;
}

namespace {

absl::StatusOr<ProbeResult> ProbeOne(const Analysis& analysis, const ProbeSpec& spec,
                                     std::string spec_text) {
  const std::vector<std::string> symbols = analysis.inference().InputSymbols();
  auto bound = BindSizes(analysis, spec);
  if (!bound.ok()) return bound.status();
  sym::Binding binding = *std::move(bound);
  std::set<std::string> given;
  for (const auto& [s, v] : binding.values()) given.insert(s);
  if (spec.range_symbol) given.insert(*spec.range_symbol);
  ProbeResult result;
  result.spec = std::move(spec_text);
  for (const auto& s : symbols) {
    if (given.contains(s)) continue;
    int64_t v = analysis.witness().Get(s).value_or(1);
    binding.Set(s, v);
    result.defaulted.emplace_back(s, v);
  }
  if (!spec.range_symbol) {
    result.at = analysis.Evaluate(binding);
    result.breaks = Breaks(result.at);
    return result;
  }
  result.range_symbol = *spec.range_symbol;
  std::optional<Counterexample> first_break;
  // Counted from the low end: `v <= range_hi; ++v` never ends where range_hi is INT64_MAX
  // (the increment past it overflows). The parser bounds the count (kMaxProbeRange).
  for (int64_t k = 0; k <= spec.range_hi - spec.range_lo; ++k) {
    const int64_t v = spec.range_lo + k;
    binding.Set(*spec.range_symbol, v);
    Counterexample c = analysis.Evaluate(binding);
    if (!Breaks(c)) continue;
    if (!result.failing.empty() && result.failing.back().second == v - 1) {
      result.failing.back().second = v;
    } else {
      result.failing.emplace_back(v, v);
    }
    if (!first_break) first_break = std::move(c);
  }
  result.breaks = first_break.has_value();
  if (first_break) {
    result.at = std::move(*first_break);
  } else {
    binding.Set(*spec.range_symbol, spec.range_lo);
    result.at = analysis.Evaluate(binding);
  }
  return result;
}

}  // namespace

absl::StatusOr<std::vector<ProbeResult>> Probe(
    const ir::Model& model, const std::vector<std::pair<std::string, ProbeSpec>>& probes) {
  // Every expression of this run is freed at its end: the results hold only plain data.
  sym::InternScope scope;
  const Analysis analysis(model);
  std::vector<ProbeResult> results;
  for (const auto& [text, spec] : probes) {
    auto result = ProbeOne(analysis, spec, text);
    if (!result.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("probe '", text, "': ", result.status().message()));
    }
    results.push_back(*std::move(result));
  }
  return results;
}

namespace {

// For each input symbol, the distinct expressions of the main graph's dims and small integer
// values that could keep their value while it moves: those that mention it and hold a floor,
// ceil, mod, min or max. A polynomial in the symbol changes with it at once. One scan of the
// facts serves every symbol (a decoder with a cache per layer has hundreds).
absl::flat_hash_map<std::string, std::vector<sym::Expr>> StepSensitive(
    const infer::Inference& inference) {
  absl::flat_hash_set<sym::Expr> seen;
  absl::flat_hash_map<std::string, std::vector<sym::Expr>> out;
  auto consider = [&](const sym::MaybeExpr& e) {
    if (!e || e->IsConstant() || !seen.insert(*e).second || e->IsPolynomial()) return;
    for (const std::string& s : e->Symbols()) out[s].push_back(*e);
  };
  for (const infer::TensorFact& fact : inference.facts) {
    if (fact.shape) {
      for (const sym::MaybeExpr& d : *fact.shape) consider(d);
    }
    if (fact.values) {
      for (const infer::Element& v : *fact.values) consider(v.value);
    }
  }
  return out;
}

// The steps in one direction (`sign` +1 or -1) from binding[symbol] at which an expression of
// `exprs` changes that every smaller step left at its value.
std::vector<int64_t> StepsOneWay(const std::vector<sym::Expr>& exprs, sym::Binding binding,
                                 const std::string& symbol, int sign, int64_t max_step,
                                 int max_count) {
  const int64_t at = *binding.Get(symbol);
  std::vector<std::optional<int64_t>> base;
  {
    sym::Evaluator eval(binding);
    for (const sym::Expr& e : exprs) base.push_back(eval(e));
  }
  // Indices of the expressions not yet changed, known at the binding.
  std::vector<size_t> still;
  for (size_t i = 0; i < exprs.size(); ++i) {
    if (base[i]) still.push_back(i);
  }
  std::vector<int64_t> steps;
  for (int64_t k = 1; k <= max_step && !still.empty(); ++k) {
    int64_t size = 0;
    // A size past int64 (a hostile binding) has no step to take.
    if (__builtin_add_overflow(at, sign * k, &size) || size < 1) break;
    binding.Set(symbol, size);
    sym::Evaluator eval(binding);
    std::vector<size_t> kept;
    bool changed = false;
    for (size_t i : still) {
      const std::optional<int64_t> v = eval(exprs[i]);
      if (v == base[i]) {
        kept.push_back(i);
      } else {
        changed = true;  // changed, or unknown there: either way no longer left alone
      }
    }
    still = std::move(kept);
    // A change at the first step is the step every probe makes anyway.
    if (changed && k > 1) {
      steps.push_back(k);
      if (static_cast<int>(steps.size()) >= max_count) break;
    }
  }
  return steps;
}

}  // namespace

absl::StatusOr<std::vector<SizeSteps>> SizeStepsAt(const ir::Model& model, const ProbeSpec& at,
                                                   int64_t max_step, int max_count) {
  // The engine's facts are all this needs: no witness, no requirement solved (an Analysis
  // would also solve the graph's requirements, which the steps never read).
  sym::InternScope scope;
  const infer::Inference inference = infer::Infer(model);
  const std::vector<std::string> symbols = inference.InputSymbols();
  absl::StatusOr<sym::Binding> bound = BindSizes(model, inference, at);
  if (!bound.ok()) return bound.status();
  const sym::Binding binding = *std::move(bound);
  const absl::flat_hash_map<std::string, std::vector<sym::Expr>> sensitive =
      StepSensitive(inference);
  std::vector<SizeSteps> out;
  for (const std::string& s : symbols) {
    SizeSteps steps;
    steps.symbol = s;
    // A size the binding leaves out has none to step from.
    const std::optional<int64_t> size = binding.Get(s);
    if (!size) continue;
    steps.at = *size;
    if (auto it = sensitive.find(s); it != sensitive.end()) {
      steps.up = StepsOneWay(it->second, binding, s, 1, max_step, max_count);
      steps.down = StepsOneWay(it->second, binding, s, -1, max_step, max_count);
    }
    out.push_back(std::move(steps));
  }
  return out;
}

}  // namespace shapelint::lint
