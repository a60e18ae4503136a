// Quantisation: QuantizeLinear / DequantizeLinear (same shape as the input in every opset,
// 10 through 23), DynamicQuantizeLinear, and the integer matrix products MatMulInteger and
// QLinearMatMul (numpy matmul shapes, like MatMul).
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "infer/nn_util.h"
#include "infer/op_context.h"
#include "infer/ops.h"

namespace shapelint::infer {
namespace {

using nn::C;
using ONNX_NAMESPACE::TensorProto;
using sym::MaybeExpr;

// Per-axis (de)quantisation (opset 13+): a 1-D scale holds one value per slice of `axis`, so
// its length must be x.shape[axis]. A one-element scale is per-tensor (ORT treats a
// 1-element vector as a scalar), and the blocked form (opset 21, block_size > 0) keeps the
// rank of x instead; neither constrains x here.
void RequirePerAxis(OpContext& ctx, const char* op) {
  if (ctx.opset() < 13) return;
  const TensorFact& x = ctx.in(0);
  const TensorFact& scale = ctx.in(1);
  if (!x.shape || !scale.shape || scale.rank() != 1) return;
  if (ctx.AttrInt("block_size", 0) > 0) return;
  const MaybeExpr& len = (*scale.shape)[0];
  if (!len || len->AsConstant() == 1) return;
  auto axis = NormalizeAxis(ctx.AttrInt("axis", 1), x.rank());
  if (!axis) return;
  ctx.Require(RequirementKind::kChannels, Relation::kEqual, (*x.shape)[*axis], len,
              absl::StrCat(op, " per-axis scale length vs input axis ", *axis), kNoOrigin, *axis);
}

// numpy matmul of the shapes of inputs `ia` and `ib` (the rule of MatMul in linalg.cc),
// with the inner-dimension and batch-broadcast requirements named after `op`.
void MatMulShape(OpContext& ctx, size_t ia, size_t ib, const char* op) {
  const TensorFact& a = ctx.in(ia);
  const TensorFact& b = ctx.in(ib);
  if (!a.shape || !b.shape || a.rank() == 0 || b.rank() == 0) return;
  Dims sa = *a.shape, sb = *b.shape;
  const bool a_vec = sa.size() == 1, b_vec = sb.size() == 1;
  if (a_vec) sa.insert(sa.begin(), C(1));
  if (b_vec) sb.push_back(C(1));
  const size_t ra = sa.size(), rb = sb.size();
  ctx.Require(RequirementKind::kInnerDim, Relation::kEqual, sa[ra - 1], sb[rb - 2],
              absl::StrCat(op, " inner dimension: input ", ia, " axis ", a.rank() - 1, " vs input ",
                           ib, " axis ", b_vec ? 0 : b.rank() - 2),
              kNoOrigin, static_cast<int64_t>(ra - 1));
  const size_t batch = std::max(ra, rb) - 2;
  Dims out;
  for (size_t i = 0; i < batch; ++i) {
    MaybeExpr da = (i + ra - 2 >= batch) ? sa[i + ra - 2 - batch] : C(1);
    MaybeExpr db = (i + rb - 2 >= batch) ? sb[i + rb - 2 - batch] : C(1);
    if (!da || !db) {
      out.push_back(std::nullopt);
    } else if (da->AsConstant() == 1) {
      out.push_back(db);
    } else if (db->AsConstant() == 1 || *da == *db) {
      out.push_back(da);
    } else {
      ctx.Require(RequirementKind::kBroadcast, Relation::kBroadcastable, da, db,
                  absl::StrCat(op, " batch dims broadcast at output axis ", i), kNoOrigin,
                  static_cast<int64_t>(i));
      out.push_back(da->IsConstant() ? da : db->IsConstant() ? db : sym::Max(da, db));
    }
  }
  if (!a_vec) out.push_back(sa[ra - 2]);
  if (!b_vec) out.push_back(sb[rb - 1]);
  ctx.out(0).shape = std::move(out);
}

}  // namespace

void InferQuantizeLinear(OpContext& ctx) {
  TensorFact& y = ctx.out(0);
  // y has y_zero_point's type, uint8 without one; opset 21 adds output_dtype.
  const int64_t output_dtype = ctx.opset() >= 21 ? ctx.AttrInt("output_dtype", 0) : 0;
  if (output_dtype != 0) {
    y.elem_type = static_cast<int32_t>(output_dtype);
  } else if (ctx.has_input(2)) {
    y.elem_type = ctx.in(2).elem_type;
  } else {
    y.elem_type = TensorProto::UINT8;
  }
  y.shape = ctx.in(0).shape;  // "It has same shape as input 'x'."
  RequirePerAxis(ctx, "QuantizeLinear");
}

void InferDequantizeLinear(OpContext& ctx) {
  TensorFact& y = ctx.out(0);
  const int64_t output_dtype = ctx.AttrInt("output_dtype", 0);
  y.elem_type = output_dtype != 0 ? static_cast<int32_t>(output_dtype) : ctx.in(1).elem_type;
  y.shape = ctx.in(0).shape;  // "'x' and 'y' must have same shape."
  RequirePerAxis(ctx, "DequantizeLinear");
}

void InferDynamicQuantizeLinear(OpContext& ctx) {
  // DynamicQuantizeLinear-11: y (uint8, x's shape), y_scale (float scalar), y_zero_point
  // (uint8 scalar).
  ctx.out(0).elem_type = TensorProto::UINT8;
  ctx.out(0).shape = ctx.in(0).shape;
  if (ctx.num_outputs() > 1) {
    ctx.out(1).elem_type = TensorProto::FLOAT;
    ctx.out(1).shape = Dims{};
  }
  if (ctx.num_outputs() > 2) {
    ctx.out(2).elem_type = TensorProto::UINT8;
    ctx.out(2).shape = Dims{};
  }
}

void InferMatMulInteger(OpContext& ctx) {
  // MatMulInteger-10: A, B, a_zero_point, b_zero_point; "T3: tensor(int32)".
  ctx.out(0).elem_type = TensorProto::INT32;
  MatMulShape(ctx, 0, 1, "MatMulInteger");
}

void InferQLinearMatMul(OpContext& ctx) {
  // QLinearMatMul-10/21: a, a_scale, a_zero_point, b, b_scale, b_zero_point, y_scale,
  // y_zero_point; y has y_zero_point's type.
  ctx.out(0).elem_type = ctx.in(7).elem_type;
  MatMulShape(ctx, 0, 3, "QLinearMatMul");
}

}  // namespace shapelint::infer
