// SL002 baked-reshape-target: a Reshape whose target holds literal sizes while its input's
// dims are dynamic — a traced Python int (x.view(int(x.size(0)), -1)), a decomposition that
// froze its views (torch.kron), or a folded batch*seq.
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "lint/rule.h"

namespace shapelint::lint {
namespace {

std::string DimsText(const std::vector<sym::MaybeExpr>& dims) {
  std::vector<std::string> parts;
  for (const auto& d : dims) parts.push_back(d ? d->ToString() : "?");
  return absl::StrCat("[", absl::StrJoin(parts, ", "), "]");
}

std::string OriginText(const Analysis& analysis, const infer::TensorFact& target) {
  for (const auto& e : *target.values) {
    const infer::Origin* o = analysis.inference().OriginOf(e.origin);
    if (o == nullptr || !o->IsLiteral()) continue;
    switch (o->kind) {
      case infer::Origin::Kind::kInitializer:
        return absl::StrCat("initializer '", o->name, "'");
      case infer::Origin::Kind::kConstantNode:
        return absl::StrCat("Constant '", o->graph->NodeLabel(o->node), "'");
      case infer::Origin::Kind::kAttribute:
        return absl::StrCat("attribute '", o->name, "' of '", o->graph->NodeLabel(o->node), "'");
      case infer::Origin::Kind::kShapeOf:
        break;
    }
  }
  return "a literal";
}

class BakedReshapeTarget : public Rule {
 public:
  using Rule::Rule;

  void Check(const Analysis& analysis, std::vector<Finding>& out) const override {
    for (const Cause& cause : analysis.causes()) {
      if (cause.pattern != Pattern::kLiteralReshape) continue;
      const auto& node = cause.graph->node(cause.node);
      const infer::TensorFact* input = analysis.inference().Find(node.input(0));
      const infer::TensorFact* target = analysis.inference().Find(node.input(1));
      std::vector<sym::MaybeExpr> target_values;
      for (const auto& e : *target->values) target_values.push_back(e.value);
      Finding f = FindingFor(
          analysis, cause, cause.node,
          absl::StrCat("Reshape target ", DimsText(target_values), " from ",
                       OriginText(analysis, *target), " holds sizes of the example input, but the ",
                       "input shape ", DimsText(*input->shape), " is dynamic"));
      f.attribute = "input 1 (shape)";
      f.fix =
          "build the target from the input's shape or use 0 and -1 for dims that follow the "
          "input: x.flatten(1) or x.reshape(x.shape[0], -1) instead of "
          "x.view(int(x.size(0)), -1)";
      out.push_back(std::move(f));
    }
  }
};

}  // namespace

std::unique_ptr<Rule> MakeBakedReshapeTarget(const RuleInfo& info) {
  return std::make_unique<BakedReshapeTarget>(info);
}

}  // namespace shapelint::lint
