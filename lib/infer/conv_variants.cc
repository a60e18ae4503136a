// The forward convolutions besides Conv: the quantised ConvInteger and QLinearConv, and
// DeformConv. They take Conv's rule (see conv_pool.cc):
//   out = floor((in + pad_begin + pad_end - dilation * (kernel - 1) - 1) / stride) + 1
// with SAME_* giving ceil(in / stride), over a kernel that may be W's symbolic dims.
#include "absl/strings/str_cat.h"
#include "infer/conv_window.h"
#include "infer/nn_util.h"
#include "infer/op_context.h"
#include "infer/ops.h"

namespace shapelint::infer {
namespace {

using conv::AutoPad;
using nn::C;
using nn::DimOf;
using ONNX_NAMESPACE::TensorProto;
using sym::MaybeExpr;

// Output dims of a forward convolution over X's spatial axes (Conv's rule, shared by
// ConvInteger, QLinearConv and DeformConv). Unknown dims where the attributes are malformed.
Dims ForwardSpatial(const OpContext& ctx, const TensorFact& x, const TensorFact& w,
                    bool allow_auto_pad) {
  const size_t spatial = x.rank() - 2;
  auto win = conv::ReadWindow(ctx, spatial, w);
  const AutoPad pad = allow_auto_pad ? conv::ReadAutoPad(ctx) : AutoPad::kNotSet;
  if (!win || pad == AutoPad::kInvalid) return nn::UnknownDims(spatial);
  Dims out;
  for (size_t i = 0; i < spatial; ++i) {
    const MaybeExpr& in = (*x.shape)[i + 2];
    const MaybeExpr stride = C(win->strides[i]);
    if (pad == AutoPad::kSameUpper || pad == AutoPad::kSameLower) {
      out.push_back(sym::CeilDiv(in, stride));
      continue;
    }
    int64_t begin = win->pads[i], end = win->pads[i + spatial];
    if (pad == AutoPad::kValid) begin = end = 0;
    // span = in + pads - dilation * (kernel - 1) - 1
    MaybeExpr span =
        sym::Sub(sym::Add(in, C(begin + end)),
                 sym::Add(sym::Mul(C(win->dilations[i]), sym::Sub(win->kernel[i], C(1))), C(1)));
    out.push_back(sym::Add(sym::FloorDiv(span, stride), C(1)));
  }
  return out;
}

}  // namespace

// The forward convolutions: Y = [N, M, spatial...] with M = W.shape[0], and the channel
// requirement X.shape[1] == W.shape[1] * group (Conv-11 spec, also ConvInteger/QLinearConv/
// DeformConv: "X.shape[1] == (W.shape[1] * group) == C").
void conv::ForwardConv(OpContext& ctx, size_t x_index, size_t w_index, bool allow_auto_pad,
                       const char* op) {
  const TensorFact& x = ctx.in(x_index);
  const TensorFact& w = ctx.in(w_index);
  if (!x.shape || x.rank() < 3) return;
  if (w.shape && w.rank() != x.rank()) return;
  const int64_t group = ctx.AttrInt("group", 1);
  if (group < 1) return;
  ctx.Require(
      RequirementKind::kChannels, Relation::kEqual, (*x.shape)[1], sym::Mul(DimOf(w, 1), C(group)),
      absl::StrCat(op, " input channels vs weight channels x group (", group, ")"), kNoOrigin, 1);
  Dims out{(*x.shape)[0], DimOf(w, 0)};
  Dims spatial = ForwardSpatial(ctx, x, w, allow_auto_pad);
  out.insert(out.end(), spatial.begin(), spatial.end());
  ctx.out(0).shape = std::move(out);
}

void InferConvInteger(OpContext& ctx) {
  // ConvInteger-10: x, w, x_zero_point, w_zero_point; "T3: tensor(int32)".
  ctx.out(0).elem_type = TensorProto::INT32;
  conv::ForwardConv(ctx, 0, 1, true, "ConvInteger");
}

void InferQLinearConv(OpContext& ctx) {
  // QLinearConv-10: x, x_scale, x_zero_point, w, w_scale, w_zero_point, y_scale, y_zero_point,
  // B; y has y_zero_point's type.
  ctx.out(0).elem_type = ctx.in(7).elem_type;
  conv::ForwardConv(ctx, 0, 3, true, "QLinearConv");
}

void InferDeformConv(OpContext& ctx) {
  // DeformConv-19/22: X, W, offset, B, mask; Conv's output rule without auto_pad.
  ctx.out(0).elem_type = ctx.in(0).elem_type;
  if (ctx.opset() < 19) return;
  conv::ForwardConv(ctx, 0, 1, false, "DeformConv");
}

// CausalConvWithState-27: a depthwise causal 1-D convolution over (B, C, L) with weight (C, 1, k)
// that pads on the left with the carried state, so the output keeps the input's shape and the new
// state holds the last k - 1 positions: (B, C, k - 1).
void InferCausalConvWithState(OpContext& ctx) {
  const TensorFact& x = ctx.in(0);
  const TensorFact& w = ctx.in(1);
  for (size_t i = 0; i < ctx.num_outputs(); ++i) ctx.out(i).elem_type = x.elem_type;
  ctx.out(0).shape = x.shape;
  if (!x.shape || x.rank() != 3) return;
  ctx.Require(RequirementKind::kChannels, Relation::kEqual, DimOf(x, 1), DimOf(w, 0),
              "CausalConvWithState input channels vs weight channels", kNoOrigin, 1);
  if (ctx.num_outputs() < 2) return;
  MaybeExpr state = sym::Sub(DimOf(w, 2), C(1));
  // The past state, when given, has the same shape; it names the dim where the weight is
  // unknown.
  if (!state && ctx.has_input(3)) state = DimOf(ctx.in(3), 2);
  ctx.out(1).shape = Dims{DimOf(x, 0), DimOf(x, 1), state};
}

}  // namespace shapelint::infer
