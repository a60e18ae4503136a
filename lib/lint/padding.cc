#include "lint/padding.h"

#include <algorithm>
#include <deque>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"

namespace shapelint::lint {
namespace {

// How many nodes upstream of the Reshape the Pad is looked for: a Swin block puts attention
// (some 40 nodes with their shape arithmetic) between its pad and the view back.
constexpr int kMaxNodesWalked = 512;

// Sizes, not arithmetic near int64's limits: a larger one is no size a pad completes.
constexpr int64_t kLargestSize = int64_t{1} << 40;

// The first axis `pad` grows at `fails` and not at `holds`.
std::optional<UncroppedPad> GrowsThere(const Analysis& analysis, const ir::Graph& graph,
                                       const ir::Node& pad, const sym::Binding& holds,
                                       const sym::Binding& fails) {
  if (pad.input_size() < 1 || pad.output_size() < 1) return std::nullopt;
  const infer::TensorFact* in = analysis.inference().FindIn(graph, pad.input(0));
  const infer::TensorFact* out = analysis.inference().FindIn(graph, pad.output(0));
  if (in == nullptr || out == nullptr || !in->shape || !out->shape ||
      in->shape->size() != out->shape->size()) {
    return std::nullopt;
  }
  sym::Evaluator at_holds(holds), at_fails(fails);
  for (size_t axis = 0; axis < in->shape->size(); ++axis) {
    const sym::MaybeExpr& before = (*in->shape)[axis];
    const sym::MaybeExpr& after = (*out->shape)[axis];
    const sym::MaybeExpr growth = sym::Sub(after, before);
    if (!growth) continue;
    const std::optional<int64_t> there = at_fails(*growth), here = at_holds(*growth);
    if (there && here && *here == 0 && *there > 0) {
      return UncroppedPad{pad.index(), static_cast<int64_t>(axis), growth, *there};
    }
  }
  return std::nullopt;
}

// What `pad` adds along `axis`, where both its amounts there are literals; nullopt otherwise
// (opset 11's pads input only: the attribute of older opsets is no trace's).
std::optional<int64_t> LiteralAmount(const Analysis& analysis, const ir::Graph& graph,
                                     const ir::Node& pad, size_t axis, size_t rank) {
  if (pad.input_size() < 2) return std::nullopt;
  const infer::TensorFact* pads = analysis.inference().FindIn(graph, pad.input(1));
  if (pads == nullptr || !pads->values || pads->values->size() != 2 * rank) return std::nullopt;
  int64_t amount = 0;
  for (const size_t i : {axis, axis + rank}) {
    const infer::Element& e = (*pads->values)[i];
    const infer::Origin* origin = analysis.inference().OriginOf(e.origin);
    const std::optional<int64_t> v = e.value ? e.value->AsConstant() : std::nullopt;
    if (!v || *v < 0 || origin == nullptr || !origin->IsLiteral()) return std::nullopt;
    amount += *v;
  }
  return amount;
}

// The size of another axis of a Pad whose amount the graph computes from it (no literal) and
// that it grows to a multiple of `k` at the witness and a size on: what code that pads to a
// window writes, k - h % k or (k - h % k) % k.
std::optional<std::string> ComputedToMultiple(const Analysis& analysis, const infer::TensorFact& in,
                                              const infer::TensorFact& pads, size_t axis,
                                              int64_t k) {
  const size_t rank = in.shape->size();
  for (size_t other = 0; other < rank; ++other) {
    if (other == axis) continue;
    const sym::MaybeExpr& dim = (*in.shape)[other];
    const sym::MaybeExpr& begin = (*pads.values)[other].value;
    const sym::MaybeExpr& end = (*pads.values)[other + rank].value;
    const sym::MaybeExpr grown = sym::Add(dim, sym::Add(begin, end));
    const sym::MaybeExpr amount = sym::Add(begin, end);
    if (!dim || !grown || !amount || amount->AsConstant() || dim->AsConstant()) continue;
    const std::vector<std::string> symbols = dim->Symbols();
    if (symbols.size() != 1) continue;
    sym::Binding at = analysis.witness();
    bool multiple = true;
    for (int step = 0; step < 2 && multiple; ++step) {
      const std::optional<int64_t> g = grown->Evaluate(at);
      const std::optional<int64_t> s = at.Get(symbols[0]);
      multiple = g && s && *s < kLargestSize && *g % k == 0;
      if (multiple) at.Set(symbols[0], *s + 1);
    }
    if (multiple) return dim->ToString();
  }
  return std::nullopt;
}

// The nodes upstream of `node` in `graph`, nearest first, at most kMaxNodesWalked: through all
// its inputs, or only its first (`data_only`: a Reshape's data, not its target's arithmetic).
template <typename Visit>
void WalkUp(const ir::Graph& graph, int node, bool data_only, Visit visit) {
  std::deque<int> queue;
  absl::flat_hash_set<int> seen;
  const ir::Node start = graph.node(node);
  for (int i = 0; i < (data_only ? std::min(1, start.input_size()) : start.input_size()); ++i) {
    const int producer = graph.Producer(start.input(i));
    if (producer >= 0 && seen.insert(producer).second) queue.push_back(producer);
  }
  for (int walked = 0; !queue.empty() && walked < kMaxNodesWalked; ++walked) {
    const ir::Node n = graph.node(queue.front());
    queue.pop_front();
    if (visit(n)) return;
    for (int i = 0; i < n.input_size(); ++i) {
      const int producer = graph.Producer(n.input(i));
      if (producer >= 0 && seen.insert(producer).second) queue.push_back(producer);
    }
  }
}

// The first Pad the walk up from `node` meets that grows an axis at `fails` and not at `holds`.
std::optional<UncroppedPad> GrowingUpstream(const Analysis& analysis, const ir::Graph& graph,
                                            int node, bool data_only, const sym::Binding& holds,
                                            const sym::Binding& fails) {
  std::optional<UncroppedPad> grown;
  WalkUp(graph, node, data_only, [&](const ir::Node& n) {
    if (n.op_type() == "Pad") grown = GrowsThere(analysis, graph, n, holds, fails);
    return grown.has_value();
  });
  return grown;
}

}  // namespace

std::optional<UncroppedPad> PadGrowingBefore(const Analysis& analysis, const ir::Graph& graph,
                                             int node, const sym::Binding& holds,
                                             const sym::Binding& fails) {
  return GrowingUpstream(analysis, graph, node, /*data_only=*/false, holds, fails);
}

std::optional<PadToResidue> LiteralPadToResidue(const Analysis& analysis,
                                                const infer::Requirement& requirement,
                                                const Witness& classes) {
  const infer::Requirement& r = requirement;
  if (r.graph == nullptr || r.node < 0) return std::nullopt;
  const ir::Graph& graph = *r.graph;
  std::optional<PadToResidue> found;
  WalkUp(graph, r.node, /*data_only=*/false, [&](const ir::Node& n) {
    if (n.op_type() != "Pad" || n.input_size() < 2) return false;
    const infer::TensorFact* in = analysis.inference().FindIn(graph, n.input(0));
    const infer::TensorFact* pads = analysis.inference().FindIn(graph, n.input(1));
    if (in == nullptr || !in->shape || pads == nullptr || !pads->values) return false;
    const size_t rank = in->shape->size();
    if (pads->values->size() != 2 * rank) return false;
    for (size_t axis = 0; axis < rank && !found; ++axis) {
      const sym::MaybeExpr& dim = (*in->shape)[axis];
      const std::optional<int64_t> amount = LiteralAmount(analysis, graph, n, axis, rank);
      if (!dim || !amount || *amount > kLargestSize) continue;
      for (const SymbolRange& c : classes.ranges) {
        if (!c.every || *c.every < 2 || !c.congruent_from || !c.min || c.min != c.max) continue;
        const int64_t k = *c.every;
        const int64_t residue = ((*c.min % k) + k) % k;
        const sym::MaybeExpr offset = sym::Sub(dim, sym::Expr::Symbol(c.symbol));
        const std::optional<int64_t> shift = offset ? offset->AsConstant() : std::nullopt;
        if (!shift || *shift > kLargestSize || *shift < -kLargestSize ||
            (((residue + *shift + *amount) % k) + k) % k != 0) {
          continue;
        }
        if (residue != 0 && *amount > 0) {
          found = PadToResidue{n.index(), c.symbol, *amount, k, residue, std::nullopt};
          break;
        }
        // The multiples themselves, where the same Pad grows another axis to a multiple of k at
        // every size by an amount computed from it (Real-ESRGAN's 2 - h % 2 under `if h % 2`):
        // this axis' literal is the branch the trace did not take.
        if (residue == 0) {
          if (std::optional<std::string> other =
                  ComputedToMultiple(analysis, *in, *pads, axis, k)) {
            found = PadToResidue{n.index(), c.symbol, *amount, k, 0, *other};
            break;
          }
        }
      }
    }
    return found.has_value();
  });
  return found;
}

std::optional<UncroppedPad> PadNotCroppedBefore(const Analysis& analysis,
                                                const infer::Requirement& requirement,
                                                const sym::Binding& fails) {
  const infer::Requirement& r = requirement;
  if (r.kind != infer::RequirementKind::kReshapeCount || r.relation != infer::Relation::kEqual ||
      r.graph == nullptr || r.node < 0) {
    return std::nullopt;
  }
  // The input holds more elements than the target there: what padding leaves behind.
  sym::Evaluator evaluate(fails);
  const std::optional<int64_t> input = evaluate(r.lhs), target = evaluate(r.rhs);
  if (!input || !target || *input <= *target) return std::nullopt;
  return GrowingUpstream(analysis, *r.graph, r.node, /*data_only=*/true, analysis.witness(), fails);
}

}  // namespace shapelint::lint
