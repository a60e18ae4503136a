// SL016 fails-everywhere: a node of the graph fails at every size, the export size included.
//
// Not a bake: a bake holds at the export size (docs/severity.md), and this holds nowhere. The
// graph's operands can never agree (a literal of 2 added to a static axis of 3), or an operand
// has a rank the op does not take (Expand's shape of rank 4, which onnxslim wrote into a branch
// of optimum's merged decoders). ONNX Runtime fails on the first run, or refuses to load the
// file: a rank is checked when it loads, in every branch of an If whichever runs. Lint would
// otherwise pass such a model with no finding while `probe` shows it failing at any size.
//
// The requirement reads no input size: its two sides are numbers that differ. A declared output
// false at every size is a wrong declaration (SL003); this rule takes the nodes' own
// requirements. Claims: nothing; it reads the causes blame left without a culprit.
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "lint/rule.h"

namespace shapelint::lint {
namespace {

bool NodeRequirementFalseEverywhere(const Pin& pin) {
  const infer::Requirement& r = *pin.requirement;
  // No symbol on either side: two numbers that differ.
  return pin.always_false && r.node >= 0 && r.graph != nullptr && r.lhs.AsConstant() &&
         r.rhs.AsConstant() && r.kind != infer::RequirementKind::kDeclaredShape &&
         r.kind != infer::RequirementKind::kExportRange;
}

class FailsEverywhere : public Rule {
 public:
  using Rule::Rule;

  void Check(const Analysis& analysis, std::vector<Finding>& out) const override {
    // One finding per node: a node's requirements false at every size are one defect.
    absl::flat_hash_set<std::pair<const ir::Graph*, int>> reported;
    for (const Cause& cause : analysis.causes()) {
      for (const Pin* pin : cause.pins) {
        if (!NodeRequirementFalseEverywhere(*pin)) continue;
        const infer::Requirement& r = *pin->requirement;
        if (!reported.insert({r.graph, r.node}).second) continue;
        const ir::Node node = r.graph->node(r.node);
        // Both sides are numbers: the failure reads as the evaluator states it at any size.
        const std::string failure = DescribeFailure(r, *r.lhs.AsConstant(), *r.rhs.AsConstant());
        Finding f = FindingAt(
            analysis, *r.graph, r.node, Evidence::kBroken,
            absl::StrCat(node.op_type(), " '", r.graph->NodeLabel(r.node),
                         "' fails at every size (", failure,
                         ", whatever the inputs): ONNX Runtime cannot run the model, or refuses "
                         "to load it, at the export size as at any other"));
        f.symbols = {};
        // At the witness (where every other requirement holds) the node fails: the model's
        // first run, or its load where the node is in a branch.
        Counterexample c = analysis.Evaluate(analysis.witness());
        const NodeRef at = analysis.Ref(*r.graph, r.node);
        if (!c.node_fails || c.failing_node.index != at.index || c.failing_node.graph != at.graph) {
          c.failing_node = at;
          c.node_fails = true;
          c.failure = failure;
        }
        f.counterexample = std::move(c);
        if (r.graph != &analysis.model().graph() &&
            r.kind == infer::RequirementKind::kOperandRank) {
          f.notes.push_back(
              {"in a branch: ONNX Runtime checks an operand's rank when it loads the model, "
               "whichever branch runs, and refuses the file",
               std::nullopt});
        }
        // Assigned, not braced into a Note: GCC 12 warns of bogus bounds moving a long literal.
        f.notes.emplace_back().message = absl::StrCat(
            "not a size baked into the graph: nothing holds at the export size either. A "
            "post-processor that rewrote the graph (onnxslim, onnx-simplifier) or a hand edit "
            "is the usual source; export again, or run the model before the post-processor");
        f.fix =
            "re-export the model, or compare with the file before the post-processor ran and "
            "drop the pass that produced this node";
        out.push_back(std::move(f));
      }
    }
  }
};

}  // namespace

std::unique_ptr<Rule> MakeFailsEverywhere(const RuleInfo& info) {
  return std::make_unique<FailsEverywhere>(info);
}

}  // namespace shapelint::lint
