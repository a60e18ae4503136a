// Attention-23 and RotaryEmbedding-23 of the default domain (ONNX Runtime's contrib ops of the
// same names live in com.microsoft: microsoft_ops.cc).
//
// Attention-23 (onnx/defs/nn/defs.cc and the reference implementation op_attention.py):
//   4-D: Q (B, q_heads, Sq, head), K (B, kv_heads, Skv, head), V (B, kv_heads, Skv, v_head)
//        Y (B, q_heads, Sq, v_head)
//   3-D: Q (B, Sq, q_heads * head), K (B, Skv, kv_heads * head), V (B, Skv, kv_heads * v_head)
//        with the q_num_heads / kv_num_heads attributes; Y (B, Sq, q_heads * v_head)
//   present_key   (B, kv_heads, past + Skv, head)     = Concat(past_key, K) on axis 2, or K
//   present_value (B, kv_heads, past + Skv, v_head)   = Concat(past_value, V), or V
//   qk_matmul_output (B, q_heads, Sq, past + Skv)
//
// And the newer members of the family, all of fixed output shapes:
//   TensorScatter-24 (a KV-cache write): present_cache has past_cache's shape;
//   LinearAttention-27: Q (B, T, q_heads * dk), K (B, T, kv_heads * dk), V (B, T, kv_heads * dv)
//        output (B, T, q_heads * dv), present_state (B, kv_heads, dk, dv);
//   ai.onnx.preview FlexAttention-1: Q (B, q_heads, Sq, head), V (B, kv_heads, Skv, v_head)
//        Y (B, q_heads, Sq, v_head).
#include "absl/strings/str_cat.h"
#include "infer/nn_util.h"
#include "infer/op_context.h"
#include "infer/ops.h"

namespace shapelint::infer {
namespace {

using nn::C;
using nn::DimOf;
using sym::MaybeExpr;

// Concat(past, current) on axis 2 of 4-D caches; the other axes must agree.
Dims ConcatCache(OpContext& ctx, const TensorFact& past, const Dims& current, const char* what) {
  if (!past.shape || past.rank() != 4) return nn::UnknownDims(4);
  Dims out = *past.shape;
  for (int64_t axis : {0, 1, 3}) {
    ctx.Require(RequirementKind::kConcatDim, Relation::kEqual, current[axis], out[axis],
                absl::StrCat("Attention ", what, " axis ", axis, " vs the new tokens"), kNoOrigin,
                axis);
  }
  out[2] = sym::Add(out[2], current[2]);
  return out;
}

}  // namespace

void InferAttention(OpContext& ctx) {
  const TensorFact& q = ctx.in(0);
  const TensorFact& k = ctx.in(1);
  const TensorFact& v = ctx.in(2);
  for (size_t i = 0; i < ctx.num_outputs(); ++i) ctx.out(i).elem_type = q.elem_type;
  if (ctx.num_outputs() > 1) ctx.out(1).elem_type = ctx.in(ctx.has_input(4) ? 4 : 1).elem_type;
  if (ctx.num_outputs() > 2) ctx.out(2).elem_type = ctx.in(ctx.has_input(5) ? 5 : 2).elem_type;
  if (ctx.opset() < 23) return;  // not an ONNX op before 23
  if (!q.shape || !k.shape || !v.shape) return;
  const int64_t rank = q.rank();
  if ((rank != 3 && rank != 4) || k.rank() != rank || v.rank() != rank) return;
  const Dims& sq = *q.shape;
  const Dims& sk = *k.shape;
  const Dims& sv = *v.shape;
  // The 4-D views of Q, K and V.
  Dims q4, k4, v4;
  if (rank == 4) {
    q4 = sq;
    k4 = sk;
    v4 = sv;
  } else {
    auto qh = ctx.AttrInt("q_num_heads"), kvh = ctx.AttrInt("kv_num_heads");
    if (!qh || !kvh || *qh < 1 || *kvh < 1) return;
    q4 = {sq[0], C(*qh), sq[1],
          nn::SplitHeads(ctx, sq[2], *qh, "Attention Q hidden vs q_num_heads")};
    k4 = {sk[0], C(*kvh), sk[1],
          nn::SplitHeads(ctx, sk[2], *kvh, "Attention K hidden vs kv_num_heads")};
    v4 = {sv[0], C(*kvh), sv[1],
          nn::SplitHeads(ctx, sv[2], *kvh, "Attention V hidden vs kv_num_heads")};
  }
  // Q K^T contracts the head size; softmax(QK^T) V contracts the kv sequence.
  ctx.Require(RequirementKind::kInnerDim, Relation::kEqual, q4[3], k4[3],
              "Attention head size: Q vs K", kNoOrigin, rank - 1);
  ctx.Require(RequirementKind::kInnerDim, Relation::kEqual, k4[2], v4[2],
              "Attention kv sequence: K vs V", kNoOrigin, rank - 2);
  // Grouped-query attention repeats each kv head q_heads / kv_heads times.
  ctx.Require(RequirementKind::kChannels, Relation::kDivisible, q4[1], k4[1],
              "Attention q heads vs kv heads", kNoOrigin, 1);
  if (rank == 4) {
    ctx.out(0).shape = Dims{sq[0], sq[1], sq[2], sv[3]};
  } else {
    ctx.out(0).shape = Dims{sq[0], sq[1], sym::Mul(q4[1], v4[3])};
  }
  // Both past inputs or neither ("They shall be used together").
  const bool past = ctx.has_input(4) && ctx.has_input(5);
  if (!past && (ctx.has_input(4) || ctx.has_input(5))) return;
  Dims present_key = past ? ConcatCache(ctx, ctx.in(4), k4, "past_key") : k4;
  Dims present_value = past ? ConcatCache(ctx, ctx.in(5), v4, "past_value") : v4;
  if (ctx.num_outputs() > 3) ctx.out(3).shape = Dims{q4[0], q4[1], q4[2], present_key[2]};
  if (ctx.num_outputs() > 1) ctx.out(1).shape = std::move(present_key);
  if (ctx.num_outputs() > 2) ctx.out(2).shape = std::move(present_value);
}

void InferTensorScatter(OpContext& ctx) {
  const TensorFact& past = ctx.in(0);
  const TensorFact& update = ctx.in(1);
  ctx.out(0).elem_type = past.elem_type;
  ctx.out(0).shape = past.shape;
  if (!past.shape || !update.shape || update.rank() != past.rank()) return;
  const int64_t rank = past.rank();
  int64_t axis = ctx.AttrInt("axis", -2);
  if (axis < 0) axis += rank;
  if (axis <= 0 || axis >= rank) return;  // the batch axis cannot be the sequence axis
  // The update differs from the cache only on the sequence axis, where it must fit.
  for (int64_t a = 0; a < rank; ++a) {
    if (a == axis) continue;
    ctx.Require(RequirementKind::kConcatDim, Relation::kEqual, (*update.shape)[a], (*past.shape)[a],
                absl::StrCat("TensorScatter update vs cache, axis ", a), kNoOrigin, a);
  }
}

void InferLinearAttention(OpContext& ctx) {
  const TensorFact& q = ctx.in(0);
  const TensorFact& k = ctx.in(1);
  const TensorFact& v = ctx.in(2);
  for (size_t i = 0; i < ctx.num_outputs(); ++i) ctx.out(i).elem_type = q.elem_type;
  auto qh = ctx.AttrInt("q_num_heads"), kvh = ctx.AttrInt("kv_num_heads");
  if (!qh || !kvh || *qh < 1 || *kvh < 1) return;
  if (!q.shape || !k.shape || !v.shape || q.rank() != 3 || k.rank() != 3 || v.rank() != 3) return;
  const Dims& sq = *q.shape;
  const MaybeExpr dk = nn::SplitHeads(ctx, sq[2], *qh, "LinearAttention query vs q_num_heads");
  const MaybeExpr dv =
      nn::SplitHeads(ctx, DimOf(v, 2), *kvh, "LinearAttention value vs kv_num_heads");
  ctx.Require(RequirementKind::kChannels, Relation::kDivisible, C(*qh), C(*kvh),
              "LinearAttention q_num_heads vs kv_num_heads");
  ctx.out(0).shape = Dims{sq[0], sq[1], sym::Mul(C(*qh), dv)};
  if (ctx.num_outputs() > 1) ctx.out(1).shape = Dims{sq[0], C(*kvh), dk, dv};
}

void InferFlexAttention(OpContext& ctx) {
  const TensorFact& q = ctx.in(0);
  const TensorFact& k = ctx.in(1);
  const TensorFact& v = ctx.in(2);
  ctx.out(0).elem_type = q.elem_type;
  if (!q.shape || !k.shape || !v.shape || q.rank() != 4 || k.rank() != 4 || v.rank() != 4) return;
  ctx.Require(RequirementKind::kInnerDim, Relation::kEqual, DimOf(q, 3), DimOf(k, 3),
              "FlexAttention head size: Q vs K", kNoOrigin, 3);
  ctx.Require(RequirementKind::kInnerDim, Relation::kEqual, DimOf(k, 2), DimOf(v, 2),
              "FlexAttention kv sequence: K vs V", kNoOrigin, 2);
  ctx.out(0).shape = Dims{DimOf(q, 0), DimOf(q, 1), DimOf(q, 2), DimOf(v, 3)};
}

void InferRotaryEmbedding(OpContext& ctx) {
  // RotaryEmbedding-23: "Tensor with same shape as input."
  ctx.out(0).elem_type = ctx.in(0).elem_type;
  if (ctx.opset() < 23) return;
  ctx.out(0).shape = ctx.in(0).shape;
}

}  // namespace shapelint::infer
