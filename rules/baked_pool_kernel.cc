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

std::string Ints(ir::Node node, std::string_view attr) {
  ir::AttributeRef a = node.FindAttribute(attr);
  if (!a) return "[1, ...]";
  return absl::StrCat("[", absl::StrJoin(a->ints(), ", "), "]");
}

std::vector<int64_t> IntsOf(ir::Node node, std::string_view attr) {
  ir::AttributeRef a = node.FindAttribute(attr);
  if (!a) return {};
  return {a->ints().begin(), a->ints().end()};
}

// Inside the witness range the pooled size is right, but adaptive pooling's values come out
// only where each window tiles the input exactly (input == kernel * output), i.e. at the
// export size. Says where that is, when it is narrower than the range.
std::optional<std::string> ExactTiling(const Analysis& analysis, const Cause& cause,
                                       const Finding& finding) {
  if (!finding.witness) return std::nullopt;
  const auto& node = cause.graph->node(cause.node);
  const auto kernel = IntsOf(node, "kernel_shape");
  const infer::TensorFact* in = analysis.inference().Find(node.input(0));
  auto out = analysis.ShapeAt(node.output(0), analysis.witness());
  if (in == nullptr || !in->shape || !out || in->shape->size() != kernel.size() + 2) {
    return std::nullopt;
  }
  std::vector<std::string> exact;
  bool narrower = false;
  for (const SymbolRange& r : finding.witness->ranges) {
    if (!r.min || !r.max) return std::nullopt;
    std::vector<int64_t> good;
    for (int64_t v = *r.min; v <= *r.max; ++v) {
      sym::Binding b = analysis.witness();
      b.Set(r.symbol, v);
      bool tiles = true;
      for (size_t i = 0; i < kernel.size(); ++i) {
        const auto& dim = (*in->shape)[i + 2];
        auto size = dim ? dim->Evaluate(b) : std::nullopt;
        tiles = tiles && size == kernel[i] * (*out)[i + 2];
      }
      if (tiles) good.push_back(v);
    }
    if (good.size() != 1) return std::nullopt;  // only a single exact size is worth stating
    narrower = narrower || *r.min != *r.max;
    exact.push_back(absl::StrCat(r.symbol, " = ", good[0]));
  }
  if (!narrower || exact.empty()) return std::nullopt;
  return absl::StrCat("the values match adaptive pooling only where the windows tile the input ",
                      "exactly (", absl::StrJoin(exact, ", "),
                      "); elsewhere in the range the shape is right and the values are not");
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
      if (auto note = ExactTiling(analysis, cause, f)) f.notes.push_back({*note, std::nullopt});
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
