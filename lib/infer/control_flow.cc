// Control flow: If, Loop and Scan. Their bodies are subgraphs inferred in the scope of the node
// (outer values visible), nested to any depth.
//
// Where the data decides (which branch runs, how many iterations), a dim that the alternatives
// disagree on becomes a fresh symbol named after the node, so that what follows still
// propagates symbolically and no branch's constant is taken for the truth.
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "infer/op_context.h"
#include "infer/ops.h"
#include "infer/tensor_util.h"
#include "shapelint/ir/model.h"

namespace shapelint::infer {
namespace {

using ONNX_NAMESPACE::TensorProto;

bool SameValues(const std::vector<Element>& a, const std::vector<Element>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].value != b[i].value) return false;
  }
  return true;
}

// What is known whichever of `a` and `b` holds. Dims both know but disagree on become
// `fresh(axis)`; a rank they disagree on is unknown.
template <typename Fresh>
TensorFact Merge(const TensorFact& a, const TensorFact& b, Fresh fresh) {
  TensorFact f;
  f.elem_type = a.elem_type != 0 ? a.elem_type : b.elem_type;
  if (a.shape && b.shape && a.shape->size() == b.shape->size()) {
    Dims dims;
    for (size_t i = 0; i < a.shape->size(); ++i) {
      const sym::MaybeExpr& x = (*a.shape)[i];
      const sym::MaybeExpr& y = (*b.shape)[i];
      if (x && y && *x == *y) {
        dims.push_back(x);
      } else if (x && y) {
        dims.push_back(fresh(i));
      } else {
        dims.push_back(std::nullopt);
      }
    }
    f.shape = std::move(dims);
  } else if (a.shape && b.shape) {
    f.ambiguous_rank = true;
  }
  f.ambiguous_rank = f.ambiguous_rank || a.ambiguous_rank || b.ambiguous_rank;
  if (a.values && b.values && SameValues(*a.values, *b.values)) f.values = a.values;
  return f;
}

// True when `a` and `b` say the same of a tensor, `b` being no more than a shape and values
// (what Merge keeps).
bool SameFact(const TensorFact& a, const TensorFact& b) {
  if (a.elem_type != b.elem_type || a.ambiguous_rank != b.ambiguous_rank || a.shape != b.shape) {
    return false;
  }
  if (a.forms || a.sequence || b.forms || b.sequence) return false;
  if (a.values.has_value() != b.values.has_value()) return false;
  return !a.values || SameValues(*a.values, *b.values);
}

// True when the first `n` facts of `a` and `b` have the same known shapes.
bool SameShapes(const std::vector<TensorFact>& a, const std::vector<TensorFact>& b, size_t n) {
  if (a.size() < n || b.size() < n) return false;
  for (size_t i = 0; i < n; ++i) {
    if (!SameKnownShape(a[i], b[i])) return false;
  }
  return true;
}

// True when a trip count is known to be at least 1: a positive constant, or a graph-input
// dim (symbols stand for sizes of at least 1).
bool AtLeastOne(const sym::MaybeExpr& count) {
  if (!count) return false;
  if (auto c = count->AsConstant()) return *c >= 1;
  return count->AsSymbol().has_value();
}

// A scalar of `elem_type`, such as Loop's iteration number and condition.
TensorFact Scalar(int32_t elem_type) {
  TensorFact f;
  f.elem_type = elem_type;
  f.shape = Dims{};
  return f;
}

// Loops this short, whose iteration count and condition the engine knows at every step, are
// inferred one iteration at a time with the iteration number as a constant: exact where the
// general pass has to give up (a Slice at [i, i + 1]).
inline constexpr int64_t kMaxUnrolledIterations = 16;

// The constant value of a scalar fact.
std::optional<int64_t> ScalarValue(const TensorFact& f) {
  if (!f.values || f.values->size() != 1 || !(*f.values)[0].value) return std::nullopt;
  return (*f.values)[0].value->AsConstant();
}

TensorFact ScalarOf(int32_t elem_type, int64_t value) {
  TensorFact f = Scalar(elem_type);
  f.values = std::vector<Element>{{sym::Expr::Constant(value)}};
  return f;
}

// True when `graph` holds a Loop or Scan at any depth: unrolling those too could multiply.
bool HasNestedLoop(const ir::Graph& graph) {
  for (int i = 0; i < graph.num_nodes(); ++i) {
    const auto& op = graph.node(i).op_type();
    if (op == "Loop" || op == "Scan") return true;
    for (int k = 0; k < graph.node(i).attribute_size(); ++k) {
      const ir::Graph* sub = graph.Subgraph(i, graph.node(i).attribute_name(k));
      if (sub != nullptr && HasNestedLoop(*sub)) return true;
    }
  }
  return false;
}

// Runs `body` iteration by iteration when that is known to end within the cap; fills the
// Loop's outputs and returns true, or returns false having written nothing.
bool UnrollLoop(OpContext& ctx, SubgraphRunner& runner, const ir::Graph& body,
                const std::vector<TensorFact>& inputs) {
  std::optional<int64_t> max_trips;
  if (ctx.has_input(0)) {
    max_trips = ScalarValue(ctx.in(0));
    if (!max_trips || *max_trips < 0 || *max_trips > kMaxUnrolledIterations) return false;
  }
  std::optional<int64_t> cond = ctx.has_input(1) ? ScalarValue(ctx.in(1)) : 1;
  if (!cond || HasNestedLoop(body)) return false;
  const size_t carried = inputs.size() - 2;
  std::vector<TensorFact> states(inputs.begin() + 2, inputs.end());
  std::vector<std::vector<TensorFact>> scans;  // per iteration, the scan outputs
  int64_t k = 0;
  for (; *cond != 0 && (!max_trips || k < *max_trips); ++k) {
    if (k >= kMaxUnrolledIterations) return false;
    std::vector<TensorFact> step{ScalarOf(TensorProto::INT64, k), ScalarOf(TensorProto::BOOL, 1)};
    step.insert(step.end(), states.begin(), states.end());
    auto out = runner.RunSubgraph(ctx, body, std::move(step), false);
    if (out.size() < 1 + carried) return false;
    cond = ctx.has_input(1) ? ScalarValue(out[0]) : 1;  // no cond input: the body's is ignored
    if (!cond) return false;
    for (size_t i = 0; i < carried; ++i) states[i] = out[1 + i];
    scans.emplace_back(out.begin() + 1 + carried, out.end());
  }
  for (size_t i = 0; i < carried && i < ctx.num_outputs(); ++i) ctx.out(i) = states[i];
  // Scan outputs stack the iterations' values, which must have one shape.
  for (size_t j = 0; carried + j < ctx.num_outputs(); ++j) {
    TensorFact f;
    if (!scans.empty() && j < scans[0].size()) {
      f.elem_type = scans[0][j].elem_type;
      bool same = scans[0][j].shape.has_value();
      for (const auto& iteration : scans) {
        same = same && j < iteration.size() && iteration[j].shape == scans[0][j].shape;
      }
      if (same) {
        Dims dims{sym::Expr::Constant(k)};
        dims.insert(dims.end(), scans[0][j].shape->begin(), scans[0][j].shape->end());
        f.shape = std::move(dims);
      }
    }
    ctx.out(carried + j) = std::move(f);
  }
  return true;
}

void InferIf(OpContext& ctx, SubgraphRunner& runner) {
  const ir::Graph* then_branch = ctx.graph().Subgraph(ctx.node_index(), "then_branch");
  const ir::Graph* else_branch = ctx.graph().Subgraph(ctx.node_index(), "else_branch");
  if (then_branch == nullptr || else_branch == nullptr) return;
  // A condition known at export time (often a folded shape test) selects one branch, and only
  // that branch's requirements are real.
  if (auto cond = ctx.ConstInts(0); cond && cond->size() == 1) {
    auto out = runner.RunSubgraph(ctx, (*cond)[0] != 0 ? *then_branch : *else_branch, {}, true);
    for (size_t k = 0; k < out.size() && k < ctx.num_outputs(); ++k) ctx.out(k) = out[k];
    return;
  }
  auto a = runner.RunSubgraph(ctx, *then_branch, {}, false);
  auto b = runner.RunSubgraph(ctx, *else_branch, {}, false);
  for (size_t k = 0; k < ctx.num_outputs() && k < a.size() && k < b.size(); ++k) {
    ctx.out(k) = Merge(a[k], b[k], [&](size_t axis) -> sym::MaybeExpr {
      return ctx.FreshSymbol(absl::StrCat("out", k, ":", axis));
    });
  }
}

// Loop(M, cond, v_initial...) runs body(iteration_num, cond, v...) -> (cond, v..., scan...).
void InferLoop(OpContext& ctx, SubgraphRunner& runner) {
  const ir::Graph* body = ctx.graph().Subgraph(ctx.node_index(), "body");
  if (body == nullptr) return;
  const size_t carried = ctx.num_inputs() >= 2 ? ctx.num_inputs() - 2 : 0;
  std::vector<TensorFact> inputs{Scalar(TensorProto::INT64), Scalar(TensorProto::BOOL)};
  for (size_t i = 0; i < carried; ++i) inputs.push_back(ctx.in(i + 2));
  if (UnrollLoop(ctx, runner, *body, inputs)) return;
  // First pass with the initial values: dims an iteration changes become fresh symbols, and
  // the body is inferred again with those, so its outputs hold for every iteration.
  auto first = runner.RunSubgraph(ctx, *body, inputs, false);
  std::vector<TensorFact> general = {inputs[0], inputs[1]};
  for (size_t i = 0; i < carried; ++i) {
    const TensorFact& out = i + 1 < first.size() ? first[i + 1] : TensorFact{};
    general.push_back(Merge(inputs[i + 2], out, [&](size_t axis) -> sym::MaybeExpr {
      return ctx.FreshSymbol(absl::StrCat("carried", i, ":", axis));
    }));
  }
  // Where no iteration changes what is known of a carried value, the second pass would infer
  // exactly the first again; skipping it keeps nested Loops linear in their depth.
  const bool settled =
      std::equal(general.begin() + 2, general.end(), inputs.begin() + 2, inputs.end(), SameFact);
  auto out = settled ? std::move(first) : runner.RunSubgraph(ctx, *body, general, false);
  for (size_t i = 0; i < carried && i < ctx.num_outputs(); ++i) ctx.out(i) = general[i + 2];
  // Scan outputs stack one body output per iteration. The trip count is the constant M only
  // when the body's condition is constantly true; otherwise the data decides.
  sym::MaybeExpr trips;
  auto m = ctx.ConstInts(0);
  const TensorFact& cond_out = out.empty() ? TensorFact{} : out[0];
  bool always_true = cond_out.values && cond_out.values->size() == 1 &&
                     (*cond_out.values)[0].value && (*cond_out.values)[0].value->AsConstant() == 1;
  if (m && m->size() == 1 && (*m)[0] >= 0 && (always_true || !ctx.has_input(1))) {
    trips = sym::Expr::Constant((*m)[0]);
  } else {
    trips = ctx.FreshSymbol("trip_count");
  }
  for (size_t k = carried; k < ctx.num_outputs(); ++k) {
    const size_t body_index = k + 1;
    if (body_index >= out.size()) break;
    TensorFact f;
    f.elem_type = out[body_index].elem_type;
    if (out[body_index].shape) {
      Dims dims{trips};
      dims.insert(dims.end(), out[body_index].shape->begin(), out[body_index].shape->end());
      f.shape = std::move(dims);
    }
    ctx.out(k) = std::move(f);
  }
}

// Scan: N state variables and M scan inputs; the body sees one slice per step. Scan-8 puts
// an optional sequence_lens input first and a batch axis 0 in front of every state, scan
// input and output (scan inputs are [batch, sequence, ...], always scanned along axis 1);
// the body sees no batch axis. Scan-9 drops both and scans along scan_input_axes.
// Scan-8 carries a batch axis in front of every state and scan input and output, which the
// body does not see; from Scan-9 on there is none.
struct ScanBatch {
  OpContext& ctx;
  bool batched;
  sym::MaybeExpr size;  // the batch size, from the first operand that has one

  // Drops the batch axis from `fact`, requiring it to equal the batch size.
  TensorFact Drop(const TensorFact& fact, const std::string& what) {
    TensorFact f = fact;
    f.values.reset();
    if (!batched || !f.shape) return f;
    if (f.shape->empty()) {  // no batch axis to drop: the model is invalid
      TensorFact unknown;
      unknown.elem_type = f.elem_type;
      return unknown;
    }
    if (!size) size = f.shape->front();
    ctx.Require(RequirementKind::kConcatDim, Relation::kEqual, f.shape->front(), size,
                absl::StrCat("Scan ", what, " has the batch size along axis 0"), kNoOrigin, 0);
    f.shape->erase(f.shape->begin());
    return f;
  }
  // Puts the batch axis back in front of an output.
  TensorFact Restore(TensorFact f) const {
    if (batched && f.shape) f.shape->insert(f.shape->begin(), size);
    return f;
  }
};

// The body's inputs: the `n` states, then one step's slice of each of the `m` scan inputs
// (their scan axis removed, every one required to have the first one's length, `length`).
// nullopt when a scan axis is out of range.
std::optional<std::vector<TensorFact>> ScanBodyInputs(OpContext& ctx, ScanBatch& batch,
                                                      size_t first, size_t n, size_t m,
                                                      const std::vector<int64_t>& input_axes,
                                                      sym::MaybeExpr& length) {
  std::vector<TensorFact> inputs;
  for (size_t i = 0; i < n; ++i) {
    inputs.push_back(batch.batched ? batch.Drop(ctx.in(first + i), absl::StrCat("state ", i))
                                   : ctx.in(first + i));
  }
  for (size_t j = 0; j < m; ++j) {
    TensorFact x = batch.Drop(ctx.in(first + n + j), absl::StrCat("input ", j));
    TensorFact slice;
    slice.elem_type = x.elem_type;
    if (x.shape) {
      // Scan-8's axis 1 is axis 0 once the batch axis is gone.
      auto axis = NormalizeAxis(batch.batched ? 0 : input_axes[j], x.rank());
      if (!axis) return std::nullopt;
      Dims dims = *x.shape;
      if (j == 0) length = dims[*axis];
      const int64_t shown = batch.batched ? 1 : *axis;
      ctx.Require(RequirementKind::kConcatDim, Relation::kEqual, dims[*axis], length,
                  absl::StrCat("Scan input ", j, " has the scan length along axis ", shown),
                  kNoOrigin, shown);
      dims.erase(dims.begin() + *axis);
      slice.shape = std::move(dims);
    }
    inputs.push_back(std::move(slice));
  }
  return inputs;
}

// The final states. A state whose shape the first step changes (a broadcast that makes it
// max(init, slice)) often settles there: the body runs again from the first step's states, and
// if it gives them back, that is the final state of every scan that takes at least one step.
// Otherwise each dim the step changes becomes a fresh symbol.
void ScanStates(OpContext& ctx, SubgraphRunner& runner, const ir::Graph& body,
                const ScanBatch& batch, const std::vector<TensorFact>& inputs,
                const std::vector<TensorFact>& out, size_t n, const sym::MaybeExpr& length) {
  size_t n_done = 0;
  std::vector<TensorFact> states(out.begin(), out.begin() + std::min(n, out.size()));
  if (!SameShapes(inputs, states, n) && states.size() == n && AtLeastOne(length)) {
    std::vector<TensorFact> again = inputs;
    for (size_t i = 0; i < n; ++i) again[i] = states[i];
    auto second = runner.RunSubgraph(ctx, body, again, false);
    if (SameShapes(states, second, n)) {
      for (size_t i = 0; i < n && i < ctx.num_outputs(); ++i) {
        TensorFact f = states[i];
        f.values.reset();
        ctx.out(i) = batch.Restore(std::move(f));
      }
      n_done = n;
    }
  }
  for (size_t i = n_done; i < n && i < ctx.num_outputs() && i < out.size(); ++i) {
    ctx.out(i) = batch.Restore(Merge(inputs[i], out[i], [&](size_t axis) -> sym::MaybeExpr {
      return ctx.FreshSymbol(absl::StrCat("state", i, ":", axis));
    }));
  }
}

// The scan outputs: each step's output stacked along its scan axis, `length` long.
void ScanOutputs(OpContext& ctx, const ScanBatch& batch, const std::vector<TensorFact>& out,
                 size_t n, const sym::MaybeExpr& length) {
  const size_t k_count = ctx.num_outputs() > n ? ctx.num_outputs() - n : 0;
  auto output_axes =
      batch.batched ? std::vector<int64_t>(k_count, 0)
                    : ctx.AttrInts("scan_output_axes").value_or(std::vector<int64_t>(k_count, 0));
  if (output_axes.size() != k_count) return;
  for (size_t k = 0; k < k_count && n + k < out.size(); ++k) {
    const TensorFact& step = out[n + k];
    TensorFact f;
    f.elem_type = step.elem_type;
    if (step.shape) {
      Dims dims = *step.shape;
      auto axis = NormalizeAxis(output_axes[k], static_cast<int64_t>(dims.size()) + 1);
      if (!axis) continue;
      dims.insert(dims.begin() + *axis, length);
      f.shape = std::move(dims);
    }
    ctx.out(n + k) = batch.Restore(std::move(f));
  }
}

void InferScan(OpContext& ctx, SubgraphRunner& runner) {
  const ir::Graph* body = ctx.graph().Subgraph(ctx.node_index(), "body");
  if (body == nullptr) return;
  ScanBatch batch{ctx, ctx.opset() < 9, std::nullopt};
  const size_t first = batch.batched ? 1 : 0;  // Scan-8's input 0 is sequence_lens
  auto num_scan_inputs = ctx.AttrInt("num_scan_inputs");
  if (!num_scan_inputs || *num_scan_inputs < 0 || *num_scan_inputs + first > ctx.num_inputs()) {
    return;
  }
  const size_t m = *num_scan_inputs, n = ctx.num_inputs() - first - m;
  auto input_axes = batch.batched
                        ? std::vector<int64_t>(m, 1)
                        : ctx.AttrInts("scan_input_axes").value_or(std::vector<int64_t>(m, 0));
  if (input_axes.size() != m) return;
  sym::MaybeExpr length;
  auto inputs = ScanBodyInputs(ctx, batch, first, n, m, input_axes, length);
  if (!inputs) return;
  auto out = runner.RunSubgraph(ctx, *body, *inputs, true);
  ScanStates(ctx, runner, *body, batch, *inputs, out, n, length);
  ScanOutputs(ctx, batch, out, n, length);
}

}  // namespace

ControlFlowFn FindControlFlow(std::string_view op_type) {
  if (op_type == "If") return InferIf;
  if (op_type == "Loop") return InferLoop;
  if (op_type == "Scan") return InferScan;
  if (op_type == "SequenceMap") return InferSequenceMap;
  return nullptr;
}

}  // namespace shapelint::infer
