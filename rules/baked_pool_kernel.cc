// SL001 baked-pool-kernel: a pooling window computed from the example input size.
//
// Exporters without a dynamic adaptive pool decompose adaptive_avg_pool2d(x, out) at an input
// size divisible by `out` into AveragePool(kernel = in / out, stride = in / out). The window
// then yields `out` only at that input size; elsewhere the pooled map silently grows or shrinks.
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "lint/rule.h"

namespace shapelint::lint {
namespace {

std::string Ints(const ONNX_NAMESPACE::NodeProto& node, std::string_view attr) {
  for (const auto& a : node.attribute()) {
    if (a.name() == attr) return absl::StrCat("[", absl::StrJoin(a.ints(), ", "), "]");
  }
  return "[1, ...]";
}

class BakedPoolKernel : public Rule {
 public:
  using Rule::Rule;

  void Check(const Analysis& analysis, std::vector<Finding>& out) const override {
    for (const Cause& cause : analysis.causes()) {
      if (cause.pattern != Pattern::kAdaptivePool) continue;
      const auto& node = cause.graph->node(cause.node);
      std::string pooled = "the pooled size";
      if (auto dims = analysis.ShapeAt(node.output(0), analysis.witness());
          dims && dims->size() > 2) {
        pooled = absl::StrCat("the pooled size [",
                              absl::StrJoin(dims->begin() + 2, dims->end(), ", "), "]");
      }
      Finding f =
          FindingFor(analysis, cause, cause.node,
                     absl::StrCat(node.op_type(), " kernel_shape=", Ints(node, "kernel_shape"),
                                  ", strides=", Ints(node, "strides"),
                                  " was computed from the example input size: ", pooled,
                                  " holds only at that size (adaptive pooling decomposed)"));
      f.attribute = "kernel_shape";
      f.fix =
          "export with a static spatial size, or with an exporter that lowers adaptive pooling "
          "dynamically (e.g. CumSum + Gather); for an output size of 1 use GlobalAveragePool";
      out.push_back(std::move(f));
    }
  }
};

}  // namespace

std::unique_ptr<Rule> MakeBakedPoolKernel(const RuleInfo& info) {
  return std::make_unique<BakedPoolKernel>(info);
}

}  // namespace shapelint::lint
