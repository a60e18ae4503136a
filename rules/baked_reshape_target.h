// SL002's pieces outside its detection (baked_reshape_target.cc): the notes on who may own a
// target's literals (baked_reshape_target_table.cc), and how a target's entries stand to the
// input's dims: literals that only pass static dims through, a literal that takes a merged
// axis' factor (baked_reshape_target_static.cc). Private to the rule.
#ifndef SHAPELINT_RULES_BAKED_RESHAPE_TARGET_H_
#define SHAPELINT_RULES_BAKED_RESHAPE_TARGET_H_

#include <optional>
#include <string>
#include <vector>

#include "lint/analysis.h"
#include "shapelint/lint/finding.h"

namespace shapelint::lint::baked_reshape_target {

// Where a trained table sized like a literal of the cause's Reshape target that stands for
// dynamic dims (an attention bias over the 49 tokens of a 7 x 7 grid) meets the reshaped tensor
// downstream, adds to `f` that the module's own parameters may fix that size, so that eager
// PyTorch fails at the counterexample too.
void NoteTrainedTable(const Analysis& analysis, const Cause& cause, Finding& f);

// Who writes the cause's target literals. Where the node's recorded line spells out every one
// (x.view(x.shape[:-1] + (2, 4))), they are the module's own constants: design (a note), as a
// count the line writes is (SL010). Where no line is recorded and literal factors split the
// input's last dynamic dim whole, adds both readings: a split into heads, which eager PyTorch
// shares, or a bake.
void NoteWrittenLiterals(const Analysis& analysis, const Cause& cause, Finding& f);

// A cause only intermediate value_info pins (a hint: the dynamo exporter's [s77, 320] for a view
// to [-1, 320]) whose counterexample shows the cause's Reshape itself failing, where a literal
// of its target stands for dynamic dims of the input (320 = C * H * W at the witness) and moves
// a symbol torch.export specialized: the exporter's record that the size reached the graph
// through the literal, an error by the severity policy.
void ConfirmOwnFailure(const Analysis& analysis, const Cause& cause, Finding& f);

// True when a Reshape's target follows its input's dynamic dims and its literals regroup only
// the static ones: [B, S, 512] to [B, S, 8, 64]. Its literals are right at every size.
bool RegroupsStaticDims(const infer::TensorFact& input, const infer::TensorFact& target);

// For each entry of `target`, whether it keeps a static dim of `input` (of known rank) at its
// place at either end, the literal equal to it: the coordinate pair of a sampling grid's
// [b, h * w, 2] viewed as [b, h, w, 2].
std::vector<bool> KeptStaticEnds(const infer::TensorFact& input,
                                 const std::vector<infer::Element>& target);

// Where `dim`, a Reshape input's first axis, merges one symbol with the dims that the target's
// entries after its first follow (SwinIR's window_reverse views [B * (H / 4) * (W / 4), 4, 4, C]
// as [2, H // 4, W // 4, 4, 4, -1]), that symbol, and the product of those entries as text: the
// literal first entry takes the symbol's place. The engine may not cancel the product (a
// layer's features divide it by C, which a weight fixes), so the factor is read where the graph
// runs: at `witness`, and as the symbol, then each symbol of the product, is doubled in turn (a
// size of 1 at the witness, one window, hides no factor that way).
struct MergedFactor {
  std::string symbol;
  std::string rest;
};
std::optional<MergedFactor> FactorBeforeFollowingEntries(const sym::Expr& dim,
                                                         const std::vector<infer::Element>& target,
                                                         const sym::Binding& witness);

}  // namespace shapelint::lint::baked_reshape_target

#endif  // SHAPELINT_RULES_BAKED_RESHAPE_TARGET_H_
