// Padding the graph applies on the way to a node: a view of a tensor the graph grew.
#ifndef SHAPELINT_LIB_LINT_PADDING_H_
#define SHAPELINT_LIB_LINT_PADDING_H_

#include <cstdint>
#include <optional>
#include <string>

#include "lint/analysis.h"
#include "shapelint/infer/facts.h"
#include "shapelint/ir/model.h"
#include "shapelint/lint/finding.h"
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

// A Pad upstream of `node` in `graph` (the node itself excluded) that grows an axis of its data
// at `fails` and leaves it alone at `holds`.
std::optional<UncroppedPad> PadGrowingBefore(const Analysis& analysis, const ir::Graph& graph,
                                             int node, const sym::Binding& holds,
                                             const sym::Binding& fails);

// A Pad upstream of `requirement`'s node that grows an axis of size `symbol` + c by literal
// amounts (every entry of its pads a literal) such that the one residue class `classes` keeps
// `symbol` to is the one the amount rounds up to a multiple: FFDNet pads the bottom by
// int(np.ceil(h / 2) * 2 - h), 1 at h = 7, and its pixel_unshuffle(2) then runs only at odd h.
// A module pads to the multiple it needs at every size, so it accepts the multiples themselves;
// a graph that accepts only the residue its literal pad completes holds the example's remainder.
//
// Or, where the class is the multiples themselves: the same Pad grows another axis to a multiple
// of k at every size by an amount it computes from that axis' size, and this one by a literal.
// Real-ESRGAN pads by 2 - h % 2 only `if h % 2 != 0` (and w): traced at 7 x 10, h's pad follows
// h and w's is the literal 0, so the graph runs only at even w, where eager pads w too.
struct PadToResidue {
  int pad_node = -1;  // in the requirement's graph
  std::string symbol;
  int64_t amount = 0;   // what the Pad adds along the axis: a literal
  int64_t every = 0;    // the multiple
  int64_t residue = 0;  // the class of `symbol` modulo `every`
  // The size of the input axis the same Pad grows to a multiple by a computed amount, where
  // residue is 0.
  std::optional<std::string> computed_axis;
};
std::optional<PadToResidue> LiteralPadToResidue(const Analysis& analysis,
                                                const infer::Requirement& requirement,
                                                const Witness& classes);

}  // namespace shapelint::lint

#endif  // SHAPELINT_LIB_LINT_PADDING_H_
