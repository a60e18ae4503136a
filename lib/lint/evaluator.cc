#include "lint/evaluator.h"

#include <algorithm>
#include <deque>
#include <string>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "lint/requirements.h"

namespace shapelint::lint {

using infer::Relation;
using infer::Requirement;
using infer::RequirementKind;

NodeRef RefTo(const ir::Graph& graph, int node) {
  NodeRef ref;
  ref.graph = graph.path();
  if (node < 0) return ref;
  ref.name = graph.node(node).name();
  ref.op_type = graph.node(node).op_type();
  ref.index = node;
  ref.label = graph.NodeLabel(node);
  return ref;
}

std::optional<GraphEvaluator::Failure> GraphEvaluator::FirstFailure(
    const sym::Binding& binding) const {
  return FirstFailureAmong(binding, /*declared=*/true);
}

std::optional<GraphEvaluator::Failure> GraphEvaluator::FirstNodeFailure(
    const sym::Binding& binding) const {
  return FirstFailureAmong(binding, /*declared=*/false);
}

std::optional<GraphEvaluator::Failure> GraphEvaluator::FirstFailureAmong(
    const sym::Binding& binding, bool declared) const {
  // Requirements share their sides (every layer of a decoder requires the same) and their
  // parts: each expression is evaluated once, each floor, min and max in them too.
  absl::flat_hash_map<sym::Expr, std::optional<int64_t>> values;
  sym::Evaluator evaluate(binding);
  auto value = [&](const sym::Expr& e) {
    auto [it, fresh] = values.try_emplace(e);
    if (fresh) it->second = evaluate(e);
    return it->second;
  };
  for (const Requirement& r : inference_.requirements) {
    if (!declared && r.kind == RequirementKind::kDeclaredShape) continue;
    auto l = value(r.lhs);
    auto rr = value(r.rhs);
    if (l && rr && !infer::Holds(r.relation, *l, *rr)) return Failure{&r, *l, *rr};
  }
  return std::nullopt;
}

std::optional<std::vector<int64_t>> GraphEvaluator::DimsAt(std::string_view value,
                                                           const sym::Binding& binding) const {
  const infer::TensorFact* f = inference_.Find(value);
  if (f == nullptr || !f->shape) return std::nullopt;
  std::vector<int64_t> dims;
  for (const auto& d : *f->shape) {
    auto v = d ? d->Evaluate(binding) : std::nullopt;
    if (!v) return std::nullopt;
    dims.push_back(*v);
  }
  return dims;
}

std::vector<ShapeAt> GraphEvaluator::OutputShapes(const sym::Binding& binding) const {
  std::vector<ShapeAt> shapes;
  for (const auto& out : model_.graph().proto().output()) {
    ShapeAt shape;
    shape.value = out.name();
    auto actual = DimsAt(out.name(), binding);
    if (!actual) continue;
    shape.actual = *actual;
    if (out.type().tensor_type().has_shape()) {
      const auto& declared = out.type().tensor_type().shape();
      std::vector<int64_t> expected;
      for (const auto& d : declared.dim()) {
        sym::MaybeExpr e;
        if (d.has_dim_value()) e = sym::Expr::Constant(d.dim_value());
        if (d.has_dim_param()) e = sym::FromDimParam(d.dim_param());
        auto v = e ? e->Evaluate(binding) : std::nullopt;
        if (!v) {
          expected.clear();
          break;
        }
        expected.push_back(*v);
      }
      if (expected.size() == shape.actual.size() &&
          static_cast<int>(expected.size()) == declared.dim_size()) {
        shape.expected = std::move(expected);
      }
    }
    shapes.push_back(std::move(shape));
  }
  return shapes;
}

Counterexample GraphEvaluator::Evaluate(const sym::Binding& binding) const {
  auto failure = FirstFailure(binding);
  Counterexample c;
  for (const auto& s : symbols_) {
    if (auto v = binding.Get(s)) c.binding.emplace_back(s, *v);
  }
  const ir::Graph& g = model_.graph();
  for (const auto& in : g.proto().input()) {
    if (g.Initializer(in.name()) != nullptr) continue;
    const infer::TensorFact* f = inference_.Find(in.name());
    const bool dynamic = f != nullptr && f->shape &&
                         std::any_of(f->shape->begin(), f->shape->end(),
                                     [](const auto& d) { return !d || !d->IsConstant(); });
    if (!dynamic) continue;
    if (auto dims = DimsAt(in.name(), binding)) c.inputs.emplace_back(in.name(), *dims);
  }
  if (failure) {
    const Requirement& r = *failure->requirement;
    c.failing_node = RefTo(*r.graph, r.node);
    c.failure = DescribeFailure(r, failure->lhs, failure->rhs);
    c.node_fails = r.kind != RequirementKind::kDeclaredShape;
    c.hint_only = IsHint(r);
    c.input_contract = c.node_fails && IsUnitRelation(r);
  }
  // Past a node that cannot run there are no outputs to show.
  if (!c.node_fails) c.outputs = OutputShapes(binding);
  return c;
}

std::optional<Counterexample> GraphEvaluator::CounterexampleAt(const sym::Binding& binding) const {
  Counterexample c = Evaluate(binding);
  if (c.failure.empty()) return std::nullopt;
  return c;
}

std::vector<std::string> GraphEvaluator::InAxisOrder(
    const std::vector<std::string>& symbols) const {
  std::vector<std::string> ordered;
  for (const infer::InputDim& d : inference_.input_dims) {
    const std::optional<std::string_view> name = d.dim ? d.dim->AsSymbol() : std::nullopt;
    if (!name) continue;
    const std::string symbol(*name);
    const bool wanted = std::find(symbols.begin(), symbols.end(), symbol) != symbols.end();
    if (wanted && std::find(ordered.begin(), ordered.end(), symbol) == ordered.end()) {
      ordered.push_back(symbol);
    }
  }
  for (const auto& s : symbols) {
    if (std::find(ordered.begin(), ordered.end(), s) == ordered.end()) ordered.push_back(s);
  }
  return ordered;
}

void GraphEvaluator::SetExample(const sym::Binding& example) {
  example_ = example;
  peers_.clear();
  absl::flat_hash_map<std::string, int64_t> rank;
  for (const infer::InputDim& d : inference_.input_dims) {
    rank[d.input] = std::max(rank[d.input], d.axis + 1);
  }
  struct Place {
    std::string_view input;
    int64_t front, back;
  };
  absl::flat_hash_map<std::string, std::vector<Place>> places;  // of the symbols given
  absl::flat_hash_map<int64_t, std::vector<std::string>> by_size;
  for (const infer::InputDim& d : inference_.input_dims) {
    const std::optional<std::string_view> name = d.dim ? d.dim->AsSymbol() : std::nullopt;
    const std::optional<int64_t> size = name ? example_.Get(*name) : std::nullopt;
    if (!size) continue;
    std::vector<Place>& at = places[std::string(*name)];
    if (at.empty()) by_size[*size].emplace_back(*name);
    at.push_back({d.input, d.axis, rank[d.input] - d.axis});
  }
  for (const auto& [size, symbols] : by_size) {
    // A size that many inputs hold says nothing of which of them share a role, and pairing
    // them all would cost the square of their count.
    if (symbols.size() > kMaxSharedSize) continue;
    for (const std::string& s : symbols) {
      for (const std::string& t : symbols) {
        if (s == t) continue;
        bool apart = true, aligned = false;
        for (const Place& p : places[s]) {
          for (const Place& q : places[t]) {
            apart = apart && p.input != q.input;
            aligned = aligned || p.front == q.front || p.back == q.back;
          }
        }
        if (apart && aligned) peers_[s].push_back(t);
      }
    }
  }
  for (auto& [s, peers] : peers_) std::sort(peers.begin(), peers.end());
}

std::vector<std::string> GraphEvaluator::PeersOf(const std::string& symbol,
                                                 const sym::Binding& base) const {
  const std::optional<int64_t> size = base.Get(symbol);
  auto it = peers_.find(symbol);
  if (!size || it == peers_.end() || example_.Get(symbol) != size) return {};
  std::vector<std::string> peers;
  for (const std::string& other : it->second) {
    if (base.Get(other) == size) peers.push_back(other);
  }
  return peers;
}

std::vector<sym::Binding> GraphEvaluator::Moved(const sym::Binding& base, const std::string& symbol,
                                                int64_t size,
                                                const std::vector<std::string>& among) const {
  std::vector<sym::Binding> moved;
  sym::Binding alone = base;
  alone.Set(symbol, size);
  std::vector<std::string> peers = PeersOf(symbol, base);
  std::erase_if(peers, [&](const std::string& p) {
    return std::find(among.begin(), among.end(), p) == among.end();
  });
  if (!peers.empty() && std::all_of(peers.begin(), peers.end(), [&](const std::string& p) {
        return WithinBounds(recorded_, p, size);
      })) {
    sym::Binding together = alone;
    for (const std::string& p : peers) together.Set(p, size);
    moved.push_back(std::move(together));
  }
  moved.push_back(std::move(alone));
  return moved;
}

namespace {

// A granule halved while it is even and larger than the size it moves: the granule is a
// multiple of what each floor needs (a product of floors over two sizes counts each divisor in
// full), and a step past the size itself leaves the sizes the model was exported and tried at
// far behind.
int64_t StepNear(int64_t granule, int64_t size) {
  while (granule > size && granule % 2 == 0) granule /= 2;
  return granule;
}

}  // namespace

std::optional<sym::Binding> GraphEvaluator::MoveSymbols(const std::vector<std::string>& symbols,
                                                        const infer::Requirement* own) const {
  const sym::Binding& witness = solution_.witness();
  // Candidates, nearest first: just above the working range, just below it, about twice the
  // size; each in steps of the symbol's granule from the witness (attempts 0 to 2), so that
  // every floor of the graph keeps the remainder it has where the graph runs, then in steps of
  // 1 (attempts 3 to 5, only where the granule is more than 1).
  constexpr int kAttempts = 6;
  auto candidate = [&](const std::string& s, int attempt) -> std::optional<int64_t> {
    auto range = solution_.RangeOf(s);
    auto w = witness.Get(s);
    if (!range || !w) return std::nullopt;
    const int64_t granule = StepNear(granules_.Of(s), *w);
    if (attempt >= 3 && granule == 1) return std::nullopt;
    const int64_t g = attempt < 3 ? granule : 1;
    std::optional<int64_t> v;
    // The first size past the range's end, and the last before its start, the witness moved
    // by whole steps; with a step of 1, the end plus 1 and the start less 1.
    if (attempt % 3 == 0 && range->second < kScanLimit) {
      v = *w + (std::max<int64_t>(range->second - *w, 0) / g + 1) * g;
    }
    if (attempt % 3 == 1 && range->first > 1) {
      const int64_t below = *w - (std::max<int64_t>(*w - range->first, 0) / g + 1) * g;
      if (below >= 1) v = below;
    }
    // About twice the size: 2w + 1 in steps of 1 (an odd size next to the even ones exports
    // use), w plus whole steps past w in steps of a granule.
    if (attempt % 3 == 2) v = g == 1 ? 2 * *w + 1 : *w + (*w + g - 1) / g * g;
    // Outside what the exporter claims the program for, a failure is no news.
    if (v && !WithinBounds(recorded_, s, *v)) return std::nullopt;
    return v;
  };
  // One symbol at a time first, in the inputs' axis order (batch and sequence before the
  // features a layer's weights fix in eager too): the smallest change that breaks the graph
  // shows what was baked, where moving everything at once also moves sizes eager rejects.
  const std::vector<std::string> ordered = InAxisOrder(symbols);
  // With `own`, first the moves at which it fails itself, then any that break the graph.
  for (const bool itself : {own != nullptr, false}) {
    for (int attempt = 0; attempt < kAttempts; ++attempt) {
      for (const auto& s : ordered) {
        const std::optional<int64_t> v = candidate(s, attempt);
        if (!v) continue;
        for (const sym::Binding& b : Moved(witness, s, *v, symbols)) {
          if (itself && HoldsUnder(*own, b) != false) continue;
          if (FirstFailure(b)) return b;
        }
      }
    }
    if (!itself) break;
  }
  // Then all together: a relation between them may hold whenever one moves alone.
  for (int attempt = 0; attempt < kAttempts; ++attempt) {
    sym::Binding b = witness;
    bool moved = false;
    for (const auto& s : symbols) {
      const std::optional<int64_t> v = candidate(s, attempt);
      if (!v) continue;
      b.Set(s, *v);
      moved = true;
    }
    if (moved && FirstFailure(b)) return b;
  }
  return std::nullopt;
}

std::optional<Counterexample> GraphEvaluator::CounterexampleFor(
    const std::vector<std::string>& symbols, const infer::Requirement* own) const {
  auto binding = MoveSymbols(symbols, own);
  if (binding) return CounterexampleAt(*binding);
  // Requirements that no sizes satisfy together: the model breaks wherever it is tried,
  // including at the sizes the search ended on.
  const bool unsolvable = std::any_of(symbols.begin(), symbols.end(),
                                      [&](const std::string& s) { return solution_.Unsolved(s); });
  if (unsolvable) return CounterexampleAt(solution_.witness());
  return std::nullopt;
}

namespace {

// `node` and every node its outputs reach.
absl::flat_hash_set<int> Downstream(const ir::Graph& graph, int node) {
  absl::flat_hash_set<int> downstream{node};
  std::deque<int> queue{node};
  while (!queue.empty()) {
    const int n = queue.front();
    queue.pop_front();
    for (const auto& out : graph.node(n).output()) {
      for (int c : graph.Consumers(out)) {
        if (downstream.insert(c).second) queue.push_back(c);
      }
    }
  }
  return downstream;
}

}  // namespace

std::optional<Counterexample> GraphEvaluator::FailureNearExample(
    const sym::Binding& example, const std::vector<std::string>& symbols, const ir::Graph& graph,
    int node, const std::vector<SizeProbe>& exact) const {
  // Nodes the literal's effect can reach: a failure elsewhere has another cause.
  const absl::flat_hash_set<int> downstream = Downstream(graph, node);
  sym::Binding base = solution_.witness();
  example.ForEach([&](std::string_view s, int64_t v) { base.Set(s, v); });
  auto try_probe = [&](const std::string& symbol, int64_t v,
                       bool exact_probe) -> std::optional<Counterexample> {
    const auto d = example.Get(symbol);
    if (!d || v < 1 || v == *d || !WithinBounds(recorded_, symbol, v)) return std::nullopt;
    for (const sym::Binding& b : Moved(base, symbol, v, symbols)) {
      auto failure = FirstFailure(b);
      if (!failure || failure->requirement->kind == RequirementKind::kDeclaredShape ||
          failure->requirement->graph != &graph ||
          !downstream.contains(failure->requirement->node)) {
        continue;
      }
      // A divisibility failure (Reshape with -1, pixel shuffle) happens in eager PyTorch too,
      // unless the literal itself is what no longer divides, at a size where eager's own value
      // of it would.
      if (failure->requirement->relation == Relation::kDivisible &&
          !(exact_probe && failure->requirement->node == node)) {
        continue;
      }
      return CounterexampleAt(b);
    }
    return std::nullopt;
  };
  for (const SizeProbe& p : exact) {
    if (std::find(symbols.begin(), symbols.end(), p.symbol) == symbols.end()) continue;
    if (auto c = try_probe(p.symbol, p.value, true)) return c;
  }
  for (const auto& s : symbols) {
    const auto d = example.Get(s);
    if (!d) continue;
    const int64_t g = StepNear(granules_.Of(s), *d);
    const std::vector<int64_t> sizes =
        g > 1 ? std::vector<int64_t>{*d + g, *d - g, 2 * *d, *d - 1, *d + 1, *d / 2}
              : std::vector<int64_t>{*d - 1, *d + 1, *d / 2, 2 * *d};
    for (int64_t v : sizes) {
      if (auto c = try_probe(s, v, false)) return c;
    }
  }
  return std::nullopt;
}

std::optional<sym::Binding> BindInputShapes(
    const ir::Model& model, const infer::Inference& inference,
    const std::vector<std::pair<std::string, std::vector<int64_t>>>& shapes, std::string* why) {
  auto fail = [&](std::string reason) -> std::optional<sym::Binding> {
    if (why != nullptr) *why = std::move(reason);
    return std::nullopt;
  };
  sym::Binding b;
  for (const auto& [input, dims] : shapes) {
    int64_t rank = 0;
    for (const infer::InputDim& d : inference.input_dims) {
      if (d.input != input) continue;
      ++rank;
      if (d.axis >= static_cast<int64_t>(dims.size())) {
        return fail(absl::StrCat("input '", input, "' has rank ", dims.size(),
                                 " here and a higher one in the model"));
      }
      if (!d.dim) return fail(absl::StrCat("input '", input, "' axis ", d.axis, " is unknown"));
      const int64_t v = dims[d.axis];
      if (auto c = d.dim->AsConstant()) {
        if (*c != v) {
          return fail(
              absl::StrCat("input '", input, "' axis ", d.axis, " is static, ", *c, ", not ", v));
        }
      } else if (auto name = d.dim->AsSymbol()) {
        auto bound = b.Get(*name);
        if (bound && *bound != v) {  // one symbol, two sizes
          return fail(absl::StrCat("input '", input, "' axis ", d.axis, " is ", std::string(*name),
                                   ", which another dim makes ", *bound, ", not ", v));
        }
        b.Set(*name, v);
      }
    }
    if (rank != static_cast<int64_t>(dims.size())) {
      const auto& inputs = model.graph().proto().input();
      const std::string& wanted = input;  // a structured binding no lambda may capture
      if (std::none_of(inputs.begin(), inputs.end(),
                       [&](const auto& i) { return i.name() == wanted; })) {
        return fail(absl::StrCat("the model has no input '", input, "'"));
      }
      return fail(
          absl::StrCat("input '", input, "' has rank ", rank, " in the model, not ", dims.size()));
    }
  }
  // A dim the inputs declare as an expression of symbols (torch.export's 2*s27 for a skip
  // connection twice the size of another input) holds at the bound sizes or the shapes do
  // not fit the model.
  for (const auto& [input, dims] : shapes) {
    for (const infer::InputDim& d : inference.input_dims) {
      if (d.input != input || !d.dim || d.dim->AsConstant() || d.dim->AsSymbol()) continue;
      const std::optional<int64_t> v = d.dim->Evaluate(b);
      if (v && *v != dims[d.axis]) {
        return fail(absl::StrCat("input '", input, "' axis ", d.axis, " is declared ",
                                 d.dim->ToString(), ", which is ", *v, " at these sizes, not ",
                                 dims[d.axis]));
      }
    }
  }
  return b;
}

}  // namespace shapelint::lint
