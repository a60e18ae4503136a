// Recurrent layers: RNN, GRU and LSTM (opsets 7, 14 and 22 share the shape rule; 14 adds the
// layout attribute). With num_directions = 2 for "bidirectional", else 1:
//   layout 0: X [seq, batch, input]  Y [seq, num_directions, batch, hidden]
//             Y_h, Y_c, initial_h, initial_c [num_directions, batch, hidden]
//   layout 1: X [batch, seq, input]  Y [batch, seq, num_directions, hidden]
//             Y_h, Y_c, initial_h, initial_c [batch, num_directions, hidden]
// W is [num_directions, gates * hidden, input] and R [num_directions, gates * hidden, hidden];
// sequence_lens is [batch].
#include "absl/strings/str_cat.h"
#include "infer/nn_util.h"
#include "infer/op_context.h"
#include "infer/ops.h"

namespace shapelint::infer {
namespace {

using nn::C;
using nn::DimOf;
using sym::MaybeExpr;

// `state_outputs` is 1 for RNN and GRU (Y_h), 2 for LSTM (Y_h, Y_c); the initial states are
// inputs 5 (and 6 for LSTM).
void InferRecurrent(OpContext& ctx, const char* op, int state_outputs) {
  const TensorFact& x = ctx.in(0);
  for (size_t k = 0; k < ctx.num_outputs(); ++k) ctx.out(k).elem_type = x.elem_type;
  const std::string direction = ctx.AttrString("direction").value_or("forward");
  int64_t dirs;
  if (direction == "forward" || direction == "reverse") {
    dirs = 1;
  } else if (direction == "bidirectional") {
    dirs = 2;
  } else {
    return;
  }
  // The layout attribute exists from opset 14; earlier kernels ignore it.
  const int64_t layout = ctx.opset() >= 14 ? ctx.AttrInt("layout", 0) : 0;
  if (layout != 0 && layout != 1) return;
  const TensorFact& w = ctx.in(1);
  const TensorFact& r = ctx.in(2);
  // hidden_size is the attribute; R's last dim is hidden_size by definition, so it stands in
  // when the attribute is missing.
  MaybeExpr hidden = DimOf(r, 2);
  if (auto h = ctx.AttrInt("hidden_size")) {
    if (*h < 1) return;
    if (r.shape && r.rank() == 3) {
      ctx.Require(RequirementKind::kInnerDim, Relation::kEqual, (*r.shape)[2], C(*h),
                  absl::StrCat(op, " R axis 2 vs hidden_size"), kNoOrigin, 2);
    }
    hidden = C(*h);
  }
  if (!x.shape || x.rank() != 3) return;
  const MaybeExpr seq = (*x.shape)[layout == 0 ? 0 : 1];
  const MaybeExpr batch = (*x.shape)[layout == 0 ? 1 : 0];
  if (w.shape && w.rank() == 3) {
    ctx.Require(RequirementKind::kInnerDim, Relation::kEqual, (*x.shape)[2], (*w.shape)[2],
                absl::StrCat(op, " input size: X axis 2 vs W axis 2"), kNoOrigin, 2);
  }
  // Initial states carry the batch dim at axis 1 (layout 0) or 0 (layout 1).
  for (int s = 0; s < state_outputs; ++s) {
    const TensorFact& init = ctx.in(5 + s);
    if (!init.shape || init.rank() != 3) continue;
    ctx.Require(RequirementKind::kBroadcast, Relation::kEqual, (*init.shape)[layout == 0 ? 1 : 0],
                batch, absl::StrCat(op, " input ", 5 + s, " batch vs X batch"), kNoOrigin,
                layout == 0 ? 1 : 0);
    ctx.Require(
        RequirementKind::kBroadcast, Relation::kEqual, (*init.shape)[layout == 0 ? 0 : 1], C(dirs),
        absl::StrCat(op, " input ", 5 + s, " axis ", layout == 0 ? 0 : 1, " vs num_directions"),
        kNoOrigin, layout == 0 ? 0 : 1);
  }
  // sequence_lens (input 4) holds one length per sequence of the batch (ONNX: shape
  // [batch_size]), each at most the sequence's length; ONNX Runtime refuses another shape
  // ("Input sequence_lens must have shape {3}") and longer lengths ("All values must be >= 0
  // and <= seq_length").
  const TensorFact& lens = ctx.in(4);
  if (lens.shape && lens.rank() == 1) {
    ctx.Require(RequirementKind::kBroadcast, Relation::kEqual, (*lens.shape)[0], batch,
                absl::StrCat(op, " sequence_lens length vs X batch"), kNoOrigin, 0);
  }
  if (lens.values) {
    for (const Element& e : *lens.values) {
      if (!ctx.Require(RequirementKind::kIndexBound, Relation::kAtLeast, seq, e.value,
                       absl::StrCat(op, " sequence_lens vs the sequence length"), e.origin,
                       layout == 0 ? 0 : 1)) {
        break;
      }
    }
  }
  if (ctx.num_outputs() > 0) {
    ctx.out(0).shape =
        layout == 0 ? Dims{seq, C(dirs), batch, hidden} : Dims{batch, seq, C(dirs), hidden};
  }
  const Dims state = layout == 0 ? Dims{C(dirs), batch, hidden} : Dims{batch, C(dirs), hidden};
  for (int s = 0; s < state_outputs; ++s) {
    if (ctx.num_outputs() > static_cast<size_t>(s) + 1) ctx.out(1 + s).shape = state;
  }
}

}  // namespace

void InferRNN(OpContext& ctx) { InferRecurrent(ctx, "RNN", 1); }
void InferGRU(OpContext& ctx) { InferRecurrent(ctx, "GRU", 1); }
void InferLSTM(OpContext& ctx) { InferRecurrent(ctx, "LSTM", 2); }

}  // namespace shapelint::infer
