// SL002 baked-reshape-target: a Reshape whose target holds literal sizes while its input's
// dims are dynamic — a traced Python int (x.view(int(x.size(0)), -1)), a decomposition that
// froze its views (torch.kron), or a folded batch*seq.
//
// Claims: a Reshape on the failure's path (the failing node, or one whose output changes with
// the moved size) with a dynamic input and a literal entry other than 0 and -1 in its target,
// unless it only regroups the input's static dims (the head split of attention) or the failing
// node has a literal operand of its own, which explains the failure better (GroupNorm's
// Reshape [0, groups, -1] is not where the channel count was fixed).
// Also reports, without a failure, a literal first or last entry where the input has a
// declared-dynamic dim and the target has a -1: x.view(int(x.size(0)), -1) mixes samples.
#include <algorithm>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "lint/rule.h"

namespace shapelint::lint {
namespace {

// Products of static dims past this are left alone: they would overflow before they matter.
constexpr int64_t kMaxStaticProduct = int64_t{1} << 40;

std::string DimsText(const std::vector<sym::MaybeExpr>& dims) {
  std::vector<std::string> parts;
  parts.reserve(dims.size());
  for (const auto& d : dims) parts.push_back(d ? d->ToString(kMaxExprText) : "?");
  return absl::StrCat("[", absl::StrJoin(parts, ", "), "]");
}

std::string OriginText(const infer::Inference& inference, const infer::TensorFact& target) {
  for (const auto& e : *target.values) {
    const infer::Origin* o = inference.OriginOf(e.origin);
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

// True when a Reshape keeps every dynamic dim of its input as an entry of the target and only
// regroups the static ones: [B, S, 512] to [B, S, 8, 64], the head split of attention. Its
// literals are right at every size.
bool RegroupsStaticDims(const infer::TensorFact& input, const infer::TensorFact& target) {
  std::vector<sym::Expr> dynamic;
  int64_t static_product = 1;
  for (const auto& d : *input.shape) {
    if (!d) return false;
    if (auto c = d->AsConstant()) {
      if (*c <= 0 || static_product > kMaxStaticProduct) return false;
      static_product *= *c;
    } else {
      dynamic.push_back(*d);
    }
  }
  int64_t literal_product = 1;
  bool infer_one = false;
  for (const auto& e : *target.values) {
    if (!e.value) return false;
    if (auto c = e.value->AsConstant()) {
      if (*c == -1 && !infer_one) {
        infer_one = true;
        continue;
      }
      if (*c <= 0 || literal_product > kMaxStaticProduct) return false;  // 0 copies a dim
      literal_product *= *c;
      continue;
    }
    auto it = std::find(dynamic.begin(), dynamic.end(), *e.value);
    if (it == dynamic.end()) return false;
    dynamic.erase(it);
  }
  if (!dynamic.empty()) return false;
  return infer_one ? static_product % literal_product == 0 : static_product == literal_product;
}

bool IsLiteralReshape(const BlameSite& site, int node) {
  const ir::Node n = site.graph().node(node);
  if (n.op_type() != "Reshape" || n.input_size() < 2) return false;
  if (node != site.start() && !site.Changed(node)) return false;
  const infer::TensorFact* target = site.inference().Find(n.input(1));
  const infer::TensorFact* input = site.inference().Find(n.input(0));
  if (target == nullptr || !target->values || input == nullptr || !input->shape) return false;
  const bool symbolic_input = std::any_of(input->shape->begin(), input->shape->end(),
                                          [](const auto& d) { return d && !d->IsConstant(); });
  if (!symbolic_input || RegroupsStaticDims(*input, *target)) return false;
  return std::any_of(target->values->begin(), target->values->end(), [&](const auto& e) {
    auto c = e.value ? e.value->AsConstant() : std::nullopt;
    const infer::Origin* o = site.inference().OriginOf(e.origin);
    return c && *c != 0 && *c != -1 && o != nullptr && o->IsLiteral();
  });
}

class BakedReshapeTarget : public Rule {
 public:
  using Rule::Rule;

  bool ClaimsNode(const BlameSite& site, int node) const override {
    // A literal operand of the failing node outranks reshapes further up.
    if (node != site.start() && site.literal().kind != LiteralSource::Kind::kNone) return false;
    return IsLiteralReshape(site, node);
  }

  void Check(const Analysis& analysis, std::vector<Finding>& out) const override {
    absl::flat_hash_set<int> reported;
    for (const Cause& cause : analysis.causes()) {
      if (!Owns(cause)) continue;
      if (cause.graph == &analysis.model().graph()) reported.insert(cause.node);
      const auto& node = cause.graph->node(cause.node);
      const infer::TensorFact* input = analysis.inference().Find(node.input(0));
      const infer::TensorFact* target = analysis.inference().Find(node.input(1));
      std::vector<sym::MaybeExpr> target_values;
      for (const auto& e : *target->values) target_values.push_back(e.value);
      Finding f = FindingFor(analysis, cause, cause.node,
                             absl::StrCat("Reshape target ", DimsText(target_values), " from ",
                                          OriginText(analysis.inference(), *target),
                                          " holds sizes of the example input, but the ",
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
  // x.view(int(x.size(0)), -1) traced at batch 2 writes the target [2, -1];
  // x.reshape(-1, int(x.size(-1))) writes [-1, 10]. When only divisibility is at stake nothing
  // may fail, and an output whose dims the exporter named itself promises nothing to compare
  // against: the model silently mixes samples, or fails only where the count does not divide.
  // A literal of at least 2 as the first or last entry of a target with a -1, where the input
  // has a declared-dynamic dim in the same place, is that bake.
  std::optional<Finding> LiteralBatch(const Analysis& analysis, int node) const {
    const ir::Graph& g = analysis.model().graph();
    const auto& n = g.node(node);
    if (n.input_size() < 2) return std::nullopt;
    const infer::TensorFact* input = analysis.inference().Find(n.input(0));
    const infer::TensorFact* target = analysis.inference().Find(n.input(1));
    if (input == nullptr || !input->shape || input->shape->empty() || target == nullptr ||
        !target->values || target->values->size() < 2) {
      return std::nullopt;
    }
    // Without a -1 the element count is an equality, which the pins and causes above handle.
    const bool infers =
        std::any_of(target->values->begin(), target->values->end(),
                    [](const infer::Element& e) { return e.value && e.value->AsConstant() == -1; });
    if (!infers) return std::nullopt;
    if (auto f = LiteralAt(analysis, node, *input, *target, 0, 0)) return f;
    // The last entry stands for the whole last input dim only when the reshape merges dims
    // (x.reshape(-1, int(x.size(-1)))); when it splits them, a trailing literal is a factor
    // (pixel_unshuffle's [..., -1, 2]).
    if (target->values->size() > input->shape->size()) return std::nullopt;
    return LiteralAt(analysis, node, *input, *target, input->shape->size() - 1,
                     target->values->size() - 1);
  }

  std::optional<Finding> LiteralAt(const Analysis& analysis, int node,
                                   const infer::TensorFact& input, const infer::TensorFact& target,
                                   size_t in_axis, size_t target_axis) const {
    const ir::Graph& g = analysis.model().graph();
    const auto& n = g.node(node);
    const sym::MaybeExpr& dim = (*input.shape)[in_axis];
    auto symbol = dim ? dim->AsSymbol() : std::nullopt;
    if (!symbol || !IsDeclaredDynamic(analysis, *symbol)) return std::nullopt;
    const infer::Element& entry = (*target.values)[target_axis];
    auto literal = entry.value ? entry.value->AsConstant() : std::nullopt;
    const infer::Origin* origin = analysis.inference().OriginOf(entry.origin);
    if (!literal || *literal < 2 || origin == nullptr || !origin->IsLiteral()) {
      return std::nullopt;
    }
    const std::string name(*symbol);
    const bool first = target_axis == 0;
    std::vector<sym::MaybeExpr> target_values;
    for (const auto& e : *target.values) target_values.push_back(e.value);
    Finding f = FindingAt(
        analysis, g, node, Severity::kWarning,
        absl::StrCat("Reshape target ", DimsText(target_values), " from ",
                     OriginText(analysis.inference(), target), " puts the literal ", *literal,
                     first ? " first" : " last", ", where the input has the ", "dynamic ", name,
                     ": a size of the example input (a traced int(x.size(", first ? 0 : -1, ")))"));
    f.attribute = "input 1 (shape)";
    f.symbols = {name};
    Witness w;
    w.ranges.push_back({name, *literal, *literal, *literal});
    w.summary = absl::StrCat("reshapes as intended only for ", name, " = ", *literal);
    f.witness = std::move(w);
    // The nearest other size: the reshape may still run, but that entry stays the literal.
    sym::Binding at = analysis.witness();
    at.Set(name, *literal + 1);
    Counterexample c = analysis.Evaluate(at);
    if (!c.node_fails) {
      c.failing_node = analysis.Ref(g, node);
      auto shape = analysis.DimsAt(n.output(0), at);
      c.failure =
          absl::StrCat("Reshape output axis ", target_axis, " is ", *literal, " for ", name, " = ",
                       *literal + 1, shape ? absl::StrCat(" (", FormatDims(*shape), ")") : "",
                       first ? ": samples of the batch are mixed"
                             : ": rows no longer follow the input's last axis");
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
