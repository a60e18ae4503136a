#include "lint/repair_check.h"

#include <algorithm>
#include <map>
#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "lint/literals.h"
#include "lint/severity.h"
#include "shapelint/infer/engine.h"

namespace shapelint::lint {
namespace {

// The input dims the finding's witness holds at one size, with it.
std::map<std::string, int64_t> PinnedSizes(const Finding& f) {
  std::map<std::string, int64_t> pinned;
  if (!f.witness) return pinned;
  for (const SymbolRange& r : f.witness->ranges) {
    if (r.min && r.max && *r.min == *r.max) pinned[r.symbol] = *r.min;
  }
  return pinned;
}

// True when `r` is about one of `symbols`: the failure the repair leaves is that dim's, not one
// another finding's repair made at a size the counterexample gives some other dim.
bool Involves(const infer::Requirement& r, const std::vector<std::string>& symbols) {
  for (const sym::Expr& side : {r.lhs, r.rhs}) {
    for (const std::string& s : side.Symbols()) {
      if (std::find(symbols.begin(), symbols.end(), s) != symbols.end()) return true;
    }
  }
  return false;
}

// What the repair of `f` overrides: each literal element that the culprit reads and that
// holds the size the witness pins one of its dims to, made that dim. Empty when an element
// could be either of two dims (both pinned to its size), or a dim's size is held twice (which
// one was taken from it is not known), or a literal size above 1 is none of them.
struct Repair {
  std::vector<infer::ElementOverride> overrides;
  std::vector<std::string> follows;  // the dims the literals are made to follow
  std::vector<int64_t> sizes;        // the size each held, in the same order
};

Repair RepairOf(const Analysis& analysis, const Finding& f) {
  Repair repair;
  if (f.node.graph != "main") return repair;
  const infer::Inference& inference = analysis.inference();
  const ir::Graph& g = *inference.graph;
  if (f.node.index < 0 || f.node.index >= g.num_nodes()) return repair;
  const std::map<std::string, int64_t> pinned = PinnedSizes(f);
  if (pinned.empty()) return repair;
  std::map<std::string, int> held;  // times each pinned dim's size is held
  const absl::Span<const ir::ValueId> inputs = g.InputIds(f.node.index);
  for (size_t k = 0; k < inputs.size(); ++k) {
    if (inputs[k] == ir::kNoValue) continue;
    const infer::TensorFact& fact = inference.facts[inputs[k]];
    if (!fact.values) continue;
    for (size_t e = 0; e < fact.values->size(); ++e) {
      const infer::Element& element = (*fact.values)[e];
      const infer::Origin* origin = inference.OriginOf(element.origin);
      if (!element.value || origin == nullptr || !origin->IsLiteral()) continue;
      const std::optional<int64_t> size = element.value->AsConstant();
      if (!size) continue;
      const std::string* dim = nullptr;
      for (const auto& [symbol, pinned_size] : pinned) {
        if (pinned_size != *size) continue;
        if (dim != nullptr) return Repair{};
        dim = &symbol;
      }
      // A size the repair cannot place (the 10 of [10, 8] for b * t) leaves it unknown: the
      // repaired graph would still fail at that literal, and no verdict rests on it.
      if (dim == nullptr) {
        if (*size >= 2) return Repair{};
        continue;
      }
      if (++held[*dim] > 1) return Repair{};
      repair.overrides.push_back(
          {f.node.index, static_cast<int>(k), static_cast<int64_t>(e), sym::Expr::Symbol(*dim)});
      repair.follows.push_back(*dim);
      repair.sizes.push_back(*size);
    }
  }
  return repair;
}

// True when `fact` has a dim of constant size `c`.
bool HasDim(const infer::TensorFact* fact, int64_t c) {
  if (fact == nullptr || !fact->shape) return false;
  return std::any_of(fact->shape->begin(), fact->shape->end(),
                     [&](const sym::MaybeExpr& d) { return d && d->AsConstant() == c; });
}

// The view upstream of `value` (through ops that keep a dim of size `c`) whose target's trailing
// literals, `c` among them, only split the constant trailing dims of its input: a view of a
// layer's 12 outputs as 3 x 4, where no input size is there to bake. Said for a note.
std::optional<std::string> StaticSplit(const Analysis& analysis, const infer::Inference& repaired,
                                       const ir::Graph& g, std::string_view value, int64_t c) {
  constexpr int kMaxDepth = 6;
  for (int depth = 0; depth < kMaxDepth && !value.empty(); ++depth) {
    if (!HasDim(repaired.FindIn(g, value), c)) return std::nullopt;
    const int p = g.Producer(value);
    if (p < 0) return std::nullopt;
    const ir::Node node = g.node(p);
    if (node.input_size() < 1) return std::nullopt;
    if (node.op_type() != "Reshape") {
      value = node.input(0);
      continue;
    }
    const infer::TensorFact* data = repaired.FindIn(g, node.input(0));
    const infer::TensorFact* target =
        node.input_size() > 1 ? repaired.FindIn(g, node.input(1)) : nullptr;
    if (data == nullptr || target == nullptr || !data->shape || !target->values) {
      return std::nullopt;
    }
    // The target's trailing literals (after its last -1, 0 or computed element) and the input's
    // trailing constant dims hold the same number of elements.
    int64_t split = 1, kept = 1;
    std::vector<int64_t> literals;
    for (auto it = target->values->rbegin(); it != target->values->rend(); ++it) {
      const std::optional<int64_t> v = it->value ? it->value->AsConstant() : std::nullopt;
      if (!v || *v <= 0) break;
      literals.insert(literals.begin(), *v);
      split *= *v;
    }
    for (auto it = data->shape->rbegin(); it != data->shape->rend(); ++it) {
      const std::optional<int64_t> v = *it ? (*it)->AsConstant() : std::nullopt;
      if (!v || kept * *v > split) break;
      kept *= *v;
    }
    if (literals.empty() || literals.size() == target->values->size() || kept != split ||
        std::find(literals.begin(), literals.end(), c) == literals.end()) {
      return std::nullopt;
    }
    return absl::StrCat("the view '", analysis.Ref(g, p).label, "' of its input's ", split,
                        " elements as [..., ", absl::StrJoin(literals, ", "),
                        "] (no input's size among them)");
  }
  return std::nullopt;
}

// The module's own size that the failure `r` of the repaired graph meets, said for a note: a
// trained weight, or a static split of a layer's outputs (StaticSplit). Nothing where its
// constant side may hold a size of the inputs.
std::optional<std::string> OwnSize(const Analysis& analysis, const infer::Inference& repaired,
                                   const infer::Requirement& r) {
  const LiteralSource src =
      LiteralSideOf(repaired, r, analysis.specialized(), analysis.signature());
  if (src.kind == LiteralSource::Kind::kWeight) {
    return absl::StrCat("weight '", src.name, "' [", absl::StrJoin(src.dims, ", "), "]");
  }
  std::optional<int64_t> c = r.rhs.AsConstant();
  if (!c) c = r.lhs.AsConstant();
  if (!c || *c < 2 || r.graph == nullptr) return std::nullopt;
  const ir::Node node = r.graph->node(r.node);
  for (int k = 0; k < node.input_size(); ++k) {
    if (auto split = StaticSplit(analysis, repaired, *r.graph, node.input(k), *c)) return split;
  }
  return std::nullopt;
}

}  // namespace

void CheckRepairs(const Analysis& analysis, std::vector<Finding>& findings) {
  std::vector<std::pair<size_t, Repair>> candidates;
  std::vector<infer::ElementOverride> all;
  for (size_t i = 0; i < findings.size(); ++i) {
    const Finding& f = findings[i];
    const bool bake =
        f.evidence == Evidence::kContradiction || f.evidence == Evidence::kExporterRecord;
    if (!bake || f.severity != Severity::kError || !f.counterexample->node_fails) continue;
    Repair repair = RepairOf(analysis, f);
    if (repair.overrides.empty()) continue;
    all.insert(all.end(), repair.overrides.begin(), repair.overrides.end());
    candidates.emplace_back(i, std::move(repair));
  }
  if (candidates.empty()) return;
  // Every bake repaired at once: a size baked twice (a view and a mask of int(b)) still fails
  // at the second literal once the first follows the input, and that is no weight.
  const infer::Inference repaired = infer::Infer(analysis.model(), all);
  const GraphEvaluator evaluator = analysis.EvaluatorOf(repaired);
  // Where the repaired graph fails at `at`: the failure, and the module's own size it meets
  // when it is about a dim the repair made a literal follow.
  struct Verdict {
    std::optional<GraphEvaluator::Failure> failure;
    std::optional<std::string> own;
  };
  const auto verdict = [&](const Repair& repair, sym::Binding at) {
    // Each dim another repair made a literal follow is at the size that literal held: what the
    // graph read there, whatever the input (a witness found without the export sizes may hold
    // the states' features at 2 where a reshape(-1, 6) made them 6).
    for (const auto& [other, other_repair] : candidates) {
      for (size_t k = 0; k < other_repair.follows.size(); ++k) {
        const std::string& dim = other_repair.follows[k];
        if (std::find(repair.follows.begin(), repair.follows.end(), dim) == repair.follows.end()) {
          at.Set(dim, other_repair.sizes[k]);
        }
      }
    }
    Verdict v{evaluator.FirstNodeFailure(at), std::nullopt};
    if (v.failure && Involves(*v.failure->requirement, repair.follows)) {
      v.own = OwnSize(analysis, repaired, *v.failure->requirement);
    }
    return v;
  };
  for (auto& [index, repair] : candidates) {
    Finding& f = findings[index];
    sym::Binding at;
    for (const auto& [symbol, size] : f.counterexample->binding) at.Set(symbol, size);
    Verdict v = verdict(repair, at);
    if (!v.failure) continue;  // the repair runs there: the literal is what fails
    std::string where = "the counterexample";
    if (!v.own) {
      // The repaired graph fails at the counterexample for another reason (it moved another
      // input's batch with the agents' axis fixed at 3). Each dim the repair made a literal
      // follow, moved one step from the witness alone where the graph as it is fails, tells
      // instead: the literal is the module's own only where every such step meets its own size,
      // and a bake where the repair runs at one, or fails at anything else (a second view of
      // int(b) that no finding names).
      sym::Binding base = at;
      if (f.witness) {
        for (const SymbolRange& r : f.witness->ranges) base.Set(r.symbol, r.value);
      }
      std::optional<Verdict> own;
      std::string moved;
      bool bake = false;
      for (size_t k = 0; k < repair.follows.size() && !bake; ++k) {
        sym::Binding step = base;
        step.Set(repair.follows[k], repair.sizes[k] + 1);
        if (!analysis.CounterexampleAt(step)) continue;
        Verdict at_step = verdict(repair, step);
        bake = !at_step.own;
        if (!bake && !own) {
          own = std::move(at_step);
          moved = absl::StrCat(repair.follows[k], " = ", repair.sizes[k] + 1);
        }
      }
      if (bake || !own) continue;
      v = *std::move(own);
      where = absl::StrCat(moved, " (the others at the witness)");
    }
    const infer::Requirement& r = *v.failure->requirement;
    f.evidence = Evidence::kDesign;
    ApplySeverityPolicy(f);
    // Making the literal follow the input is no repair where the model needs the size anyway.
    std::vector<std::string> held;
    for (size_t k = 0; k < repair.follows.size(); ++k) {
      held.push_back(absl::StrCat(repair.follows[k], " = ", repair.sizes[k]));
    }
    f.fix = absl::StrCat("declare ", absl::StrJoin(repair.follows, ", "), " static (",
                         absl::StrJoin(held, ", "), "; drop ",
                         repair.follows.size() > 1 ? "them" : "it",
                         " from dynamic_axes / dynamic_shapes): the model needs that size after "
                         "the literal too");
    f.fix_it.reset();
    f.unfixable = "the literal made to follow the input fails at the model's own size";
    const NodeRef at_node = analysis.Ref(*r.graph, r.node);
    f.notes.push_back(
        {absl::StrCat("with the literal made to follow ", absl::StrJoin(repair.follows, ", "),
                      " (the repair), the graph still fails at ", where, ", at ", at_node.op_type,
                      " '", at_node.label, "': ", r.what, ": ", v.failure->lhs, " vs ",
                      v.failure->rhs, ", where ", *v.own,
                      " needs that size: the literal repeats a size of the model's own, which "
                      "eager PyTorch needs too"),
         at_node});
  }
}

}  // namespace shapelint::lint
