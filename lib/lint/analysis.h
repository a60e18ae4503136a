// What rules query: inference results, pins, the witness, counterexamples and blame.
//
// A requirement that holds for some sizes and not others is a pin: the graph quietly
// restricts a dim its inputs declare free. The analysis solves all pins together for a
// witness (sizes at which the model works), moves the pinned symbols just outside the range
// where the model works to get a counterexample, evaluates the graph there to find where it
// breaks, and walks back from that node to the op where the example size entered (the cause).
#ifndef SHAPELINT_LIB_LINT_ANALYSIS_H_
#define SHAPELINT_LIB_LINT_ANALYSIS_H_

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/statusor.h"
#include "shapelint/infer/engine.h"
#include "shapelint/ir/model.h"
#include "shapelint/lint/finding.h"
#include "shapelint/lint/probe.h"
#include "shapelint/sym/expr.h"

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
};

// Known ways an example size enters a graph.
enum class Pattern {
  kNone,
  kAdaptivePool,    // a pooling window derived from the input size (adaptive pool decomposed)
  kLiteralReshape,  // a Reshape target holding literal sizes
  kFixedByWeight,   // a dim fixed by a weight's shape (a per-channel vector, a conv kernel)
  kFoldedConstant,  // a literal tensor (a Constant, a folded initializer) sized at the example
};

// Where the literal side of a failing requirement came from.
struct LiteralSource {
  enum class Kind { kNone, kWeight, kConstant };
  Kind kind = Kind::kNone;
  const ir::Graph* graph = nullptr;
  int node = -1;                // the Constant node; -1 for an initializer
  std::string name;             // the initializer or the Constant's output
  std::vector<int64_t> dims;    // the literal tensor's dims
  std::vector<int64_t> values;  // its values, when it is a shape operand (Expand's target)
  int consumer = -1;            // the node where it meets the dynamic dim
  int entry = -1;               // the Expand or Tile it sizes, when it is a shape operand
  std::vector<int> through;     // nodes it passes between there and the consumer, in order
};

// The op a group of pins is blamed on.
struct Cause {
  Pattern pattern = Pattern::kNone;
  const ir::Graph* graph = nullptr;
  int node = -1;                     // the culprit; -1 when no pattern was recognised
  std::vector<const Pin*> pins;      // pins that fail because of it
  std::vector<std::string> symbols;  // union of the pins' symbols, sorted
  std::vector<int> chain;            // nodes from the culprit to the first failing node
  LiteralSource literal;             // for kFixedByWeight and kFoldedConstant
};

class Analysis {
 public:
  explicit Analysis(const ir::Model& model);

  const ir::Model& model() const { return model_; }
  const infer::Inference& inference() const { return inference_; }
  const std::vector<Pin>& pins() const { return pins_; }
  const std::vector<Cause>& causes() const { return causes_; }

  // The sizes under which every pin holds (best effort), and every input symbol's value there.
  const sym::Binding& witness() const { return witness_; }
  bool witness_found() const { return witness_found_; }

  // Where `symbols` may move while everything else stays at the witness.
  Witness WitnessFor(const std::vector<std::string>& symbols) const;
  // A binding near the witness, moving `symbols`, at which the graph breaks; evaluated.
  std::optional<Counterexample> CounterexampleFor(const std::vector<std::string>& symbols) const;
  // The graph evaluated at `binding`, if some requirement fails there.
  std::optional<Counterexample> CounterexampleAt(const sym::Binding& binding) const;
  // The graph evaluated at `binding`: input and output shapes, and the first node that fails
  // (failure empty when none does). This is "running the model at that size", statically.
  Counterexample Evaluate(const sym::Binding& binding) const;
  // Values for the input symbols that give the graph inputs these concrete shapes, or nullopt
  // when a shape contradicts a static dim or the rank.
  std::optional<sym::Binding> BindInputs(
      const std::vector<std::pair<std::string, std::vector<int64_t>>>& shapes) const;

  // The sizes the model was exported at, when the user gives them (only the symbols given).
  // Literals that equal a size derived from them are findings of their own (SL007, SL008).
  const sym::Binding& example() const { return example_; }
  bool has_example() const { return !example_.values().empty(); }
  void SetExample(sym::Binding example) { example_ = std::move(example); }
  // True when a weight's shape fixes `symbol` to one size (SL004's finding).
  bool FixedByWeight(const std::string& symbol) const;
  // A size of one symbol at which the literal's derivation is exact, so that eager PyTorch's
  // version of the literal would fit there: a perfect square for sqrt(T), k - 1 for D // 2.
  struct Probe {
    std::string symbol;
    int64_t value = 0;
  };
  // A binding at the example sizes, moving one of `symbols` to a nearby size (one less, one
  // more, half, double) or to one of `exact` probes, at which the graph fails at `node` or
  // downstream of it. A failed divisibility (Reshape with -1) counts only at an exact probe and
  // at `node` itself: elsewhere eager PyTorch would fail the same way.
  std::optional<Counterexample> FailureNearExample(const std::vector<std::string>& symbols,
                                                   const ir::Graph& graph, int node,
                                                   const std::vector<Probe>& exact = {}) const;

  NodeRef Ref(const ir::Graph& graph, int node) const;
  // Concrete dims of `value` under `binding`; nullopt if any dim is unknown there.
  std::optional<std::vector<int64_t>> ShapeAt(std::string_view value,
                                              const sym::Binding& binding) const;

 private:
  struct Failure {
    const infer::Requirement* requirement = nullptr;
    int64_t lhs = 0, rhs = 0;
  };
  enum class Verdict {
    kHolds,        // at every size tried
    kConstraint,   // narrows the sizes, as eager PyTorch does too (divisibility, congruences)
    kPin,          // holds at some sizes only
    kAlwaysFalse,  // fails whatever the sizes
  };
  // The verdict on a requirement that held at `holds` of the sample bindings and failed at
  // `fails` of them.
  Verdict Classify(const infer::Requirement& requirement, const std::vector<std::string>& syms,
                   int holds, int fails) const;
  // Requirements that decide whether sizes are acceptable (pins and divisibility).
  bool HoldsAt(const std::vector<const infer::Requirement*>& constraints,
               const sym::Binding& binding) const;
  // Sizes a literal Reshape target suggests for its input's symbols, if it spells them out.
  std::optional<sym::Binding> ReshapeHint(const infer::Requirement& requirement) const;
  // True when `requirement` holds at two bindings with all of `syms` far above any literal.
  bool HoldsFarOut(const infer::Requirement& requirement,
                   const std::vector<std::string>& syms) const;
  // The sample bindings that tell a requirement that always holds from one that pins: the same
  // value for every input symbol, and distinct values so that coincidences between symbols
  // show. SetSample gives the input symbols of `binding` the values of sample `k`; one binding
  // taking each sample in turn copies its keys once.
  static constexpr int kNumSamples = 42;
  void SetSample(int k, sym::Binding& binding) const;
  // True when `requirement` holds at every sample moved onto `contracts` (sums of input dims
  // that the graph requires to be 0), and at three of them at least.
  bool HoldsUnderContracts(const infer::Requirement& requirement,
                           const std::vector<sym::Expr>& contracts) const;
  std::optional<Failure> FirstFailure(const sym::Binding& binding) const;
  std::optional<sym::Binding> MoveSymbols(const std::vector<std::string>& symbols) const;
  void FindPins();
  void SolveWitness();
  void AssignCauses();
  Cause Blame(const Pin& pin) const;
  // The literal tensor that supplies the constant side of `requirement` at its node, traced
  // back through layout ops (Unsqueeze, Reshape, Slice, ...) to an initializer or Constant.
  LiteralSource LiteralSideOf(const infer::Requirement& requirement) const;
  // `constant` is the size being traced: an Expand or Tile is the source only when its target
  // holds it; otherwise the tensor it expands is followed.
  LiteralSource SourceOf(const ir::Graph& graph, std::string_view value, int64_t constant,
                         int depth) const;
  std::optional<std::pair<int64_t, int64_t>> RangeOf(const std::string& symbol) const;
  std::optional<std::pair<int64_t, int64_t>> ScanRange(const std::string& symbol) const;

  const ir::Model& model_;
  infer::Inference inference_;
  std::vector<std::string> symbols_;  // input symbols, sorted
  std::vector<Pin> pins_;
  std::vector<const infer::Requirement*> constraints_;
  sym::Binding witness_;
  bool witness_found_ = true;
  sym::Binding example_;
  absl::flat_hash_set<std::string> unsolved_;  // symbols of groups without a witness
  // Ranges are asked for repeatedly (witness, counterexample, blame) and the witness is fixed.
  mutable absl::flat_hash_map<std::string, std::optional<std::pair<int64_t, int64_t>>> range_cache_;
  std::vector<Cause> causes_;
};

// The sizes `spec` gives the model's input symbols (a range's symbol is left out), or an error
// naming a symbol or input the model does not have.
absl::StatusOr<sym::Binding> BindSizes(const Analysis& analysis, const ProbeSpec& spec);

// How to describe a failure of `requirement` with these concrete sides.
std::string DescribeFailure(const infer::Requirement& requirement, int64_t lhs, int64_t rhs);
// "[2, 3, 8, 9]"
std::string FormatDims(const std::vector<int64_t>& dims);

}  // namespace shapelint::lint

#endif  // SHAPELINT_LIB_LINT_ANALYSIS_H_
