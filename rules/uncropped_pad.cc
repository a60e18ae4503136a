// SL013 uncropped-pad: a Reshape views a tensor the graph padded to a multiple as the size it
// had before padding.
//
// Window attention pads its feature map up to a multiple of the window, partitions it, and
// after attention merges the windows and crops the padding back off before it views the map
// as a sequence again. Hugging Face's Swin crops only `if was_padded:`, a Python bool on the
// size: traced at a multiple, the crop is not in the graph, while the pad (its amounts
// computed from the size) is. The graph then pads where the size is no multiple and views the
// padded map with the size from before padding: ONNX Runtime fails exactly where the padding
// was meant to let the model run, and eager PyTorch, which crops, runs there.
//
// The evidence is the graph's own: a Pad on the way to the view that grows an axis where the
// view fails and leaves it alone at the witness. The crop eager applies is inferred, not seen,
// so this is a hypothesis (a warning by the severity policy). SL010 leaves these relations to
// this rule (lint/padding.h).
//
// Claims: nothing; it reads the requirements no rule reports through a cause, as SL010 does
// (Analysis::ReportedThroughCauses).
#include <set>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "lint/padding.h"
#include "lint/requirements.h"
#include "lint/rule.h"

namespace shapelint::lint {
namespace {

// How far from the witness a size is looked for at which the view fails (lint/requirements.h).
constexpr int64_t kNearby = 4;

class UncroppedPadRule : public Rule {
 public:
  using Rule::Rule;

  void Check(const Analysis& analysis, std::vector<Finding>& out) const override {
    const absl::flat_hash_set<const infer::Requirement*> claimed = Claimed(analysis);
    std::set<std::pair<const ir::Graph*, int>> reported;
    sym::Binding moved = analysis.witness();  // each try sets one symbol and puts it back
    for (const infer::Requirement& r : analysis.inference().requirements) {
      if (r.kind != infer::RequirementKind::kReshapeCount || r.graph == nullptr || r.node < 0 ||
          claimed.contains(&r) || reported.contains({r.graph, r.node})) {
        continue;
      }
      const std::vector<std::string> symbols = SymbolsOf(r);
      if (symbols.empty()) continue;
      std::optional<UncroppedPad> pad;
      std::optional<Counterexample> failure;
      FailingNear(r, symbols, analysis.witness(), moved, kNearby, [&](const sym::Binding& failing) {
        std::optional<UncroppedPad> p = PadNotCroppedBefore(analysis, r, failing);
        if (!p) return false;
        Counterexample c = analysis.Evaluate(failing);
        if (!c.node_fails || c.failing_node.index != r.node) return false;
        pad = p;
        failure = std::move(c);
        return true;
      });
      if (!pad) continue;
      reported.insert({r.graph, r.node});
      out.push_back(Report(analysis, r, symbols, *pad, std::move(*failure)));
    }
  }

 private:
  // The requirements other findings own: those reported through causes, and the bounds and
  // restrictions SL010 states.
  static absl::flat_hash_set<const infer::Requirement*> Claimed(const Analysis& analysis) {
    absl::flat_hash_set<const infer::Requirement*> claimed = analysis.ReportedThroughCauses();
    for (const Bound& b : analysis.bounds()) claimed.insert(b.requirement);
    for (const Pin& p : analysis.design_pins()) claimed.insert(p.requirement);
    return claimed;
  }

  Finding Report(const Analysis& analysis, const infer::Requirement& r,
                 const std::vector<std::string>& symbols, const UncroppedPad& pad,
                 Counterexample failure) const {
    const ir::Graph& graph = *r.graph;
    const ir::Node reshape = graph.node(r.node);
    const ir::Node padding = graph.node(pad.pad_node);
    const infer::TensorFact* input = analysis.inference().FindIn(graph, reshape.input(0));
    const infer::TensorFact* output =
        reshape.output_size() > 0 ? analysis.inference().FindIn(graph, reshape.output(0)) : nullptr;
    const std::string padded =
        padding.output_size() > 0 ? std::string(padding.output(0)) : std::string();
    const std::string growth = pad.growth ? pad.growth->ToString(kMaxExprText) : "?";
    std::string viewed = absl::StrCat("'", std::string(reshape.input(0)), "'");
    if (input != nullptr && input->shape) absl::StrAppend(&viewed, " ", FormatDims(*input->shape));
    if (output != nullptr && output->shape) {
      absl::StrAppend(&viewed, " as ", FormatDims(*output->shape));
    }
    Finding f = FindingAt(
        analysis, graph, r.node, Evidence::kHypothesis,
        absl::StrCat("Reshape views ", viewed, ", a tensor padded on axis ", pad.axis, " by ",
                     growth, " (the Pad making '", padded,
                     "'), with the size from before "
                     "padding: the element counts agree only where nothing is padded, and "
                     "nothing in the graph crops the padding back"));
    f.symbols = symbols;
    f.witness = analysis.RepeatingWitnessFor(symbols);
    f.counterexample = std::move(failure);
    f.notes.push_back(
        {absl::StrCat("the Pad making '", padded, "' pads by ", pad.grown_by,
                      " at the counterexample and by 0 at the witness: the graph pads so that "
                      "the view can run at sizes that are no multiple, and eager PyTorch crops "
                      "the padding off before the view, in a branch on a size (`if "
                      "was_padded:`) that the trace, at a multiple, did not take"),
         analysis.Ref(graph, pad.pad_node)});
    f.fix = absl::StrCat(
        "crop the padding back unconditionally before the view (x[:, :height, :width] also when "
        "nothing was padded: the trace then records it), or serve and profile ",
        absl::StrJoin(symbols, ", "), " at the sizes the witness gives");
    f.unfixable =
        "the crop eager PyTorch applies is not in the graph, and where it cuts (which rows and "
        "columns the padding added) is not recorded";
    return f;
  }
};

}  // namespace

std::unique_ptr<Rule> MakeUncroppedPad(const RuleInfo& info) {
  return std::make_unique<UncroppedPadRule>(info);
}

}  // namespace shapelint::lint
