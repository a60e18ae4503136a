// The witness: sizes at which every pin and constraint holds, and how far each symbol may move
// from there while the model keeps working.
//
// Symbols that appear together in a requirement form a group, solved on its own: the sizes a
// literal Reshape target spells out, else one size for the whole group (exports usually use one
// for all dynamic axes: 224x224), else one symbol at a time. A group without a solution gets no
// witness: its symbols are "unsolved", and the model breaks wherever it is tried.
#ifndef SHAPELINT_LIB_LINT_WITNESS_H_
#define SHAPELINT_LIB_LINT_WITNESS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "lint/pins.h"
#include "shapelint/infer/engine.h"
#include "shapelint/lint/finding.h"
#include "shapelint/sym/expr.h"

namespace shapelint::lint {

// Sizes are searched up to this bound: export sizes beyond it are rare, and every scan step is
// one evaluation of a few small expressions.
inline constexpr int64_t kScanLimit = 8192;

class Solution {
 public:
  // Solves `constraints` over the input symbols `symbols` (sorted) of `inference`.
  Solution(const infer::Inference& inference, const std::vector<std::string>& symbols,
           const std::vector<const infer::Requirement*>& constraints);
  Solution(const Solution&) = delete;
  Solution& operator=(const Solution&) = delete;

  // Every input symbol's size at the witness (best effort where a group is unsolved).
  const sym::Binding& witness() const { return witness_; }
  // True when `symbol` belongs to a group that no sizes satisfy.
  bool Unsolved(const std::string& symbol) const { return unsolved_.contains(symbol); }

  // Takes the sizes `example` gives (the export sizes) into the witness when every constraint
  // holds there: the model ran at them, and a witness that contains them is the one a user
  // recognises. False, and nothing changes, when some constraint fails there.
  bool Prefer(const sym::Binding& example);

  // The sizes [lo, hi] over which `symbol` may move with the others at the witness while every
  // constraint holds; hi is past kScanLimit when no bound was found. nullopt when unsolved.
  std::optional<std::pair<int64_t, int64_t>> RangeOf(const std::string& symbol) const;

  // Where `symbols` may move while everything else stays at the witness, with the pins over
  // several symbols that relate them. A symbol's window is searched for repeats
  // (SymbolRange::every) where a pin that rounds up involves it, or everywhere when `repeats`.
  Witness WitnessFor(const std::vector<std::string>& symbols, const std::vector<Pin>& pins,
                     bool repeats = false) const;

 private:
  void SolveGroup(const std::vector<std::string>& members,
                  const std::vector<const infer::Requirement*>& constraints);
  std::optional<std::pair<int64_t, int64_t>> ScanRange(const std::string& symbol) const;
  // The constraints over `symbol`.
  std::vector<const infer::Requirement*> ConstraintsOver(const std::string& symbol) const;
  // The period after which the sizes [lo, hi] of `symbol` work again, when they do, window for
  // window, twice over (SymbolRange::every).
  std::optional<int64_t> PeriodOf(const std::string& symbol, int64_t lo, int64_t hi) const;
  // The smallest size of `symbol` that works, where from it on the sizes that work below [lo, hi]
  // and a few windows past those PeriodOf checked are exactly the sizes congruent to [lo, hi]
  // modulo `every` (SymbolRange::congruent_from); nullopt where they are not.
  std::optional<int64_t> CongruentFrom(const std::string& symbol, int64_t lo, int64_t hi,
                                       int64_t every) const;
  // The sizes of `symbol` outside [lo, hi] (hi past kScanLimit: none above) that work with the
  // others at the witness, into r.also and r.more (SymbolRange::also).
  void OtherSizes(const std::string& symbol, int64_t lo, int64_t hi, SymbolRange& r) const;
  void FindOtherSizes(const std::string& symbol, int64_t lo, int64_t hi, SymbolRange& r) const;

  const infer::Inference& inference_;
  const std::vector<const infer::Requirement*>& constraints_;
  sym::Binding witness_;
  absl::flat_hash_set<std::string> unsolved_;
  // Ranges are asked for repeatedly (witness, counterexample, blame) and the witness is fixed.
  mutable absl::flat_hash_map<std::string, std::optional<std::pair<int64_t, int64_t>>> range_cache_;
  // The constraints over each symbol, in the constraints' order (ConstraintsOver), built once.
  mutable std::optional<absl::flat_hash_map<std::string, std::vector<const infer::Requirement*>>>
      by_symbol_;
  // The sizes outside the window that work, by symbol (OtherSizes), found once.
  mutable absl::flat_hash_map<std::string, std::pair<std::vector<int64_t>, bool>> also_cache_;
};

// Says what a "works only for ..." witness summary speaks of where that is not the graph
// running: "works only for T = 5" becomes `subject` + " only for T = 5" ("the declaration
// holds"). Other summaries are left as they are.
void SayWitnessOf(std::string_view subject, Witness& witness);

// How a witness's summary states the requirements that couple its symbols: the shortest, at
// most two of at most 160 characters each, in the order given, and how many more there are ("the
// model requires A and B, and 3 more requirements the JSON report lists").
std::string RelationsText(const std::vector<std::string>& relations);

// Drops each "a ~ b" (broadcastable) of `relations` that "a == b" or "b == a" among them implies.
void DropImpliedRelations(std::vector<std::string>& relations);

// How a witness's summary states one symbol's range: "T = 5", "h in [6, 8]", "T a multiple of
// 4", "s0 >= 2", "T at any size".
std::string SymbolRangeText(const SymbolRange& range);

// True when `range` leaves out some size from 1 on (a window, a minimum): not "at any size".
bool Restricted(const SymbolRange& range);

// The symbols of `symbols` that `witness` restricts (each with the others at the witness), in
// order; all of them where it restricts none. A batch that cancels out of an element count is
// left out: the requirement holds at every batch.
std::vector<std::string> RestrictedSymbols(const Witness& witness,
                                           const std::vector<std::string>& symbols);

}  // namespace shapelint::lint

#endif  // SHAPELINT_LIB_LINT_WITNESS_H_
