#include "infer/conv_window.h"

#include <string>

#include "infer/nn_util.h"

namespace shapelint::infer::conv {

using nn::C;

AutoPad ReadAutoPad(const OpContext& ctx) {
  const std::string s = ctx.AttrString("auto_pad").value_or("NOTSET");
  if (s == "NOTSET" || s.empty()) return AutoPad::kNotSet;
  if (s == "VALID") return AutoPad::kValid;
  if (s == "SAME_UPPER") return AutoPad::kSameUpper;
  if (s == "SAME_LOWER") return AutoPad::kSameLower;
  return AutoPad::kInvalid;
}

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

}  // namespace shapelint::infer::conv
