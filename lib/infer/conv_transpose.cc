// ConvTranspose (ONNX ConvTranspose-1/11/22, the same shape rule in every version):
//   out = stride * (in - 1) + output_padding + ((kernel - 1) * dilation + 1) - pad_begin - pad_end
// or the output_shape attribute; auto_pad SAME_* gives out = in * stride.
#include "infer/conv_window.h"
#include "infer/nn_util.h"
#include "infer/op_context.h"
#include "infer/ops.h"

namespace shapelint::infer {
namespace {

using conv::AutoPad;
using nn::C;
using nn::ConstOf;
using nn::DimOf;
using sym::MaybeExpr;

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
  auto win = conv::ReadWindow(ctx, spatial, w);
  const AutoPad pad = conv::ReadAutoPad(ctx);
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
        // stride * (in - 1) + output_padding + effective kernel - pads; unknown where the
        // attributes take the constant part past int64.
        int64_t pads = 0, extra = 0;
        const bool fits = (pad == AutoPad::kValid ||
                           !__builtin_add_overflow(win->pads[i], win->pads[i + spatial], &pads)) &&
                          !__builtin_sub_overflow(win->output_padding[i], pads, &extra);
        if (fits) dim = sym::Add(sym::Add(sym::Mul(C(s), sym::Sub(in, C(1))), eff), C(extra));
      }
    }
    out.push_back(dim);
  }
  y.shape = std::move(out);
}

}  // namespace shapelint::infer
