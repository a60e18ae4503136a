// SL009 squeeze-dynamic-axis: Squeeze removes an axis the inputs declare dynamic.
//
// torch.onnx below opset 11 exports x.squeeze(dim) traced at a size of 1 as a plain Squeeze of
// that axis, whatever dynamic_axes says (from opset 11 it writes an If that squeezes only a dim
// of size 1). ONNX's Squeeze requires the axis to be 1, while eager PyTorch's squeeze(dim) leaves
// a larger dim as it is: at any other size ONNX Runtime fails where PyTorch runs.
//
// Claims: a failure whose failing node is a Squeeze, failing because the axis it removes is not
// 1, where that axis is one of the input dims itself (passed through unchanged). An axis
// computed from the inputs (a pooled map, a count) was fixed upstream: the walk goes on to find
// where.
#include "absl/strings/str_cat.h"
#include "lint/fix_builder.h"
#include "lint/rule.h"

namespace shapelint::lint {
namespace {

class SqueezeDynamicAxis : public Rule {
 public:
  using Rule::Rule;

  bool ClaimsNode(const BlameSite& site, int node) const override {
    const infer::Requirement& failing = site.failing();
    return node == site.start() && failing.kind == infer::RequirementKind::kSqueezeOne &&
           failing.lhs.AsSymbol().has_value();
  }

  void Check(const Analysis& analysis, std::vector<Finding>& out) const override {
    for (const Cause& cause : analysis.causes()) {
      if (!Owns(cause)) continue;
      const ir::Node node = cause.graph->node(cause.node);
      const infer::Requirement* squeeze = SqueezeRequirement(cause);
      if (squeeze == nullptr || node.input_size() == 0) continue;
      const std::string symbol(*squeeze->lhs.AsSymbol());
      Finding f = FindingFor(
          analysis, cause, cause.node,
          absl::StrCat("Squeeze removes axis ", squeeze->axis, " of '", std::string(node.input(0)),
                       "', which is the dynamic ", symbol, ": the model runs only where ", symbol,
                       " is 1 (eager PyTorch's squeeze leaves a larger dim as it is)"));
      f.attribute = node.input_size() > 1 ? "input 1 (axes)" : "axes";
      f.fix =
          "export with opset 11 or later (torch then squeezes only a dim of size 1), or declare "
          "the axis static if it is always 1";
      // Unsafe: declaring the axis 1 is what the graph runs at, but eager PyTorch runs at other
      // sizes too (its squeeze keeps a larger dim), which the model then refuses.
      if (analysis.fixes_wanted()) {
        f.fix_it = DeclarationFix(
            analysis, Applicability::kUnsafe, {{symbol, 1}},
            absl::StrCat("declare ", symbol, " = 1, the only size the Squeeze takes"));
      }
      out.push_back(std::move(f));
    }
  }

 private:
  // The requirement of the Squeeze the cause was claimed at: its axis is the dynamic dim.
  static const infer::Requirement* SqueezeRequirement(const Cause& cause) {
    for (const Pin* pin : cause.pins) {
      const infer::Requirement& r = *pin->requirement;
      if (r.kind == infer::RequirementKind::kSqueezeOne && r.node == cause.node &&
          r.lhs.AsSymbol()) {
        return &r;
      }
    }
    return nullptr;
  }
};

}  // namespace

std::unique_ptr<Rule> MakeSqueezeDynamicAxis(const RuleInfo& info) {
  return std::make_unique<SqueezeDynamicAxis>(info);
}

}  // namespace shapelint::lint
