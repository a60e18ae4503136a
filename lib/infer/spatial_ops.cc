// Region and sampling ops: MaxRoiPool, RoiAlign, GridSample, AffineGrid, NonMaxSuppression.
#include "absl/strings/str_cat.h"
#include "infer/nn_util.h"
#include "infer/op_context.h"
#include "infer/ops.h"

namespace shapelint::infer {

using nn::C;
using nn::DimOf;
using ONNX_NAMESPACE::TensorProto;
using sym::MaybeExpr;

void InferMaxRoiPool(OpContext& ctx) {
  // MaxRoiPool-1/22: X (N x C x H x W), rois (num_rois, 5) ->
  // (num_rois, channels, pooled_shape[0], pooled_shape[1]).
  const TensorFact& x = ctx.in(0);
  TensorFact& y = ctx.out(0);
  y.elem_type = x.elem_type;
  auto pooled = ctx.AttrInts("pooled_shape");
  if (!pooled || pooled->size() != 2 || (*pooled)[0] < 0 || (*pooled)[1] < 0) return;
  y.shape = Dims{DimOf(ctx.in(1), 0), DimOf(x, 1), C((*pooled)[0]), C((*pooled)[1])};
}

void InferRoiAlign(OpContext& ctx) {
  // RoiAlign-10/16/22: X (N, C, H, W), rois (num_rois, 4), batch_indices (num_rois,) ->
  // (num_rois, C, output_height, output_width), both attributes defaulting to 1.
  const TensorFact& x = ctx.in(0);
  TensorFact& y = ctx.out(0);
  y.elem_type = x.elem_type;
  const int64_t oh = ctx.AttrInt("output_height", 1), ow = ctx.AttrInt("output_width", 1);
  if (oh < 0 || ow < 0) return;
  const MaybeExpr rois = DimOf(ctx.in(1), 0);
  const TensorFact& idx = ctx.in(2);
  if (idx.shape && idx.rank() == 1) {
    ctx.Require(RequirementKind::kBroadcast, Relation::kEqual, (*idx.shape)[0], rois,
                "RoiAlign batch_indices length vs rois axis 0", kNoOrigin, 0);
  }
  y.shape = Dims{rois, DimOf(x, 1), C(oh), C(ow)};
}

void InferGridSample(OpContext& ctx) {
  // GridSample-16: X (N, C, H, W), grid (N, H_out, W_out, 2) -> (N, C, H_out, W_out).
  // GridSample-20/22 generalise to X (N, C, D1..Dr), grid (N, D1_out..Dr_out, r).
  const TensorFact& x = ctx.in(0);
  const TensorFact& grid = ctx.in(1);
  TensorFact& y = ctx.out(0);
  y.elem_type = x.elem_type;
  int64_t rank = x.has_rank() ? x.rank() : grid.rank();
  if (rank < 3 || (grid.has_rank() && grid.rank() != rank)) return;
  if (ctx.opset() < 20 && rank != 4) return;
  if (grid.has_rank()) {
    ctx.Require(RequirementKind::kBroadcast, Relation::kEqual, (*grid.shape)[0], DimOf(x, 0),
                "GridSample grid batch vs input batch", kNoOrigin, 0);
  }
  Dims out{DimOf(x, 0), DimOf(x, 1)};
  for (int64_t i = 1; i + 1 < rank; ++i) out.push_back(DimOf(grid, i));
  y.shape = std::move(out);
}

void InferAffineGrid(OpContext& ctx) {
  // AffineGrid-20: theta (N, 2, 3) or (N, 3, 4), size = (N, C, H, W) or (N, C, D, H, W) ->
  // grid (N, H, W, 2) or (N, D, H, W, 3).
  TensorFact& y = ctx.out(0);
  y.elem_type = ctx.in(0).elem_type;
  if (ctx.opset() < 20) return;
  auto len = nn::VectorLength(ctx, 1);
  if (!len || (*len != 4 && *len != 5)) return;
  auto size = ElementValues(ctx, 1);
  auto at = [&](int64_t i) -> MaybeExpr { return size ? (*size)[i] : MaybeExpr(); };
  Dims out{at(0)};
  for (int64_t i = 2; i < *len; ++i) out.push_back(at(i));
  out.push_back(C(*len - 2));
  y.shape = std::move(out);
}

void InferNonMaxSuppression(OpContext& ctx) {
  // NonMaxSuppression-10/11: selected_indices [num_selected_indices, 3] int64, the count known
  // only at run time.
  TensorFact& y = ctx.out(0);
  y.elem_type = TensorProto::INT64;
  y.shape = Dims{ctx.FreshSymbol("num_selected"), C(3)};
}

}  // namespace shapelint::infer
