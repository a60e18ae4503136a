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

void InferRotaryEmbedding(OpContext& ctx) {
  // RotaryEmbedding-23: "Tensor with same shape as input."
  ctx.out(0).elem_type = ctx.in(0).elem_type;
  if (ctx.opset() < 23) return;
  ctx.out(0).shape = ctx.in(0).shape;
}

}  // namespace shapelint::infer
