// Ops whose main output is their input with its shape unchanged, and nothing to check: the
// softmaxes, LRN, the normalisations without parameters, PRelu, Trilu, ReverseSequence (see
// registry.cc), and Dropout with its mask.
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

}  // namespace shapelint::infer
