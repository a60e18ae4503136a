// Padding the graph applies on the way to a node: a view of a tensor the graph grew.
#ifndef SHAPELINT_LIB_LINT_PADDING_H_
#define SHAPELINT_LIB_LINT_PADDING_H_

#include <cstdint>
#include <optional>

#include "lint/analysis.h"
#include "shapelint/infer/facts.h"
#include "shapelint/ir/model.h"
#include "shapelint/sym/expr.h"

namespace shapelint::lint {

// A Pad upstream of a Reshape that grows one axis of its data where the Reshape fails and not
// at the witness.
struct UncroppedPad {
  int pad_node = -1;      // the Pad, in the Reshape's graph
  int64_t axis = -1;      // the axis it grows
  sym::MaybeExpr growth;  // output dim minus input dim along it: what it pads by
  int64_t grown_by = 0;   // that growth where the Reshape fails
};

// When `requirement` is a Reshape's element count that fails at `fails` because its input
// holds more elements than its target, and a Pad on the way to it grows an axis there that it
// leaves alone at the witness: the graph pads the tensor to a multiple (of a window, a patch)
// where needed, and the view then takes the size from before padding. Code pads so that the
// view can run at every size; eager PyTorch crops the padding back before the view, in a
// branch on a size (`if was_padded:`) that the trace at a multiple did not take.
std::optional<UncroppedPad> PadNotCroppedBefore(const Analysis& analysis,
                                                const infer::Requirement& requirement,
                                                const sym::Binding& fails);

}  // namespace shapelint::lint

#endif  // SHAPELINT_LIB_LINT_PADDING_H_
