// Losses: SoftmaxCrossEntropyLoss-12/13 and NegativeLogLikelihoodLoss-12/13/22.
// scores / input (N, C, d1, ..., dk), labels / target (N, d1, ..., dk); the loss is
// (N, d1, ..., dk) with reduction "none", a scalar with "sum" or "mean" (the default).
#include "absl/strings/str_cat.h"
#include "infer/nn_util.h"
#include "infer/op_context.h"
#include "infer/ops.h"

namespace shapelint::infer {
namespace {

void InferLoss(OpContext& ctx, const char* op) {
  const TensorFact& scores = ctx.in(0);
  const TensorFact& labels = ctx.in(1);
  TensorFact& loss = ctx.out(0);
  loss.elem_type = scores.elem_type;
  // SoftmaxCrossEntropyLoss's optional log_prob output: the scores' shape and type.
  if (ctx.num_outputs() > 1) {
    ctx.out(1).elem_type = scores.elem_type;
    ctx.out(1).shape = scores.shape;
  }
  const std::string reduction = ctx.AttrString("reduction").value_or("mean");
  if (!scores.shape || scores.rank() < 2) return;
  Dims per_sample{(*scores.shape)[0]};
  per_sample.insert(per_sample.end(), scores.shape->begin() + 2, scores.shape->end());
  // labels hold one class index per sample: the scores' shape without the class axis.
  if (labels.shape && labels.rank() == static_cast<int64_t>(per_sample.size())) {
    for (size_t i = 0; i < per_sample.size(); ++i) {
      const int64_t scores_axis = i == 0 ? 0 : static_cast<int64_t>(i) + 1;
      ctx.Require(RequirementKind::kBroadcast, Relation::kEqual, (*labels.shape)[i], per_sample[i],
                  absl::StrCat(op, " input 1 axis ", i, " vs input 0 axis ", scores_axis),
                  kNoOrigin, scores_axis);
    }
  }
  // The optional class weights have one entry per class.
  const TensorFact& weights = ctx.in(2);
  if (weights.shape && weights.rank() == 1) {
    ctx.Require(RequirementKind::kChannels, Relation::kEqual, (*weights.shape)[0],
                (*scores.shape)[1], absl::StrCat(op, " weights length vs classes (input 0 axis 1)"),
                kNoOrigin, 1);
  }
  if (reduction == "none") {
    loss.shape = std::move(per_sample);
  } else if (reduction == "sum" || reduction == "mean") {
    loss.shape = Dims{};
  }
}

}  // namespace

void InferSoftmaxCrossEntropyLoss(OpContext& ctx) { InferLoss(ctx, "SoftmaxCrossEntropyLoss"); }
void InferNegativeLogLikelihoodLoss(OpContext& ctx) { InferLoss(ctx, "NegativeLogLikelihoodLoss"); }

}  // namespace shapelint::infer
