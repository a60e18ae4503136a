// Ops whose main output is their input with its shape unchanged, and nothing to check: the
// softmaxes, LRN, the normalisations without parameters, PRelu, Trilu, ReverseSequence (see
// registry.cc), Dropout with its mask, SwiGLU (whose two inputs must match) and BitCast.
#include "infer/op_context.h"
#include "infer/ops.h"

namespace shapelint::infer {

void InferSameShape(OpContext& ctx) {
  ctx.out(0).elem_type = ctx.in(0).elem_type;
  ctx.out(0).shape = ctx.in(0).shape;
}

void InferDropout(OpContext& ctx) {
  InferSameShape(ctx);
  if (ctx.num_outputs() > 1) {
    ctx.out(1).elem_type = ONNX_NAMESPACE::TensorProto::BOOL;
    ctx.out(1).shape = ctx.in(0).shape;
  }
}

// SwiGLU-28: Swish(A) * B with "identical shapes; broadcasting is not applied".
void InferSwiGlu(OpContext& ctx) {
  const TensorFact& a = ctx.in(0);
  const TensorFact& b = ctx.in(1);
  InferSameShape(ctx);
  if (!a.shape || !b.shape) {
    if (!a.shape) ctx.out(0).shape = b.shape;  // either names the shape
    return;
  }
  if (a.rank() != b.rank()) {
    ctx.out(0).shape.reset();
    return;
  }
  for (int64_t axis = 0; axis < a.rank(); ++axis) {
    ctx.Require(RequirementKind::kBroadcast, Relation::kEqual, (*a.shape)[axis], (*b.shape)[axis],
                "SwiGLU gate vs value (no broadcasting)", kNoOrigin, axis);
  }
}

// BitCast-26: the same shape (the two types have the same width), the element type of `to`.
void InferBitCast(OpContext& ctx) {
  ctx.out(0).elem_type = static_cast<int32_t>(ctx.AttrInt("to", 0));
  ctx.out(0).shape = ctx.in(0).shape;
}

}  // namespace shapelint::infer
