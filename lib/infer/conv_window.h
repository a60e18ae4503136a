// The window attributes of the convolutions that take W's kernel (ConvTranspose, ConvInteger,
// QLinearConv, DeformConv): auto_pad, kernel_shape (else W's spatial dims), strides, dilations,
// pads and output_padding, with their defaults and the spec's limits. Conv and the pools read
// theirs in conv_pool.cc, where the kernel must be a constant.
#ifndef SHAPELINT_LIB_INFER_CONV_WINDOW_H_
#define SHAPELINT_LIB_INFER_CONV_WINDOW_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "infer/op_context.h"

namespace shapelint::infer::conv {

enum class AutoPad { kNotSet, kValid, kSameUpper, kSameLower, kInvalid };

AutoPad ReadAutoPad(const OpContext& ctx);

// strides / dilations / pads / output_padding with their defaults; nullopt when an attribute
// has the wrong length or a value the spec does not allow.
struct Window {
  std::vector<sym::MaybeExpr> kernel;  // symbolic when read from a weight dim that is symbolic
  std::vector<int64_t> strides, dilations, pads, output_padding;
};

std::optional<Window> ReadWindow(const OpContext& ctx, size_t spatial, const TensorFact& w);

// A forward convolution's output, Y = [N, M, spatial...] with M = W.shape[0], over a kernel that
// may be W's symbolic dims, and the channel requirement X.shape[1] == W.shape[1] * group (in
// conv_variants.cc; Conv itself takes it when W's kernel dims are not constants).
void ForwardConv(OpContext& ctx, size_t x_index, size_t w_index, bool allow_auto_pad,
                 const char* op);

}  // namespace shapelint::infer::conv

#endif  // SHAPELINT_LIB_INFER_CONV_WINDOW_H_
