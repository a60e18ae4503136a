#include "lint/padding.h"

#include <deque>

#include "absl/container/flat_hash_set.h"

namespace shapelint::lint {
namespace {

// How many nodes upstream of the Reshape the Pad is looked for: a Swin block puts attention
// (some 40 nodes with their shape arithmetic) between its pad and the view back.
constexpr int kMaxNodesWalked = 512;

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

}  // namespace

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
  const ir::Graph& graph = *r.graph;
  const ir::Node reshape = graph.node(r.node);
  if (reshape.input_size() < 1) return std::nullopt;
  const sym::Binding& holds = analysis.witness();
  std::deque<int> queue;
  absl::flat_hash_set<int> seen;
  if (const int producer = graph.Producer(reshape.input(0)); producer >= 0) {
    queue.push_back(producer);
    seen.insert(producer);
  }
  for (int walked = 0; !queue.empty() && walked < kMaxNodesWalked; ++walked) {
    const ir::Node n = graph.node(queue.front());
    queue.pop_front();
    if (n.op_type() == "Pad") {
      if (std::optional<UncroppedPad> grown = GrowsThere(analysis, graph, n, holds, fails)) {
        return grown;
      }
    }
    for (int i = 0; i < n.input_size(); ++i) {
      const int producer = graph.Producer(n.input(i));
      if (producer >= 0 && seen.insert(producer).second) queue.push_back(producer);
    }
  }
  return std::nullopt;
}

}  // namespace shapelint::lint
