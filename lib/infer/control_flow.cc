// Control flow: If, Loop and Scan. Their bodies are subgraphs inferred in the scope of the node
// (outer values visible), nested to any depth.
//
// Where the data decides (which branch runs, how many iterations), a dim that the alternatives
// disagree on becomes a fresh symbol named after the node, so that what follows still
// propagates symbolically and no branch's constant is taken for the truth.
#include "absl/strings/str_cat.h"
#include "infer/op_context.h"
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
  }
  if (a.values && b.values && SameValues(*a.values, *b.values)) f.values = a.values;
  return f;
}

// A scalar of `elem_type`, such as Loop's iteration number and condition.
TensorFact Scalar(int32_t elem_type) {
  TensorFact f;
  f.elem_type = elem_type;
  f.shape = Dims{};
  return f;
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
  auto out = runner.RunSubgraph(ctx, *body, general, false);
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

// Scan (opset 9+): N state variables and M scan inputs; the body sees one slice per step.
void InferScan(OpContext& ctx, SubgraphRunner& runner) {
  const ir::Graph* body = ctx.graph().Subgraph(ctx.node_index(), "body");
  if (body == nullptr || ctx.opset() < 9) return;  // opset 8 has a batch axis: not modelled
  auto num_scan_inputs = ctx.AttrInt("num_scan_inputs");
  if (!num_scan_inputs || *num_scan_inputs < 0 ||
      *num_scan_inputs > static_cast<int64_t>(ctx.num_inputs())) {
    return;
  }
  const size_t m = *num_scan_inputs, n = ctx.num_inputs() - m;
  auto input_axes = ctx.AttrInts("scan_input_axes").value_or(std::vector<int64_t>(m, 0));
  if (input_axes.size() != m) return;
  std::vector<TensorFact> inputs;
  for (size_t i = 0; i < n; ++i) inputs.push_back(ctx.in(i));
  sym::MaybeExpr length;
  for (size_t j = 0; j < m; ++j) {
    const TensorFact& x = ctx.in(n + j);
    TensorFact slice;
    slice.elem_type = x.elem_type;
    if (x.shape) {
      auto axis = NormalizeAxis(input_axes[j], x.rank());
      if (!axis) return;
      Dims dims = *x.shape;
      if (j == 0) length = dims[*axis];
      ctx.Require(RequirementKind::kConcatDim, Relation::kEqual, dims[*axis], length,
                  absl::StrCat("Scan input ", j, " has the scan length along axis ", *axis),
                  kNoOrigin, *axis);
      dims.erase(dims.begin() + *axis);
      slice.shape = std::move(dims);
    }
    inputs.push_back(std::move(slice));
  }
  auto out = runner.RunSubgraph(ctx, *body, inputs, true);
  for (size_t i = 0; i < n && i < ctx.num_outputs() && i < out.size(); ++i) {
    ctx.out(i) = Merge(inputs[i], out[i], [&](size_t axis) -> sym::MaybeExpr {
      return ctx.FreshSymbol(absl::StrCat("state", i, ":", axis));
    });
  }
  const size_t k_count = ctx.num_outputs() > n ? ctx.num_outputs() - n : 0;
  auto output_axes = ctx.AttrInts("scan_output_axes").value_or(std::vector<int64_t>(k_count, 0));
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
    ctx.out(n + k) = std::move(f);
  }
}

}  // namespace

ControlFlowFn FindControlFlow(std::string_view op_type) {
  if (op_type == "If") return InferIf;
  if (op_type == "Loop") return InferLoop;
  if (op_type == "Scan") return InferScan;
  return nullptr;
}

}  // namespace shapelint::infer
