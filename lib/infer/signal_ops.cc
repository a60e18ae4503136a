// Signal processing (opset 17+): DFT (17 and 20 forms), STFT, the cosine-sum windows and
// MelWeightMatrix. Lengths come from the values of small integer inputs, possibly symbolic.
#include "infer/nn_util.h"
#include "infer/op_context.h"
#include "infer/ops.h"

namespace shapelint::infer {
namespace {

using nn::C;
using nn::ConstOf;
using nn::DimOf;
using ONNX_NAMESPACE::TensorProto;
using sym::MaybeExpr;

// floor(n / 2) + 1: the unique bins of a real-input DFT of length n.
MaybeExpr OnesidedBins(const MaybeExpr& n) { return sym::Add(sym::FloorDiv(n, C(2)), C(1)); }

}  // namespace

void InferDFT(OpContext& ctx) {
  // input [signal dims..., 1 or 2] -> output [signal dims..., 2]; along `axis` the length is
  // dft_length when given, and floor(length / 2) + 1 when onesided. Onesided and inverse
  // together are the IRFFT: complex input, real output [..., 1], and dft_length defaults to
  // 2 * (length - 1).
  const TensorFact& x = ctx.in(0);
  TensorFact& y = ctx.out(0);
  y.elem_type = x.elem_type;
  if (ctx.opset() < 17 || !x.shape || x.rank() < 2) return;
  const int64_t rank = x.rank();
  const bool onesided = ctx.AttrInt("onesided", 0) != 0;
  const bool inverse = ctx.AttrInt("inverse", 0) != 0;
  // The IRFFT: ONNX 1.18's DFT-20 inference rejected the pair, the 17 text does not say; the
  // DFT-20 text of ONNX 1.23 defines it and its reference implementation runs it at opsets 19
  // and 20 alike, so every version reads it that way.
  const bool irfft = onesided && inverse;
  std::optional<int64_t> axis;
  if (ctx.opset() < 20) {
    // DFT-17: attribute, default 1, a tensor axis (ONNX 1.12's inference agrees).
    axis = ctx.AttrInt("axis", 1);
  } else if (!ctx.has_input(2)) {
    axis = -2;  // DFT-20: "Default is -2 (last signal axis)."
  } else if (auto a = ConstOf(nn::ScalarInput(ctx, 2))) {
    axis = *a;
  }
  // Valid: [-r, -2] and [0, r - 2]; the last axis holds the complex parts.
  if (axis && *axis < 0) axis = ctx.opset() >= 20 && *axis >= -rank ? *axis + rank : -1;
  Dims out = *x.shape;
  out[rank - 1] = C(irfft ? 1 : 2);
  // The one-sided transforms take one kind of input: the RFFT real ([..., 1]), the IRFFT
  // complex ([..., 2]). A symbolic last dim must be that one; with a constant other one (invalid)
  // or an unknown one the transformed axis is unknown.
  bool parts_known = true;
  if (onesided) {
    const MaybeExpr& parts = (*x.shape)[rank - 1];
    const int64_t need = irfft ? 2 : 1;
    parts_known = parts && (!ConstOf(parts) || ConstOf(parts) == need);
    if (parts_known) {
      ctx.Require(RequirementKind::kChannels, Relation::kEqual, parts, C(need),
                  irfft ? "DFT (IRFFT) input is complex: last dim 2"
                        : "DFT (RFFT) input is real: last dim 1",
                  kNoOrigin, rank - 1);
    }
  }
  if (!axis || *axis < 0 || *axis > rank - 2) {
    // Without dft_length and onesided no signal dim changes, wherever the axis is.
    if (!axis && !onesided && !ctx.has_input(1)) {
      y.shape = std::move(out);
      return;
    }
    y.shape = nn::UnknownDims(rank);
    (*y.shape)[rank - 1] = C(irfft ? 1 : 2);
    return;
  }
  MaybeExpr len = out[*axis];
  if (ctx.has_input(1)) {
    len = nn::ScalarInput(ctx, 1);
  } else if (irfft) {
    len = sym::Mul(C(2), sym::Sub(len, C(1)));
  }
  if (!parts_known) {
    len = std::nullopt;
  } else if (onesided && !irfft) {
    len = OnesidedBins(len);  // real input, checked above
  }
  out[*axis] = len;
  y.shape = std::move(out);
}

void InferSTFT(OpContext& ctx) {
  // STFT-17: signal [batch, length, 1 or 2], frame_step, window? [window_length],
  // frame_length? -> [batch, frames, bins, 2] with
  //   frames = floor((length - frame_length) / frame_step) + 1
  //   bins = onesided ? floor(frame_length / 2) + 1 : frame_length   (onesided defaults to 1)
  const TensorFact& signal = ctx.in(0);
  TensorFact& y = ctx.out(0);
  y.elem_type = signal.elem_type;
  if (ctx.opset() < 17 || !signal.shape || signal.rank() != 3) return;
  MaybeExpr frame_length;
  if (ctx.has_input(3)) {
    frame_length = nn::ScalarInput(ctx, 3);
    if (ctx.has_input(2)) {
      ctx.Require(RequirementKind::kInnerDim, Relation::kEqual, DimOf(ctx.in(2), 0), frame_length,
                  "STFT window length vs frame_length", kNoOrigin, 0);
    }
  } else if (ctx.has_input(2)) {
    const TensorFact& window = ctx.in(2);
    if (window.shape && window.rank() == 1) frame_length = (*window.shape)[0];
  }
  const MaybeExpr step = nn::ScalarInput(ctx, 1);
  const MaybeExpr frames =
      sym::Add(sym::FloorDiv(sym::Sub((*signal.shape)[1], frame_length), step), C(1));
  MaybeExpr bins = frame_length;
  if (ctx.AttrInt("onesided", 1) != 0) {
    // One-sided output needs a real signal: [batch, length, 1].
    const MaybeExpr& components = (*signal.shape)[2];
    const bool real = ctx.Require(RequirementKind::kChannels, Relation::kEqual, components, C(1),
                                  "one-sided STFT needs a real signal (last axis 1)", kNoOrigin, 2);
    bins = real && components ? OnesidedBins(frame_length) : MaybeExpr();
  }
  y.shape = Dims{(*signal.shape)[0], frames, bins, C(2)};
}

void InferWindow(OpContext& ctx) {
  // HannWindow / HammingWindow / BlackmanWindow-17: [size] of type output_datatype (FLOAT).
  TensorFact& y = ctx.out(0);
  y.elem_type = static_cast<int32_t>(ctx.AttrInt("output_datatype", TensorProto::FLOAT));
  if (ctx.opset() < 17) return;
  y.shape = Dims{nn::ScalarInput(ctx, 0)};
}

void InferMelWeightMatrix(OpContext& ctx) {
  // MelWeightMatrix-17: [floor(dft_length / 2) + 1, num_mel_bins].
  TensorFact& y = ctx.out(0);
  y.elem_type = static_cast<int32_t>(ctx.AttrInt("output_datatype", TensorProto::FLOAT));
  if (ctx.opset() < 17) return;
  y.shape = Dims{OnesidedBins(nn::ScalarInput(ctx, 1)), nn::ScalarInput(ctx, 0)};
}

}  // namespace shapelint::infer
