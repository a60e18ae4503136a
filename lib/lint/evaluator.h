// The graph evaluated at concrete sizes, without running it: the first requirement that fails
// there, the shapes of the graph's inputs and outputs, and the search for sizes near the
// witness (or the export sizes) at which it breaks.
#ifndef SHAPELINT_LIB_LINT_EVALUATOR_H_
#define SHAPELINT_LIB_LINT_EVALUATOR_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "lint/export_ranges.h"
#include "lint/granule.h"
#include "lint/witness.h"
#include "shapelint/infer/engine.h"
#include "shapelint/ir/model.h"
#include "shapelint/lint/finding.h"
#include "shapelint/sym/expr.h"

namespace shapelint::lint {

// A size of one symbol worth trying for a counterexample.
struct SizeProbe {
  std::string symbol;
  int64_t value = 0;
};

// Values for the input symbols that give `model`'s graph inputs these concrete shapes, or nullopt
// when a shape contradicts a static dim, the rank, or a dim declared as an expression of symbols
// (`why`, when given, says which). Needs only the engine's facts.
std::optional<sym::Binding> BindInputShapes(
    const ir::Model& model, const infer::Inference& inference,
    const std::vector<std::pair<std::string, std::vector<int64_t>>>& shapes,
    std::string* why = nullptr);

class GraphEvaluator {
 public:
  // `symbols` are the input symbols (sorted); `solution` their witness.
  // `recorded`: the exporter's ranges, which the counterexample search keeps to.
  GraphEvaluator(const ir::Model& model, const infer::Inference& inference,
                 const std::vector<std::string>& symbols, const Solution& solution,
                 const InputSymbolRanges& recorded)
      : model_(model),
        inference_(inference),
        symbols_(symbols),
        solution_(solution),
        recorded_(recorded),
        granules_(inference, solution.witness()) {}

  struct Failure {
    const infer::Requirement* requirement = nullptr;
    int64_t lhs = 0, rhs = 0;
  };
  // The first requirement, in topological order, that fails at `binding`.
  std::optional<Failure> FirstFailure(const sym::Binding& binding) const;
  // The same among the requirements of the ops, leaving out declared shapes: whether the
  // graph can run at `binding` at all.
  std::optional<Failure> FirstNodeFailure(const sym::Binding& binding) const;

  // The graph evaluated at `binding`: input and output shapes, and the first node that fails
  // (failure empty when none does). This is "running the model at that size", statically.
  Counterexample Evaluate(const sym::Binding& binding) const;
  // The same, if some requirement fails there.
  std::optional<Counterexample> CounterexampleAt(const sym::Binding& binding) const;

  // The witness with `symbols` moved just outside the range where the model works (above it,
  // below it, or to twice the size), at the first of those at which something fails: one
  // symbol alone first, then all of them together. Moves are steps of the symbol's granule
  // (lint/granule.h) first, then of 1.
  // Where `own` is given, a move at which that requirement itself fails comes first, then the
  // moves above: a view's element count b*c*H*W == 80*b*c fails where H or W moves, and moving
  // c, which it cancels, shows only what a weight after it needs.
  // Each symbol moves with its peers first (PeersOf), then alone.
  std::optional<sym::Binding> MoveSymbols(const std::vector<std::string>& symbols,
                                          const infer::Requirement* own = nullptr) const;
  // `symbols` in the order the inputs' axes name them; any the inputs do not name, last.
  std::vector<std::string> InAxisOrder(const std::vector<std::string>& symbols) const;
  // The symbols that move with `symbol` in a counterexample: those of other inputs that the
  // export sizes (SetExample) give its size, at the same axis counted from the front or from
  // the back (the batch of the tokens and of their mask, the samples of the densities and of
  // their colours, axes that meet under broadcasting), and that `base` holds at that size too.
  // Two inputs the user fed alike are meant to be; an exporter that names each input's axes
  // apart (TorchScript's dynamic_axes) does not say so, and moving one alone breaks eager
  // PyTorch too, which shows nothing of what the export baked. Sizes the witness search chose
  // are no such evidence (a concatenation's two blocks solved to 12 each): without export sizes
  // no symbol has peers, nor where more than kMaxSharedSize symbols share its export size.
  std::vector<std::string> PeersOf(const std::string& symbol, const sym::Binding& base) const;
  // `base` with `symbol` at `size`: with its peers `among` the symbols a finding names at the
  // same size first (where the exporter's record allows them that size), then alone.
  std::vector<sym::Binding> Moved(const sym::Binding& base, const std::string& symbol, int64_t size,
                                  const std::vector<std::string>& among) const;
  // A binding near the witness, moving `symbols`, at which the graph breaks; evaluated.
  std::optional<Counterexample> CounterexampleFor(const std::vector<std::string>& symbols,
                                                  const infer::Requirement* own = nullptr) const;
  // A binding at the export sizes `example`, moving one of `symbols` to a nearby size (a
  // granule more or less where the symbol has one, double, one less, one more, half) or to one
  // of the `exact` probes, at which the graph fails at
  // `node` or downstream of it. A failed divisibility (Reshape with -1) counts only at an exact
  // probe and at `node` itself: elsewhere eager PyTorch would fail the same way.
  std::optional<Counterexample> FailureNearExample(const sym::Binding& example,
                                                   const std::vector<std::string>& symbols,
                                                   const ir::Graph& graph, int node,
                                                   const std::vector<SizeProbe>& exact) const;

  // The sizes the model was exported at, where known (only the symbols given): what PeersOf
  // reads.
  void SetExample(const sym::Binding& example);

  // Concrete dims of `value` (of the main graph) under `binding`; nullopt if any is unknown.
  std::optional<std::vector<int64_t>> DimsAt(std::string_view value,
                                             const sym::Binding& binding) const;
  // BindInputShapes on this evaluator's model.
  std::optional<sym::Binding> BindInputs(
      const std::vector<std::pair<std::string, std::vector<int64_t>>>& shapes,
      std::string* why = nullptr) const {
    return BindInputShapes(model_, inference_, shapes, why);
  }

 private:
  std::vector<ShapeAt> OutputShapes(const sym::Binding& binding) const;
  // The first failing requirement, declared shapes included or not.
  std::optional<Failure> FirstFailureAmong(const sym::Binding& binding, bool declared) const;

  const ir::Model& model_;
  const infer::Inference& inference_;
  const std::vector<std::string>& symbols_;
  const Solution& solution_;
  const InputSymbolRanges& recorded_;
  Granules granules_;
  sym::Binding example_;
  // Each symbol the example gives, with the symbols PeersOf may move with it (sorted).
  absl::flat_hash_map<std::string, std::vector<std::string>> peers_;
  // More symbols than this of one size at the export have no peers.
  static constexpr size_t kMaxSharedSize = 64;
};

// A node of `graph` as findings point at it.
NodeRef RefTo(const ir::Graph& graph, int node);

}  // namespace shapelint::lint

#endif  // SHAPELINT_LIB_LINT_EVALUATOR_H_
