// Normalisations with statistics outputs or parameter checks: BatchNormalization,
// LayerNormalization (ONNX 17, and ONNX Runtime's default-domain contrib schema of the same name
// for older opsets), SimplifiedLayerNormalization (ONNX Runtime, default domain),
// GroupNormalization (18, 21), RMSNormalization (23) and InstanceNormalization. Y always has X's
// shape.
#include "absl/strings/str_cat.h"
#include "infer/nn_util.h"
#include "infer/op_context.h"
#include "infer/ops.h"

namespace shapelint::infer {
namespace {

using nn::C;
using sym::MaybeExpr;

// Scale (and bias) are unidirectionally broadcast to X (LayerNormalization-17: "tensors Scale
// and B should be unidirectional broadcastable to tensor X"): right-aligned, each of their dims
// is 1 or X's.
void RequireBroadcastToX(OpContext& ctx, size_t param, const char* op) {
  const TensorFact& x = ctx.in(0);
  const TensorFact& p = ctx.in(param);
  if (!x.shape || !p.shape || p.rank() > x.rank()) return;
  const int64_t offset = x.rank() - p.rank();
  for (int64_t i = 0; i < p.rank(); ++i) {
    ctx.Require(
        RequirementKind::kBroadcast, Relation::kBroadcastable, (*p.shape)[i],
        (*x.shape)[offset + i],
        absl::StrCat(op, " input ", param, " axis ", i, " broadcasts to X axis ", offset + i),
        kNoOrigin, offset + i);
  }
}

// Statistics outputs [d0, ..., d(axis-1), 1, ..., 1] of type stash_type.
void StatsOutput(OpContext& ctx, size_t k) {
  if (k >= ctx.num_outputs()) return;
  ctx.out(k).elem_type =
      static_cast<int32_t>(ctx.AttrInt("stash_type", ONNX_NAMESPACE::TensorProto::FLOAT));
  if (auto s = nn::KeptPrefixShape(ctx.in(0), ctx.AttrInt("axis", -1))) ctx.out(k).shape = *s;
}

}  // namespace

void InferBatchNormalization(OpContext& ctx) {
  InferSameShape(ctx);
  const TensorFact& x = ctx.in(0);
  // Training mode adds running mean and variance outputs of shape [C].
  for (size_t k = 1; k < ctx.num_outputs(); ++k) {
    ctx.out(k).elem_type = ctx.in(3).elem_type ? ctx.in(3).elem_type : x.elem_type;
    if (x.shape && x.shape->size() >= 2) ctx.out(k).shape = Dims{(*x.shape)[1]};
  }
  if (x.shape && x.shape->size() >= 2) {
    for (size_t i = 1; i < 5 && i < ctx.num_inputs(); ++i) {
      const TensorFact& p = ctx.in(i);
      if (p.shape && p.shape->size() == 1) {
        ctx.Require(RequirementKind::kChannels, Relation::kEqual, (*x.shape)[1], (*p.shape)[0],
                    "BatchNormalization channels: input axis 1 vs parameter length", kNoOrigin, 1);
      }
    }
  }
}

void InferLayerNormalization(OpContext& ctx) {
  // Inputs X, Scale, B?; outputs Y, Mean?, InvStdDev?.
  InferSameShape(ctx);
  StatsOutput(ctx, 1);
  StatsOutput(ctx, 2);
  RequireBroadcastToX(ctx, 1, "LayerNormalization");
  if (ctx.has_input(2)) RequireBroadcastToX(ctx, 2, "LayerNormalization");
}

void InferSimplifiedLayerNormalization(OpContext& ctx) {
  // ONNX Runtime contrib: X, scale -> Y, inv_std_var (axis, epsilon, stash_type as in
  // LayerNormalization).
  InferSameShape(ctx);
  StatsOutput(ctx, 1);
  RequireBroadcastToX(ctx, 1, "SimplifiedLayerNormalization");
}

void InferRMSNormalization(OpContext& ctx) {
  // RMSNormalization-23: X, scale -> Y of X's shape and scale's type ("V").
  const TensorFact& x = ctx.in(0);
  TensorFact& y = ctx.out(0);
  y.elem_type = ctx.in(1).elem_type ? ctx.in(1).elem_type : x.elem_type;
  if (ctx.opset() < 23) return;
  y.shape = x.shape;
  RequireBroadcastToX(ctx, 1, "RMSNormalization");
}

void InferGroupNormalization(OpContext& ctx) {
  // GroupNormalization-18/21: X (N, C, ...), scale, bias; num_groups must divide C.
  const TensorFact& x = ctx.in(0);
  TensorFact& y = ctx.out(0);
  y.elem_type = x.elem_type;
  if (ctx.opset() < 18) return;
  y.shape = x.shape;
  auto groups = ctx.AttrInt("num_groups");
  if (!x.shape || x.rank() < 2 || !groups || *groups < 1) return;
  ctx.Require(RequirementKind::kChannels, Relation::kDivisible, (*x.shape)[1], C(*groups),
              absl::StrCat("GroupNormalization channels vs num_groups (", *groups, ")"), kNoOrigin,
              1);
  // Opset 18 takes scale and bias per group, 21 per channel.
  const MaybeExpr per = ctx.opset() >= 21 ? (*x.shape)[1] : C(*groups);
  for (size_t i = 1; i <= 2; ++i) {
    const TensorFact& p = ctx.in(i);
    if (!p.shape || p.rank() != 1) continue;
    ctx.Require(RequirementKind::kChannels, Relation::kEqual, per, (*p.shape)[0],
                absl::StrCat("GroupNormalization input ", i, " length"), kNoOrigin, 1);
  }
}

void InferInstanceNormalization(OpContext& ctx) {
  // InstanceNormalization-6: input (N x C x ...), scale [C], B [C].
  InferSameShape(ctx);
  const TensorFact& x = ctx.in(0);
  if (!x.shape || x.rank() < 2) return;
  for (size_t i = 1; i <= 2; ++i) {
    const TensorFact& p = ctx.in(i);
    if (!p.shape || p.rank() != 1) continue;
    ctx.Require(
        RequirementKind::kChannels, Relation::kEqual, (*x.shape)[1], (*p.shape)[0],
        absl::StrCat("InstanceNormalization channels: input axis 1 vs input ", i, " length"),
        kNoOrigin, 1);
  }
}

}  // namespace shapelint::infer
