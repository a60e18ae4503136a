// Pins: the requirements that hold at some sizes and not at others.
//
// Every requirement the engine records is tried at sample sizes. One that always holds says
// nothing; divisibility and congruences (a Reshape with -1, c == 2 * floor(c / 2)) narrow the
// sizes the way eager PyTorch does too, and are constraints, and so are design bounds (a slice of a
// table clamped at its length); the rest hold at a bounded set of sizes only, or at none: they
// pin a dim that the inputs declare free.
#ifndef SHAPELINT_LIB_LINT_PINS_H_
#define SHAPELINT_LIB_LINT_PINS_H_

#include <string>
#include <vector>

#include "shapelint/infer/engine.h"

namespace shapelint::lint {

// A requirement that holds at some sizes and fails at others (or at all).
struct Pin {
  const infer::Requirement* requirement = nullptr;
  std::vector<std::string> symbols;  // symbols it involves, sorted
  bool always_false = false;         // fails at every size tried
  // A sum of input dims equal to another, every dim counted once and no constant involved
  // (past_seq + seq == total_seq): the model's input contract (SL006), which no node is blamed
  // for. A baked size always brings a constant or a factor (4*seq == 96).
  bool contract = false;
  // A Reshape whose target rounds a size up to a multiple (RoundsUp in pins.cc): it holds again
  // at every multiple, a congruence, which torch.export's ranges cannot record. That eager grew
  // the tensor in a branch the trace left out is why it is a pin at all.
  bool rounds_up = false;
};

// A requirement that holds exactly while its symbols stay at or below `max`: the graph slices a
// table or a buffer of `max` rows by a size (mask[:seq], position_ids[:, :seq]) and clamps it
// there, as eager PyTorch's slicing does. Past `max` the graph and eager fail alike: a bound of
// the model's design, not a baked size.
struct Bound {
  const infer::Requirement* requirement = nullptr;
  std::vector<std::string> symbols;  // sorted
  int64_t max = 0;
  // A bound on a sum of the symbols (past + seq positions into a table), not on each: one alone
  // may pass `max` while the others are small. `max` is then where they all stop together.
  bool on_sum = false;
};

struct PinSet {
  std::vector<Pin> pins;  // in the order of the requirements (topological)
  // The requirements that decide whether sizes are acceptable: pins and constraints, one for
  // each distinct requirement (a model states the same one in every layer).
  std::vector<const infer::Requirement*> constraints;
  // The constraints that are design bounds, one for each distinct requirement.
  std::vector<Bound> bounds;
};

// Classifies the requirements of `inference` over its input symbols (`symbols`, sorted).
// Requirements over other symbols (names from intermediate declarations) cannot be evaluated
// at input sizes and decide nothing.
PinSet FindPins(const infer::Inference& inference, const std::vector<std::string>& symbols);

}  // namespace shapelint::lint

#endif  // SHAPELINT_LIB_LINT_PINS_H_
