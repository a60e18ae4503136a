// Random generators: the *Like forms and Bernoulli keep their input's shape; RandomNormal and
// RandomUniform take the shape attribute; Multinomial draws sample_size per batch row.
#include "infer/nn_util.h"
#include "infer/op_context.h"
#include "infer/ops.h"

namespace shapelint::infer {

using nn::C;
using ONNX_NAMESPACE::TensorProto;

void InferRandomLike(OpContext& ctx) {
  // Bernoulli-15/22, RandomNormalLike-1/22, RandomUniformLike-1/22: "same shape as input";
  // the dtype attribute, else the input's type.
  TensorFact& y = ctx.out(0);
  const TensorFact& x = ctx.in(0);
  y.elem_type = static_cast<int32_t>(ctx.AttrInt("dtype", x.elem_type));
  y.shape = x.shape;
}

void InferRandom(OpContext& ctx) {
  // RandomNormal-1/22, RandomUniform-1/22: shape attribute, dtype default FLOAT.
  TensorFact& y = ctx.out(0);
  y.elem_type = static_cast<int32_t>(ctx.AttrInt("dtype", TensorProto::FLOAT));
  auto shape = ctx.AttrInts("shape");
  if (!shape) return;
  Dims out;
  for (int64_t d : *shape) {
    if (d < 0) return;
    out.push_back(C(d));
  }
  y.shape = std::move(out);
}

void InferMultinomial(OpContext& ctx) {
  // Multinomial-7/22: input [batch_size, class_size] -> [batch_size, sample_size] (default 1),
  // dtype default int32.
  TensorFact& y = ctx.out(0);
  y.elem_type = static_cast<int32_t>(ctx.AttrInt("dtype", TensorProto::INT32));
  const int64_t samples = ctx.AttrInt("sample_size", 1);
  if (samples < 0) return;
  y.shape = Dims{nn::DimOf(ctx.in(0), 0), C(samples)};
}

}  // namespace shapelint::infer
