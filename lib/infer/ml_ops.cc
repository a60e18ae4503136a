// The ai.onnx.ml ops that ONNX's node cases use: Binarizer keeps its input's shape (registry.cc);
// the others here.
//   ArrayFeatureExtractor-1: picks Y's indices on X's last axis; X (..., N) gives (..., count(Y))
//     and a 1-D X gives (1, count(Y)) (the reference implementation and ONNX Runtime agree on
//     that row; the spec says nothing of it).
//   LabelEncoder-2/4: maps each element, so the shape stays; the element type is that of the
//     values it maps to.
//   TreeEnsemble-5: X (N, F) gives (N, n_targets).
#include "infer/nn_util.h"
#include "infer/op_context.h"
#include "infer/ops.h"

namespace shapelint::infer {

using nn::C;
using nn::DimOf;
using ONNX_NAMESPACE::TensorProto;
using sym::MaybeExpr;

void InferArrayFeatureExtractor(OpContext& ctx) {
  const TensorFact& x = ctx.in(0);
  const TensorFact& y = ctx.in(1);
  ctx.out(0).elem_type = x.elem_type;
  if (!x.shape || x.rank() < 1 || !y.shape) return;
  MaybeExpr count = C(1);
  for (const MaybeExpr& d : *y.shape) count = sym::Mul(count, d);
  if (x.rank() == 1) {
    ctx.out(0).shape = Dims{C(1), count};
    return;
  }
  Dims out = *x.shape;
  out.back() = count;
  ctx.out(0).shape = std::move(out);
}

void InferLabelEncoder(OpContext& ctx) {
  ctx.out(0).shape = ctx.in(0).shape;
  // Which values attribute is set says the output type (opset 4 adds values_tensor).
  if (const TensorProto* t = ctx.AttrTensor("values_tensor")) {
    ctx.out(0).elem_type = t->data_type();
  } else if (ctx.Attr("values_strings") != nullptr) {
    ctx.out(0).elem_type = TensorProto::STRING;
  } else if (ctx.Attr("values_int64s") != nullptr) {
    ctx.out(0).elem_type = TensorProto::INT64;
  } else if (ctx.Attr("values_floats") != nullptr) {
    ctx.out(0).elem_type = TensorProto::FLOAT;
  }
}

void InferTreeEnsemble(OpContext& ctx) {
  const TensorFact& x = ctx.in(0);
  ctx.out(0).elem_type = x.elem_type;
  auto targets = ctx.AttrInt("n_targets");
  if (!targets || *targets < 1 || !x.shape || x.rank() != 2) return;
  ctx.out(0).shape = Dims{DimOf(x, 0), C(*targets)};
}

}  // namespace shapelint::infer
