// Convolution and pooling: the output spatial size as a function of the input size.
//
//   out = floor((in + pad_begin + pad_end - dilation * (kernel - 1) - 1) / stride) + 1
//
// ceil_mode rounds up instead, but a window may not start in the end padding; auto_pad
// SAME_* gives ceil(in / stride) and VALID the unpadded formula.
#include "absl/strings/str_cat.h"
#include "infer/conv_window.h"
#include "infer/op_context.h"
#include "infer/ops.h"

namespace shapelint::infer {
namespace {

using sym::Expr;
using sym::MaybeExpr;

struct WindowAttrs {
  std::vector<int64_t> kernel, strides, dilations, pads;
  std::string auto_pad = "NOTSET";
  bool ceil_mode = false;
};

// Reads window attributes for `spatial` axes; nullopt when they are malformed.
std::optional<WindowAttrs> ReadWindow(OpContext& ctx, size_t spatial,
                                      std::optional<std::vector<int64_t>> kernel) {
  WindowAttrs w;
  if (!kernel || kernel->size() != spatial) return std::nullopt;
  w.kernel = *kernel;
  w.strides = ctx.AttrInts("strides").value_or(std::vector<int64_t>(spatial, 1));
  w.dilations = ctx.AttrInts("dilations").value_or(std::vector<int64_t>(spatial, 1));
  w.pads = ctx.AttrInts("pads").value_or(std::vector<int64_t>(2 * spatial, 0));
  w.auto_pad = ctx.AttrString("auto_pad").value_or("NOTSET");
  w.ceil_mode = ctx.AttrInt("ceil_mode", 0) != 0;
  if (w.strides.size() != spatial || w.dilations.size() != spatial ||
      w.pads.size() != 2 * spatial) {
    return std::nullopt;
  }
  for (size_t i = 0; i < spatial; ++i) {
    if (w.kernel[i] < 1 || w.strides[i] < 1 || w.dilations[i] < 1 || w.pads[i] < 0 ||
        w.pads[i + spatial] < 0) {
      return std::nullopt;
    }
  }
  return w;
}

MaybeExpr WindowOutput(const MaybeExpr& in, const WindowAttrs& w, size_t i, size_t spatial) {
  const int64_t k = w.kernel[i], s = w.strides[i], d = w.dilations[i];
  MaybeExpr stride = Expr::Constant(s);
  if (w.auto_pad == "SAME_UPPER" || w.auto_pad == "SAME_LOWER") return sym::CeilDiv(in, stride);
  int64_t begin = w.pads[i], end = w.pads[i + spatial];
  if (w.auto_pad == "VALID") begin = end = 0;
  // span = in + pads - dilation * (kernel - 1) - 1, the last valid window start; unknown
  // where the attributes take it past int64.
  int64_t pads = 0, reach = 0, offset = 0;
  if (__builtin_add_overflow(begin, end, &pads) || __builtin_mul_overflow(d, k - 1, &reach) ||
      __builtin_sub_overflow(pads, reach, &offset) || __builtin_sub_overflow(offset, 1, &offset)) {
    return std::nullopt;
  }
  MaybeExpr span = sym::Add(in, Expr::Constant(offset));
  if (!w.ceil_mode) return sym::Add(sym::FloorDiv(span, stride), Expr::Constant(1));
  // In ceil mode the last window must still start inside the input or the begin padding.
  MaybeExpr last = sym::Min(sym::CeilDiv(span, stride),
                            sym::FloorDiv(sym::Add(in, Expr::Constant(begin - 1)), stride));
  return sym::Add(last, Expr::Constant(1));
}

// The window must fit the padded input: ONNX Runtime refuses a Conv whose output would be empty
// ("Invalid input shape"), so input + pads >= extent. A pool's output may be empty, not
// negative, and ONNX Runtime computes it dividing with truncation toward zero:
// (input + pads - extent) / stride > -2, so input + pads >= extent + 1 - 2 * stride.
// Recorded only where a size of at least 1 may not fit, so a 3 x 3 kernel with padding 1 adds
// nothing; without it, sizes below the window look valid to the witness search (a ViT's patch
// grid is 0 x 0 there, and its token count broadcasts against any table).
void RequireWindowFits(OpContext& ctx, const MaybeExpr& in, const WindowAttrs& w, size_t i,
                       size_t spatial, bool pool) {
  if (w.auto_pad == "SAME_UPPER" || w.auto_pad == "SAME_LOWER" || w.ceil_mode) return;
  const bool valid = w.auto_pad == "VALID";
  const int64_t begin = valid ? 0 : w.pads[i], end = valid ? 0 : w.pads[i + spatial];
  int64_t extent = 0, pads = 0, needed = 0, slack = 0;
  if (__builtin_mul_overflow(w.dilations[i], w.kernel[i] - 1, &extent) ||
      __builtin_add_overflow(extent, 1, &extent) || __builtin_add_overflow(begin, end, &pads) ||
      (pool && __builtin_mul_overflow(w.strides[i], 2, &slack)) ||
      (pool && __builtin_sub_overflow(slack, 1, &slack)) ||
      __builtin_sub_overflow(extent, slack, &needed)) {
    return;
  }
  if (__builtin_sub_overflow(needed, pads, &needed) || needed <= 1) return;  // 1 and up fit
  ctx.Require(RequirementKind::kWindow, Relation::kAtLeast, in, Expr::Constant(needed),
              absl::StrCat(ctx.node().op_type(), " window of ", extent, " on axis ", i + 2,
                           pads > 0 ? absl::StrCat(" (padded by ", pads, ")") : ""),
              kNoOrigin, static_cast<int64_t>(i + 2));
}

}  // namespace

void InferConv(OpContext& ctx) {
  const TensorFact& x = ctx.in(0);
  const TensorFact& w = ctx.in(1);
  TensorFact& y = ctx.out(0);
  y.elem_type = x.elem_type;
  if (!x.shape || x.rank() < 3) return;
  const size_t spatial = x.rank() - 2;
  auto kernel = ctx.AttrInts("kernel_shape");
  if (!kernel && w.shape && w.rank() == x.rank()) {
    std::vector<int64_t> k;
    for (size_t i = 2; i < w.shape->size(); ++i) {
      auto c = (*w.shape)[i] ? (*w.shape)[i]->AsConstant() : std::nullopt;
      if (!c) {
        // A symbolic kernel (W a graph input): the window rule over W's dims.
        conv::ForwardConv(ctx, 0, 1, true, "Conv");
        return;
      }
      k.push_back(*c);
    }
    kernel = k;
  }
  auto attrs = ReadWindow(ctx, spatial, kernel);
  if (!attrs) return;
  const int64_t group = ctx.AttrInt("group", 1);
  Dims out{(*x.shape)[0], w.shape && w.rank() >= 1 ? (*w.shape)[0] : MaybeExpr()};
  if (w.shape && w.rank() >= 2 && group >= 1) {
    ctx.Require(RequirementKind::kChannels, Relation::kEqual, (*x.shape)[1],
                sym::Mul((*w.shape)[1], Expr::Constant(group)),
                absl::StrCat("Conv input channels vs weight channels x group (", group, ")"),
                kNoOrigin, 1);
  }
  for (size_t i = 0; i < spatial; ++i) {
    RequireWindowFits(ctx, (*x.shape)[i + 2], *attrs, i, spatial, /*pool=*/false);
    out.push_back(WindowOutput((*x.shape)[i + 2], *attrs, i, spatial));
  }
  y.shape = std::move(out);
}

void InferPool(OpContext& ctx) {
  const TensorFact& x = ctx.in(0);
  if (!x.shape || x.rank() < 3) return;
  const size_t spatial = x.rank() - 2;
  auto attrs = ReadWindow(ctx, spatial, ctx.AttrInts("kernel_shape"));
  for (size_t k = 0; k < ctx.num_outputs(); ++k) {
    // MaxPool's optional second output holds int64 indices of the same shape.
    ctx.out(k).elem_type = k == 0 ? x.elem_type : ONNX_NAMESPACE::TensorProto::INT64;
  }
  if (!attrs) return;
  Dims out{(*x.shape)[0], (*x.shape)[1]};
  for (size_t i = 0; i < spatial; ++i) {
    RequireWindowFits(ctx, (*x.shape)[i + 2], *attrs, i, spatial, /*pool=*/true);
    out.push_back(WindowOutput((*x.shape)[i + 2], *attrs, i, spatial));
  }
  for (size_t k = 0; k < ctx.num_outputs(); ++k) ctx.out(k).shape = out;
}

void InferGlobalPool(OpContext& ctx) {
  const TensorFact& x = ctx.in(0);
  TensorFact& y = ctx.out(0);
  y.elem_type = x.elem_type;
  if (!x.shape || x.rank() < 2) return;
  Dims out{(*x.shape)[0], (*x.shape)[1]};
  for (int64_t i = 2; i < x.rank(); ++i) out.push_back(Expr::Constant(1));
  y.shape = std::move(out);
}

}  // namespace shapelint::infer
