// SL002 baked-reshape-target: a Reshape whose target holds literal sizes while its input's
// dims are dynamic — a traced Python int (x.view(int(x.size(0)), -1)), a decomposition that
// froze its views (torch.kron), or a folded batch*seq.
#include <algorithm>

#include "absl/container/flat_hash_set.h"
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
    absl::flat_hash_set<int> reported;
    for (const Cause& cause : analysis.causes()) {
      if (cause.pattern != Pattern::kLiteralReshape) continue;
      if (cause.graph == &analysis.model().graph()) reported.insert(cause.node);
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
    const ir::Graph& g = analysis.model().graph();
    for (int i = 0; i < g.num_nodes(); ++i) {
      if (g.node(i).op_type() != "Reshape" || reported.contains(i)) continue;
      if (auto f = LiteralBatch(analysis, i)) out.push_back(std::move(*f));
    }
  }

 private:
  // x.view(int(x.size(0)), -1) traced at batch 2 writes the target [2, -1]. When only
  // divisibility is at stake nothing fails, and an output whose dims the exporter named itself
  // promises nothing to compare against: the model silently mixes samples across the batch.
  // A literal of at least 2 at axis 0 of a target whose input has a declared-dynamic dim there
  // is that bake.
  std::optional<Finding> LiteralBatch(const Analysis& analysis, int node) const {
    const ir::Graph& g = analysis.model().graph();
    const auto& n = g.node(node);
    if (n.input_size() < 2) return std::nullopt;
    const infer::TensorFact* input = analysis.inference().Find(n.input(0));
    const infer::TensorFact* target = analysis.inference().Find(n.input(1));
    if (input == nullptr || !input->shape || input->shape->empty() || target == nullptr ||
        !target->values || target->values->empty()) {
      return std::nullopt;
    }
    const sym::MaybeExpr& batch = input->shape->front();
    auto symbol = batch ? batch->AsSymbol() : std::nullopt;
    if (!symbol || !IsDeclaredDynamic(analysis, *symbol)) return std::nullopt;
    const infer::Element& first = target->values->front();
    auto literal = first.value ? first.value->AsConstant() : std::nullopt;
    const infer::Origin* origin = analysis.inference().OriginOf(first.origin);
    if (!literal || *literal < 2 || origin == nullptr || !origin->IsLiteral()) {
      return std::nullopt;
    }
    // Without a -1 the element count is an equality, which the pins and causes above handle.
    const bool infers = std::any_of(target->values->begin(), target->values->end(),
                                    [](const infer::Element& e) {
                                      return e.value && e.value->AsConstant() == -1;
                                    });
    if (!infers) return std::nullopt;
    const std::string name(*symbol);
    std::vector<sym::MaybeExpr> target_values;
    for (const auto& e : *target->values) target_values.push_back(e.value);
    Finding f;
    f.rule = std::string(info().code);
    f.name = std::string(info().name);
    f.node = analysis.Ref(g, node);
    f.attribute = "input 1 (shape)";
    f.symbols = {name};
    f.message = absl::StrCat("Reshape target ", DimsText(target_values), " from ",
                             OriginText(analysis, *target), " puts the literal ", *literal,
                             " at axis 0, where the input has the dynamic ", name,
                             ": a batch size of the example input (int(x.size(0)) traced)");
    Witness w;
    w.ranges.push_back({name, *literal, *literal, *literal});
    w.summary = absl::StrCat("keeps the batch apart only for ", name, " = ", *literal);
    f.witness = std::move(w);
    // The nearest other batch: the reshape may still run, but its axis 0 stays the literal.
    sym::Binding at = analysis.witness();
    at.Set(name, *literal + 1);
    Counterexample c = analysis.Evaluate(at);
    if (!c.node_fails) {
      c.failing_node = analysis.Ref(g, node);
      auto shape = analysis.ShapeAt(n.output(0), at);
      c.failure = absl::StrCat("Reshape output axis 0 is ", *literal, " for ", name, " = ",
                               *literal + 1,
                               shape ? absl::StrCat(" (", FormatDims(*shape), ")") : "",
                               ": samples of the batch are mixed");
    }
    f.counterexample = std::move(c);
    f.severity = Severity::kError;
    f.fix =
        "x.flatten(1) or x.reshape(x.shape[0], -1) instead of x.view(int(x.size(0)), -1); "
        "never pass int() of a size to view/reshape";
    return f;
  }

  static bool IsDeclaredDynamic(const Analysis& analysis, std::string_view symbol) {
    for (const infer::InputDim& d : analysis.inference().input_dims) {
      if (d.declared_symbolic && d.dim && d.dim->AsSymbol() == symbol) return true;
    }
    return false;
  }
};

}  // namespace

std::unique_ptr<Rule> MakeBakedReshapeTarget(const RuleInfo& info) {
  return std::make_unique<BakedReshapeTarget>(info);
}

}  // namespace shapelint::lint
