// SL003 declared-shape-mismatch: a graph output or value_info declares a shape that the graph
// does not compute — a dynamic dim computed as a constant, a constant computed from a symbol,
// or two different constants. Only dims that promise something are compared: numbers and
// expressions over input symbols, not names an exporter invented ("unk__3").
//
// Takes what no rule claimed: a declared shape contradicted where no rule that runs recognised
// the op where the size entered. Which side is baked decides the evidence (docs/severity.md):
//  - value_info is the writing tool's inference (onnxslim, ORT's symbolic shape inference, the
//    exporter's own), a hint: a contradiction with it alone is a warning, and a note where the
//    annotation is false at the export size itself;
//  - a graph output is the interface: false at the export size, the declaration is wrong (a
//    warning); a number declared where the graph computes the dim from the inputs, the
//    declaration is what was baked (a warning); otherwise the graph is (an error).
#include <algorithm>
#include <map>
#include <set>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "lint/requirements.h"
#include "lint/rule.h"

namespace shapelint::lint {
namespace {

class DeclaredShapeMismatch : public Rule {
 public:
  using Rule::Rule;

  void Check(const Analysis& analysis, std::vector<Finding>& out) const override {
    // A tool that writes one wrong expression writes it on every value of that shape (a
    // post-processor's value_info on each layer): one finding each, the rest in its notes.
    std::map<std::string, size_t> first_of;
    std::set<std::string> seen;
    std::map<std::pair<std::string, int64_t>, bool> fails_at;  // the graph, by symbol and size
    for (const Cause& cause : analysis.causes()) {
      // A claimed cause is reported by the rule that claimed it.
      if (cause.owner != nullptr) continue;
      for (const Pin* pin : cause.pins) {
        const infer::Requirement& r = *pin->requirement;
        if (r.kind != infer::RequirementKind::kDeclaredShape) continue;
        const std::string key =
            absl::StrCat(r.interface, " ", r.rhs.ToString(), " vs ", r.lhs.ToString());
        // The same declared dim can be a pin of several causes: reported once.
        if (!seen.insert(absl::StrCat(r.interface, " ", r.value, " ", r.axis)).second) continue;
        if (auto it = first_of.find(key); it != first_of.end() && !r.interface) {
          out[it->second].notes.push_back(
              {absl::StrCat("value_info '", r.value, "' axis ", r.axis, " declares the same"),
               std::nullopt});
          continue;
        }
        first_of.emplace(key, out.size());
        out.push_back(Report(analysis, cause, *pin, fails_at));
      }
    }
  }

 private:
  Finding Report(const Analysis& analysis, const Cause& cause, const Pin& pin,
                 std::map<std::pair<std::string, int64_t>, bool>& fails_at) const {
    const infer::Requirement& r = *pin.requirement;
    const bool false_at_export = pin.always_false || analysis.FalseAtExport(r);
    std::string message =
        absl::StrCat(r.what, ", but the graph computes ", r.lhs.ToString(kMaxExprText),
                     pin.always_false ? " at every size"
                                      : absl::StrCat(" (equal only where ", EqualityText(r), ")"));
    Finding f = FindingFor(analysis, cause, r.node, "");
    if (!r.interface) {
      // The graph's witness leaves the hints out; where this one holds is the hinted witness's.
      f.witness = analysis.HintWitnessFor(cause.symbols);
      f.counterexample = analysis.HintCounterexampleFor(cause.symbols);
    }
    // The export size is a size where the graph runs: a declaration that holds only where a
    // node fails is false wherever the model works, without being told the export size.
    const bool only_where_broken =
        !false_at_export && HoldsOnlyWhereGraphFails(analysis, r, fails_at);
    if (false_at_export && !pin.always_false) {
      absl::StrAppend(&message, ", which is false at the export size");
    } else if (only_where_broken) {
      absl::StrAppend(&message, ", which holds only at sizes where the graph itself fails");
    }
    f.message = std::move(message);
    f.evidence = EvidenceOf(analysis, r, false_at_export || only_where_broken);
    if (f.evidence != Evidence::kContradiction) SayWhatHolds(analysis, false_at_export, f);
    f.attribute =
        absl::StrCat(r.interface ? "output '" : "value_info '", r.value, "' axis ", r.axis);
    if (!r.interface) {
      // A hint claims no break: a witness of the whole graph that no sizes satisfy, or a
      // counterexample where some other node fails, would speak of something else.
      if (f.witness && absl::StartsWith(f.witness->summary, "no sizes")) f.witness.reset();
      if (f.counterexample && f.counterexample->node_fails) f.counterexample.reset();
      // ONNX Runtime may still act on it: its memory planner reuses buffers by declared shapes
      // (shrouded/tiled_inference_range_index_add.dynamo fails in a Slice so at W = 11).
      f.notes.push_back(
          {absl::StrCat("value_info is the inference of the tool that wrote it", WriterOf(analysis),
                        ", not the model's interface; ONNX Runtime may still plan its buffers by "
                        "it, and a run where the value differs can then fail (\"Shape mismatch "
                        "attempting to re-use buffer\") though every node computes it"),
           std::nullopt});
      f.fix =
          "drop or recompute the intermediate value_info (onnx.shape_inference), or find "
          "the op that fixed this dim and make it follow the input";
    } else if (f.evidence == Evidence::kBakedDeclaration) {
      f.fix =
          "declare the output dim dynamic (dynamic_axes / dynamic_shapes), as the graph "
          "computes it from the inputs";
    } else {
      f.fix =
          "correct the declaration (dynamic_axes / dynamic_shapes names), or find the op that "
          "fixed this dim and make it follow the input";
    }
    if (f.counterexample && !f.counterexample->node_fails)
      ShowThisDeclaration(r, *f.counterexample);
    return f;
  }

  // Where the graph runs, the counterexample's failure is the first declaration false there,
  // which may be another one (a second declaration of a duplicated output name, another
  // output): the finding shows its own.
  static void ShowThisDeclaration(const infer::Requirement& r, Counterexample& c) {
    sym::Binding at;
    for (const auto& [s, v] : c.binding) at.Set(s, v);
    const std::optional<int64_t> lhs = r.lhs.Evaluate(at), rhs = r.rhs.Evaluate(at);
    if (!lhs || !rhs || *lhs == *rhs) return;
    c.failure = DescribeFailure(r, *lhs, *rhs);
  }

  // True when a node of the graph fails at every size where the declaration holds: its one
  // symbol moves over 1..kLargest with the others at the witness, and the declaration holds at a
  // few of those sizes, at each of which the graph itself fails. `fails` caches whether the
  // graph fails, by symbol and size, for the findings of one model.
  static bool HoldsOnlyWhereGraphFails(const Analysis& analysis, const infer::Requirement& r,
                                       std::map<std::pair<std::string, int64_t>, bool>& fails) {
    constexpr int64_t kLargest = 512;
    constexpr int kMaxSizesHeld = 16;  // more, and it is no slip of one tool's arithmetic
    const std::vector<std::string> symbols = SymbolsOf(r);
    if (symbols.size() != 1) return false;
    sym::Binding at = analysis.witness();
    int held = 0;
    for (int64_t size = 1; size <= kLargest; ++size) {
      at.Set(symbols[0], size);
      const std::optional<bool> holds = HoldsUnder(r, at);
      if (!holds || !*holds) continue;
      if (++held > kMaxSizesHeld) return false;
      auto [it, fresh] = fails.try_emplace({symbols[0], size}, false);
      if (fresh) it->second = analysis.Evaluate(at).node_fails;
      if (!it->second) return false;
    }
    return held > 0;
  }

  static Evidence EvidenceOf(const Analysis& analysis, const infer::Requirement& r,
                             bool false_at_export) {
    if (!r.interface) {
      if (false_at_export) return Evidence::kWrongAnnotation;
      return analysis.has_example() ? Evidence::kHint : Evidence::kUnverifiedHint;
    }
    if (false_at_export) return Evidence::kWrongDeclaration;
    // A number declared where the graph follows the inputs with no literal on the way.
    if (IsBakedDeclaration(r)) return Evidence::kBakedDeclaration;
    return Evidence::kContradiction;
  }

  // Where the declaration, not the graph, is at fault, the model runs at every size: the
  // witness says where the declaration holds, and a declaration false at the export size is
  // shown there.
  static void SayWhatHolds(const Analysis& analysis, bool false_at_export, Finding& f) {
    if (f.witness) SayWitnessOf("the declaration holds", *f.witness);
    if (!false_at_export || !analysis.has_example()) return;
    f.witness.reset();
    if (auto c = analysis.CounterexampleAt(analysis.ExampleOverWitness())) f.counterexample = *c;
  }

  // Who wrote the file, as far as it says: onnx-simplifier leaves its options in the model's
  // metadata; onnxslim and ONNX Runtime's symbolic shape inference keep the exporter's producer
  // field, which then names the exporter.
  static std::string WriterOf(const Analysis& analysis) {
    const auto& proto = analysis.model().proto();
    for (const auto& entry : proto.metadata_props()) {
      if (absl::StartsWith(entry.key(), "onnxsim.")) return " (onnx-simplifier, by its metadata)";
    }
    if (proto.producer_name().empty()) return "";
    return absl::StrCat(" (the file's producer field: ", proto.producer_name(),
                        proto.producer_version().empty() ? "" : " ", proto.producer_version(),
                        ", which post-processors such as onnxslim keep)");
  }
};

}  // namespace

std::unique_ptr<Rule> MakeDeclaredShapeMismatch(const RuleInfo& info) {
  return std::make_unique<DeclaredShapeMismatch>(info);
}

}  // namespace shapelint::lint
