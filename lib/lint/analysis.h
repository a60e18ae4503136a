// What rules query: inference results, pins, the witness, counterexamples and causes.
//
// A requirement that holds for some sizes and not others is a pin: the graph quietly restricts
// a dim its inputs declare free (lint/pins.h). The analysis solves all pins together for a
// witness, sizes at which the model works (lint/witness.h), moves the pinned symbols just
// outside the range where the model works to get a counterexample, evaluates the graph there to
// find where it breaks (lint/evaluator.h), and walks back from that node to the op where the
// example size entered, which the rules claim (lint/blame.h). This class holds those parts
// together for one model.
#ifndef SHAPELINT_LIB_LINT_ANALYSIS_H_
#define SHAPELINT_LIB_LINT_ANALYSIS_H_

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "lint/blame.h"
#include "lint/evaluator.h"
#include "lint/export_ranges.h"
#include "lint/literals.h"
#include "lint/pins.h"
#include "lint/requirements.h"
#include "lint/witness.h"
#include "shapelint/infer/engine.h"
#include "shapelint/ir/model.h"
#include "shapelint/lint/finding.h"
#include "shapelint/lint/lint.h"
#include "shapelint/lint/probe.h"
#include "shapelint/sym/expr.h"

namespace shapelint::lint {

class Analysis {
 public:
  explicit Analysis(const ir::Model& model);
  Analysis(const Analysis&) = delete;
  Analysis& operator=(const Analysis&) = delete;

  const ir::Model& model() const { return model_; }
  const infer::Inference& inference() const { return inference_; }

  // Blames every pin, offering each failure to `matchers` in their order (lint/blame.h).
  void AssignCauses(absl::Span<const Matcher* const> matchers);
  // The causes AssignCauses found, claimed or not.
  const std::vector<Cause>& causes() const { return causes_; }
  // True when a rule claimed a cause whose culprit is `node` of `graph`.
  bool Claimed(const ir::Graph& graph, int node) const;
  // The requirements of pins that a rule reports through a cause: every pin of a cause a rule
  // claimed, and every pin of a cause no rule claimed whose symbols another rule reports
  // already (SL003 those of a contradicted declaration, SL006 those of an input contract, SL011
  // those torch.export specialized). The rest, failures blame found no culprit for, are the
  // rules' that read requirements directly (SL010, SL013) to state: lint is never silent where
  // the graph fails near the witness. Set with the causes (AssignCauses).
  const absl::flat_hash_set<const infer::Requirement*>& ReportedThroughCauses() const {
    return reported_through_causes_;
  }

  // Input symbols declared dynamic that torch.export recorded specialized to one size, with
  // that size (lint/export_ranges.h); empty for models without its record.
  const std::map<std::string, int64_t>& specialized() const { return specialized_; }
  // True when torch.export specialized every one of `symbols` (at least one) to its export
  // size: the exporter's own record that the trace computed with that size as a Python number.
  bool AllSpecialized(const std::vector<std::string>& symbols) const;
  // True when the export sizes are known and `requirement` is false there: at the sizes where
  // the graph was traced and runs, so not a bake (a wrong annotation or declaration).
  bool FalseAtExport(const infer::Requirement& requirement) const;
  // Ranges torch.export recorded narrower than every size yet holding more than one, by input
  // symbol (lint/export_ranges.h InputSymbolRanges::bounds).
  const std::map<std::string, ExportRange>& recorded_bounds() const { return recorded_.bounds; }
  // The parameters torch.export's graph signature lists (lint/literals.h).
  const ParameterSignature& signature() const { return signature_; }

  // Requirements that hold exactly up to a size: bounds of the model's design (lint/pins.h).
  const std::vector<Bound>& bounds() const { return pins_.bounds; }
  // Every pin: what the witness's sizes satisfy, and its relations come from.
  const std::vector<Pin>& pins() const { return pins_.pins; }
  // Pins over input symbols only that torch.export recorded traced symbolically: no constant
  // holds their example size, so what restricts them is the module's own (a buffer, a
  // parameter, a size written in its code), which eager PyTorch shares. Blame skips them;
  // SL010 reports them. Empty for models without the exporter's record.
  const std::vector<Pin>& design_pins() const { return design_pins_; }

  // The sizes under which every pin holds (best effort), and every input symbol's value there.
  const sym::Binding& witness() const { return solution_.witness(); }
  // Where `symbols` may move while everything else stays at the witness.
  Witness WitnessFor(const std::vector<std::string>& symbols) const {
    return solution_.WitnessFor(symbols, pins_.pins);
  }
  // The same, each window searched for the sizes where it repeats (a multiple of a window).
  Witness RepeatingWitnessFor(const std::vector<std::string>& symbols) const {
    return solution_.WitnessFor(symbols, pins_.pins, /*repeats=*/true);
  }
  // A binding near the witness, moving `symbols`, at which the graph breaks; evaluated. With
  // `own`, one at which that requirement fails itself comes first (GraphEvaluator::MoveSymbols).
  std::optional<Counterexample> CounterexampleFor(const std::vector<std::string>& symbols,
                                                  const infer::Requirement* own = nullptr) const {
    return evaluator_.CounterexampleFor(symbols, own);
  }
  // The witness and the counterexample as they were with the intermediate value_info among the
  // constraints, which the witness above leaves out (a hint, not the graph): where a hint holds,
  // for SL003 to say of it. The same as WitnessFor and CounterexampleFor when no hint narrows
  // the sizes.
  Witness HintWitnessFor(const std::vector<std::string>& symbols) const {
    return hinted_ ? hinted_->solution.WitnessFor(symbols, pins_.pins) : WitnessFor(symbols);
  }
  std::optional<Counterexample> HintCounterexampleFor(
      const std::vector<std::string>& symbols) const {
    return hinted_ ? hinted_->evaluator.CounterexampleFor(symbols) : CounterexampleFor(symbols);
  }
  // The graph evaluated at `binding`, if some requirement fails there.
  std::optional<Counterexample> CounterexampleAt(const sym::Binding& binding) const {
    return evaluator_.CounterexampleAt(binding);
  }
  // The graph evaluated at `binding` (lint/evaluator.h).
  Counterexample Evaluate(const sym::Binding& binding) const {
    return evaluator_.Evaluate(binding);
  }
  std::optional<sym::Binding> BindInputs(
      const std::vector<std::pair<std::string, std::vector<int64_t>>>& shapes,
      std::string* why = nullptr) const {
    return evaluator_.BindInputs(shapes, why);
  }
  // Concrete dims of `value` under `binding`; nullopt if any dim is unknown there.
  std::optional<std::vector<int64_t>> DimsAt(std::string_view value,
                                             const sym::Binding& binding) const {
    return evaluator_.DimsAt(value, binding);
  }

  // The sizes the model was exported at, when the user gives them (only the symbols given).
  // Literals that equal a size derived from them are findings of their own (SL007, SL008).
  const sym::Binding& example() const { return example_; }
  bool has_example() const { return !example_.empty(); }
  // The example's sizes, and the witness's for every symbol the example does not give: where
  // the graph is evaluated "at the export size".
  sym::Binding ExampleOverWitness() const {
    sym::Binding at = example_;
    witness().ForEach([&](std::string_view s, int64_t v) {
      if (!at.Get(s)) at.Set(s, v);
    });
    return at;
  }
  // Sets the example, and moves the witness to it where the model works there.
  void SetExample(sym::Binding example) {
    example_ = std::move(example);
    solution_.Prefer(example_);
    evaluator_.SetExample(example_);
    if (hinted_) {
      hinted_->solution.Prefer(example_);
      hinted_->evaluator.SetExample(example_);
    }
  }
  // Whether the rules are to give their findings fix-its (LintOptions::fix_its).
  bool fixes_wanted() const { return fixes_wanted_; }
  void WantFixes() { fixes_wanted_ = true; }
  // Moves the witness to `sizes` where the model works there (LintOptions::witness_hint).
  void PreferWitness(const sym::Binding& sizes) {
    solution_.Prefer(sizes);
    if (hinted_) hinted_->solution.Prefer(sizes);
  }
  // A binding at the example sizes, moving one of `symbols`, at which the graph fails at `node`
  // of `graph` or downstream of it (GraphEvaluator::FailureNearExample).
  std::optional<Counterexample> FailureNearExample(const std::vector<std::string>& symbols,
                                                   const ir::Graph& graph, int node,
                                                   const std::vector<SizeProbe>& exact) const {
    return evaluator_.FailureNearExample(example_, symbols, graph, node, exact);
  }

  // True when graph output `value` declares a number on some axis where the graph computes the
  // dim from the inputs with no literal on the way (IsBakedDeclaration): the exporter wrote the
  // whole declaration at the example (TorchScript declares every output dynamic_axes does not
  // name so), and none of its numbers is evidence of a bake in the graph.
  bool DeclaredAtExample(const std::string& value) const {
    return declared_at_example_.contains(value);
  }

  // True when a trained weight's shape fixes `symbol` to one size: a literal derived from it
  // is then a property of the model, not of the example. Known after AssignCauses, whichever
  // rules run.
  bool FixedByWeight(const std::string& symbol) const;

  NodeRef Ref(const ir::Graph& graph, int node) const { return RefTo(graph, node); }

  // An evaluator of `other`, an inference of this model made otherwise (a counterfactual run of
  // the engine, lint/repair_check.h), that evaluates it as this analysis evaluates its own.
  // `other` must outlive it.
  GraphEvaluator EvaluatorOf(const infer::Inference& other) const {
    return GraphEvaluator(model_, other, symbols_, solution_, recorded_);
  }

 private:
  bool RunsOtherwise(const Pin& pin, std::map<std::vector<std::string>, bool>& by_symbols) const;
  absl::flat_hash_set<const infer::Requirement*> FindReportedThroughCauses() const;

  const ir::Model& model_;
  infer::Inference inference_;
  std::vector<std::string> symbols_;  // input symbols, sorted
  PinSet pins_;
  std::vector<Pin> blamed_pins_;  // the pins blame walks from: pins_.pins less design_pins_
  std::vector<Pin> design_pins_;
  InputSymbolRanges recorded_;  // what torch.export recorded of the input symbols
  std::vector<infer::Requirement> recorded_bounds_;  // its bounds, as requirements
  // What the witness must satisfy: the constraints among the pins, but intermediate
  // value_info, and the recorded bounds.
  std::vector<const infer::Requirement*> witness_constraints_;
  Solution solution_;
  GraphEvaluator evaluator_;
  // The witness with the value_info among its constraints too, where one of them narrows the
  // sizes (HintWitnessFor); null otherwise.
  struct Hinted {
    Hinted(const Analysis& a, std::vector<const infer::Requirement*> all)
        : constraints(std::move(all)),
          solution(a.inference_, a.symbols_, constraints),
          evaluator(a.model_, a.inference_, a.symbols_, solution, a.recorded_) {}
    std::vector<const infer::Requirement*> constraints;
    Solution solution;
    GraphEvaluator evaluator;
  };
  std::unique_ptr<Hinted> hinted_;
  std::map<std::string, int64_t> specialized_;
  ParameterSignature signature_;
  sym::Binding example_;
  std::vector<Cause> causes_;
  std::vector<std::string> weight_symbols_;  // sorted
  absl::flat_hash_set<const infer::Requirement*> reported_through_causes_;
  bool fixes_wanted_ = false;
  absl::flat_hash_set<std::string> declared_at_example_;  // graph outputs
};

// The sizes `spec` gives the model's input symbols (a range's symbol is left out), or an error
// naming a symbol or input the model does not have, or a shape that does not fit it. Needs only
// the engine's facts; the second form reads them from an Analysis.
absl::StatusOr<sym::Binding> BindSizes(const ir::Model& model, const infer::Inference& inference,
                                       const ProbeSpec& spec);
absl::StatusOr<sym::Binding> BindSizes(const Analysis& analysis, const ProbeSpec& spec);

// The analysis that lint::Lint runs its rules on: `given` with `options`' dynamic axes and
// static dims applied, the example sizes set (`options.export_dims`, and those torch.export
// recorded). Built in the caller's sym::InternScope. Fails when the options do not fit the
// model.
struct PreparedAnalysis {
  std::unique_ptr<ir::Model> adjusted;  // the model as the options declare it; null: `given`
  std::unique_ptr<Analysis> analysis;   // of *adjusted, else of `given`: declared after it
};
absl::StatusOr<PreparedAnalysis> PrepareAnalysis(const ir::Model& given,
                                                 const LintOptions& options);

}  // namespace shapelint::lint

#endif  // SHAPELINT_LIB_LINT_ANALYSIS_H_
