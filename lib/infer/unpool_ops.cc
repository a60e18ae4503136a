// Ops that place windows back into an image: MaxUnpool (the inverse of MaxPool's windows) and
// Col2Im (of im2col's columns).
#include "infer/nn_util.h"
#include "infer/op_context.h"
#include "infer/ops.h"

namespace shapelint::infer {
namespace {

using nn::C;
using nn::DimOf;
using sym::MaybeExpr;

}  // namespace

void InferMaxUnpool(OpContext& ctx) {
  const TensorFact& x = ctx.in(0);
  TensorFact& y = ctx.out(0);
  y.elem_type = x.elem_type;
  if (ctx.has_input(2)) {
    // "If 'output_shape' is specified, 'pads' values are ignored": the output is exactly that
    // shape (N and C included).
    if (auto v = ElementValues(ctx, 2)) {
      y.shape = *v;
    } else if (auto n = nn::VectorLength(ctx, 2)) {
      y.shape = nn::UnknownDims(*n);
    }
    return;
  }
  if (!x.shape || x.rank() < 3) return;
  const size_t spatial = x.rank() - 2;
  auto kernel = ctx.AttrInts("kernel_shape");
  auto strides = ctx.AttrInts("strides").value_or(std::vector<int64_t>(spatial, 1));
  auto pads = ctx.AttrInts("pads").value_or(std::vector<int64_t>(2 * spatial, 0));
  Dims out{(*x.shape)[0], (*x.shape)[1]};
  const bool ok = kernel && kernel->size() == spatial && strides.size() == spatial &&
                  pads.size() == 2 * spatial;
  for (size_t i = 0; i < spatial; ++i) {
    if (!ok) {
      out.push_back(std::nullopt);
      continue;
    }
    // (in - 1) * stride + kernel - pad_begin - pad_end, as ONNX's inference and ORT compute it.
    out.push_back(sym::Add(sym::Mul(sym::Sub((*x.shape)[i + 2], C(1)), C(strides[i])),
                           C((*kernel)[i] - pads[i] - pads[i + spatial])));
  }
  y.shape = std::move(out);
}

void InferCol2Im(OpContext& ctx) {
  // Col2Im-18: input [N, C * prod(block_shape), L], image_shape, block_shape -> [N, C, image].
  const TensorFact& x = ctx.in(0);
  TensorFact& y = ctx.out(0);
  y.elem_type = x.elem_type;
  if (ctx.opset() < 18) return;
  auto image = ElementValues(ctx, 1);
  auto image_len = nn::VectorLength(ctx, 1);
  if (!image_len) image_len = nn::VectorLength(ctx, 2);
  if (!image_len) return;
  MaybeExpr channels;
  if (auto block = ctx.ConstInts(2); block && x.shape && x.rank() == 3) {
    int64_t prod = 1;
    bool ok = true;
    for (int64_t b : *block) {
      if (b < 1 || __builtin_mul_overflow(prod, b, &prod)) ok = false;
    }
    if (ok) {
      ctx.Require(RequirementKind::kChannels, Relation::kDivisible, (*x.shape)[1], C(prod),
                  "Col2Im input axis 1 vs the block size product", kNoOrigin, 1);
      channels = sym::FloorDiv((*x.shape)[1], C(prod));
    }
  }
  Dims out{DimOf(x, 0), channels};
  for (int64_t i = 0; i < *image_len; ++i) {
    out.push_back(image && static_cast<int64_t>(image->size()) == *image_len ? (*image)[i]
                                                                             : MaybeExpr());
  }
  y.shape = std::move(out);
}

}  // namespace shapelint::infer
