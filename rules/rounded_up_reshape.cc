// SL012 rounded-up-reshape: a Reshape whose target rounds a dynamic size up to a multiple of a
// patch or window, of a tensor the graph never grows to it.
//
// Code computes math.ceil(h / p) * p to pad or resize a feature map to a multiple of p before
// it cuts the map into patches, and often only when h is not one already (timm's MobileViT
// interpolates in such a branch). Traced at a multiple, the branch is left out, but the target
// still rounds up: the graph runs where h is a multiple, and elsewhere the Reshape fails where
// eager PyTorch resizes and runs. torch.export records no guard for it, as a congruence is no
// range. A view rounded down (c == 2 * floor(c / 2), a
// channel split) fails in eager PyTorch too and is not reported.
//
// Claims: the failing node of a pin that rounds up (Pin::rounds_up): a Reshape whose element
// count fails only where the target holds more elements than the input.
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "lint/rule.h"

namespace shapelint::lint {
namespace {

class RoundedUpReshape : public Rule {
 public:
  using Rule::Rule;

  bool ClaimsNode(const BlameSite& site, int node) const override {
    return node == site.start() && site.pin().rounds_up &&
           site.failing().kind == infer::RequirementKind::kReshapeCount &&
           site.graph().node(node).op_type() == "Reshape" &&
           site.graph().node(node).input_size() > 0 && site.graph().node(node).output_size() > 0;
  }

  void Check(const Analysis& analysis, std::vector<Finding>& out) const override {
    for (const Cause& cause : analysis.causes()) {
      if (!Owns(cause)) continue;
      const ir::Node node = cause.graph->node(cause.node);
      const infer::TensorFact* input = analysis.inference().Find(node.input(0));
      const infer::TensorFact* output = analysis.inference().Find(node.output(0));
      if (input == nullptr || !input->shape || output == nullptr || !output->shape) continue;
      Finding f = FindingFor(
          analysis, cause, cause.node,
          absl::StrCat("Reshape views '", std::string(node.input(0)), "' ",
                       FormatDims(*input->shape), " as ", FormatDims(*output->shape),
                       ", which rounds a size up to a multiple: nothing in the graph pads or "
                       "resizes the tensor to it, so the model runs only where the size is a "
                       "multiple (eager PyTorch grows the tensor first, in a branch the trace "
                       "at the export size did not take)"));
      f.attribute = "input 1 (shape)";
      f.fix =
          "pad or resize unconditionally before the view (F.interpolate or F.pad to the "
          "rounded-up size also when it equals the size: the trace then records it), or export "
          "at a size that is not a multiple, or declare the sizes static";
      // The repair would be the resize eager applies, whose mode the graph does not say.
      f.unfixable =
          "the resize or pad that eager PyTorch applies before the view is not in the graph, "
          "and how it grows the tensor (interpolation mode, padding value) is not recorded";
      out.push_back(std::move(f));
    }
  }
};

}  // namespace

std::unique_ptr<Rule> MakeRoundedUpReshape(const RuleInfo& info) {
  return std::make_unique<RoundedUpReshape>(info);
}

}  // namespace shapelint::lint
