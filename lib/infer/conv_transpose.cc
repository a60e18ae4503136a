// Convolution relatives: ConvTranspose, the quantised convolutions (ConvInteger, QLinearConv),
// DeformConv, and the ops that place windows back into an image (MaxUnpool, Col2Im).
//
// ConvTranspose (ONNX ConvTranspose-1/11/22, the same shape rule in every version):
//   out = stride * (in - 1) + output_padding + ((kernel - 1) * dilation + 1) - pad_begin - pad_end
// or the output_shape attribute; auto_pad SAME_* gives out = in * stride.
// The forward convolutions use the Conv rule (see conv_pool.cc):
//   out = floor((in + pad_begin + pad_end - dilation * (kernel - 1) - 1) / stride) + 1
// with SAME_* giving ceil(in / stride).
#include "absl/strings/str_cat.h"
#include "infer/nn_util.h"
#include "infer/op_context.h"
#include "infer/ops.h"

namespace shapelint::infer {
namespace {

using nn::C;
using nn::ConstOf;
using nn::DimOf;
using ONNX_NAMESPACE::TensorProto;
using sym::Expr;
using sym::MaybeExpr;

enum class AutoPad { kNotSet, kValid, kSameUpper, kSameLower, kInvalid };

AutoPad ReadAutoPad(const OpContext& ctx) {
  const std::string s = ctx.AttrString("auto_pad").value_or("NOTSET");
  if (s == "NOTSET" || s.empty()) return AutoPad::kNotSet;
  if (s == "VALID") return AutoPad::kValid;
  if (s == "SAME_UPPER") return AutoPad::kSameUpper;
  if (s == "SAME_LOWER") return AutoPad::kSameLower;
  return AutoPad::kInvalid;
}

// strides / dilations / pads / output_padding with their defaults; nullopt when an attribute
// has the wrong length or a value the spec does not allow.
struct Window {
  std::vector<MaybeExpr> kernel;  // symbolic when read from a weight dim that is symbolic
  std::vector<int64_t> strides, dilations, pads, output_padding;
};

std::optional<Window> ReadWindow(const OpContext& ctx, size_t spatial, const TensorFact& w) {
  Window win;
  if (auto k = ctx.AttrInts("kernel_shape")) {
    if (k->size() != spatial) return std::nullopt;
    for (int64_t v : *k) {
      if (v < 1) return std::nullopt;
      win.kernel.push_back(C(v));
    }
  } else {
    // "If not present, should be inferred from input W": W's dims from axis 2 on.
    if (!w.shape || static_cast<size_t>(w.rank()) != spatial + 2) return std::nullopt;
    win.kernel.assign(w.shape->begin() + 2, w.shape->end());
  }
  win.strides = ctx.AttrInts("strides").value_or(std::vector<int64_t>(spatial, 1));
  win.dilations = ctx.AttrInts("dilations").value_or(std::vector<int64_t>(spatial, 1));
  win.pads = ctx.AttrInts("pads").value_or(std::vector<int64_t>(2 * spatial, 0));
  win.output_padding = ctx.AttrInts("output_padding").value_or(std::vector<int64_t>(spatial, 0));
  if (win.strides.size() != spatial || win.dilations.size() != spatial ||
      win.pads.size() != 2 * spatial || win.output_padding.size() != spatial) {
    return std::nullopt;
  }
  for (size_t i = 0; i < spatial; ++i) {
    if (win.strides[i] < 1 || win.dilations[i] < 1 || win.pads[i] < 0 ||
        win.pads[i + spatial] < 0 || win.output_padding[i] < 0) {
      return std::nullopt;
    }
  }
  return win;
}

// Output dims of a forward convolution over X's spatial axes (Conv's rule, shared by
// ConvInteger, QLinearConv and DeformConv). Unknown dims where the attributes are malformed.
Dims ForwardSpatial(const OpContext& ctx, const TensorFact& x, const TensorFact& w,
                    bool allow_auto_pad) {
  const size_t spatial = x.rank() - 2;
  auto win = ReadWindow(ctx, spatial, w);
  const AutoPad pad = allow_auto_pad ? ReadAutoPad(ctx) : AutoPad::kNotSet;
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

// The forward convolutions: Y = [N, M, spatial...] with M = W.shape[0], and the channel
// requirement X.shape[1] == W.shape[1] * group (Conv-11 spec, also ConvInteger/QLinearConv/
// DeformConv: "X.shape[1] == (W.shape[1] * group) == C").
void ForwardConv(OpContext& ctx, size_t x_index, size_t w_index, bool allow_auto_pad,
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

}  // namespace

void InferConvTranspose(OpContext& ctx) {
  const TensorFact& x = ctx.in(0);
  const TensorFact& w = ctx.in(1);
  TensorFact& y = ctx.out(0);
  y.elem_type = x.elem_type;
  if (!x.shape || x.rank() < 3) return;
  if (w.shape && w.rank() != x.rank()) return;
  const size_t spatial = x.rank() - 2;
  const int64_t group = ctx.AttrInt("group", 1);
  if (group < 1) return;
  // W is (C x M/group x k1 x ... x kn): its first dim is X's channel count, and the output
  // has W.shape[1] * group channels.
  ctx.Require(RequirementKind::kChannels, Relation::kEqual, (*x.shape)[1], DimOf(w, 0),
              "ConvTranspose input channels vs weight axis 0", kNoOrigin, 1);
  Dims out{(*x.shape)[0], sym::Mul(DimOf(w, 1), C(group))};
  auto win = ReadWindow(ctx, spatial, w);
  const AutoPad pad = ReadAutoPad(ctx);
  auto output_shape = ctx.AttrInts("output_shape");
  for (size_t i = 0; i < spatial; ++i) {
    MaybeExpr dim;
    if (output_shape) {
      // The attribute holds the spatial dims only ("should not include dimensions for batch
      // size and channels"); pads are then derived from it and the output is exactly it.
      // ONNX's own inference drops other lengths, and so do we.
      if (output_shape->size() == spatial && (*output_shape)[i] >= 0) {
        dim = C((*output_shape)[i]);
      }
    } else if (win && pad != AutoPad::kInvalid) {
      const MaybeExpr& in = (*x.shape)[i + 2];
      const int64_t s = win->strides[i], d = win->dilations[i];
      // effective kernel = (kernel - 1) * dilation + 1
      MaybeExpr eff = sym::Add(sym::Mul(sym::Sub(win->kernel[i], C(1)), C(d)), C(1));
      if (pad == AutoPad::kSameUpper || pad == AutoPad::kSameLower) {
        // The spec and the reference implementation give in * stride. ONNX's shape inference
        // (total padding max(0, kernel - stride)) agrees only when the effective kernel is at
        // least the stride and there is no output_padding, and runtimes have disagreed on the
        // rest (onnxruntime issues 4086, 11927): there, unknown.
        auto eff_c = ConstOf(eff);
        if (!ctx.AttrInts("pads") && win->output_padding[i] == 0 && eff_c && *eff_c >= s) {
          dim = sym::Mul(in, C(s));
        }
      } else {
        int64_t pads = win->pads[i] + win->pads[i + spatial];
        if (pad == AutoPad::kValid) pads = 0;
        // stride * (in - 1) + output_padding + effective kernel - pads
        dim = sym::Add(sym::Add(sym::Mul(C(s), sym::Sub(in, C(1))), eff),
                       C(win->output_padding[i] - pads));
      }
    }
    out.push_back(dim);
  }
  y.shape = std::move(out);
}

void InferConvInteger(OpContext& ctx) {
  // ConvInteger-10: x, w, x_zero_point, w_zero_point; "T3: tensor(int32)".
  ctx.out(0).elem_type = TensorProto::INT32;
  ForwardConv(ctx, 0, 1, true, "ConvInteger");
}

void InferQLinearConv(OpContext& ctx) {
  // QLinearConv-10: x, x_scale, x_zero_point, w, w_scale, w_zero_point, y_scale, y_zero_point,
  // B; y has y_zero_point's type.
  ctx.out(0).elem_type = ctx.in(7).elem_type;
  ForwardConv(ctx, 0, 3, true, "QLinearConv");
}

void InferDeformConv(OpContext& ctx) {
  // DeformConv-19/22: X, W, offset, B, mask; Conv's output rule without auto_pad.
  ctx.out(0).elem_type = ctx.in(0).elem_type;
  if (ctx.opset() < 19) return;
  ForwardConv(ctx, 0, 1, false, "DeformConv");
}

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
