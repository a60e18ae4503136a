// Ops that place windows back into an image: MaxUnpool (the inverse of MaxPool's windows) and
// Col2Im (of im2col's columns).
#include "infer/nn_util.h"
#include "infer/op_context.h"
#include "infer/ops.h"
#include "infer/tensor_util.h"

namespace shapelint::infer {
namespace {

using nn::C;
using nn::DimOf;
using sym::MaybeExpr;

// Col2Im's input holds one column per sliding block: ONNX Runtime fails unless axis 2 equals the
// number of blocks that image_shape, block_shape, pads, strides and dilations imply (checked
// against ONNX Runtime 1.31 on 150 configurations, counts 0 to 12). An image shape folded from
// the example (F.fold with output_size=(int(h), int(w))) then needs the blocks of that example.
void RequireBlockCount(OpContext& ctx, const std::optional<std::vector<MaybeExpr>>& image,
                       int64_t spatial) {
  const TensorFact& x = ctx.in(0);
  auto block = ctx.ConstInts(2);
  if (!image || static_cast<int64_t>(image->size()) != spatial || !block ||
      static_cast<int64_t>(block->size()) != spatial || !x.shape || x.rank() != 3) {
    return;
  }
  const auto n = static_cast<size_t>(spatial);
  const auto dilations = ctx.AttrInts("dilations").value_or(std::vector<int64_t>(n, 1));
  const auto strides = ctx.AttrInts("strides").value_or(std::vector<int64_t>(n, 1));
  const auto pads = ctx.AttrInts("pads").value_or(std::vector<int64_t>(2 * n, 0));
  if (dilations.size() != n || strides.size() != n || pads.size() != 2 * n) return;
  MaybeExpr count = C(1);
  for (size_t i = 0; i < n; ++i) {
    int64_t extent = 0, padding = 0;
    // A window of dilation * (block - 1) + 1 pixels; overflow or a stride below 1 is no count.
    if ((*block)[i] < 1 || dilations[i] < 1 || strides[i] < 1 ||
        __builtin_mul_overflow(dilations[i], (*block)[i] - 1, &extent) ||
        __builtin_add_overflow(extent, 1, &extent) ||
        __builtin_add_overflow(pads[i], pads[i + n], &padding) ||
        __builtin_sub_overflow(padding, extent, &padding)) {
      return;
    }
    const MaybeExpr room = sym::Add((*image)[i], C(padding));
    count = sym::Mul(count, sym::Add(sym::FloorDiv(room, C(strides[i])), C(1)));
  }
  const auto& literal = ctx.in(1).values;
  ctx.Require(RequirementKind::kBroadcast, Relation::kEqual, (*x.shape)[2], count,
              "Col2Im input axis 2 (one column per block) vs the blocks image_shape implies",
              literal && !literal->empty() ? literal->front().origin : kNoOrigin, 2);
}

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
  RequireBlockCount(ctx, image, *image_len);
  Dims out{DimOf(x, 0), channels};
  for (int64_t i = 0; i < *image_len; ++i) {
    out.push_back(image && static_cast<int64_t>(image->size()) == *image_len ? (*image)[i]
                                                                             : MaybeExpr());
  }
  y.shape = std::move(out);
}

}  // namespace shapelint::infer
