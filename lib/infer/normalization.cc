// Ops whose main output has their input's shape: softmax, normalisations, dropout.
#include "infer/op_context.h"
#include "infer/ops.h"

namespace shapelint::infer {

void InferSameShape(OpContext& ctx) {
  ctx.out(0).elem_type = ctx.in(0).elem_type;
  ctx.out(0).shape = ctx.in(0).shape;
}

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

void InferDropout(OpContext& ctx) {
  InferSameShape(ctx);
  if (ctx.num_outputs() > 1) {
    ctx.out(1).elem_type = ONNX_NAMESPACE::TensorProto::BOOL;
    ctx.out(1).shape = ctx.in(0).shape;
  }
}

}  // namespace shapelint::infer
