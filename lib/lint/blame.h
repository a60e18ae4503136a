// Blame: from where a pin makes the graph fail back to the op where the example size entered.
//
// Each pin is moved just outside the sizes where it holds; the graph is evaluated there, and the
// walk starts at the first node that fails. It goes upstream through the nodes whose output
// shapes changed with the move, nearest first, and offers each to the rules that run, in
// registry order: the first rule that recognises the node as its pattern (a decomposed adaptive
// pool, a literal Reshape target) claims the failure. When none does, the literal operand of the
// failing node, if it has one, is offered the same way (a weight, a folded constant). A failure
// nobody claims stays without a culprit; the rules for declared shapes and input contracts report
// those. Pins blamed on the same node are one cause.
#ifndef SHAPELINT_LIB_LINT_BLAME_H_
#define SHAPELINT_LIB_LINT_BLAME_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/types/span.h"
#include "lint/evaluator.h"
#include "lint/literals.h"
#include "lint/pins.h"
#include "lint/witness.h"
#include "shapelint/infer/engine.h"
#include "shapelint/ir/model.h"
#include "shapelint/sym/expr.h"

namespace shapelint::lint {

// One pin's failure as the walk sees it.
class BlameSite {
 public:
  BlameSite(const infer::Inference& inference, const GraphEvaluator& evaluator,
            const sym::Binding& witness, const sym::Binding& moved, const Pin& pin,
            const infer::Requirement& failing, const LiteralSource& literal)
      : inference_(inference),
        evaluator_(evaluator),
        witness_(witness),
        moved_(moved),
        pin_(pin),
        failing_(failing),
        literal_(literal) {}

  const infer::Inference& inference() const { return inference_; }
  const ir::Graph& graph() const { return *inference_.graph; }  // the main graph
  // The pin being blamed, moved just outside the sizes where it holds.
  const Pin& pin() const { return pin_; }
  // The first requirement that fails at moved(), and its node: where the walk starts.
  const infer::Requirement& failing() const { return failing_; }
  int start() const { return failing_.node; }
  // The sizes where every pin holds, and those the pin was moved to.
  const sym::Binding& witness() const { return witness_; }
  const sym::Binding& moved() const { return moved_; }
  // The literal operand of the failing node (kind kNone when it has none).
  const LiteralSource& literal() const { return literal_; }

  // Concrete dims of `value` at the witness and at the moved sizes.
  std::optional<std::vector<int64_t>> DimsAtWitness(std::string_view value) const {
    return evaluator_.DimsAt(value, witness_);
  }
  std::optional<std::vector<int64_t>> DimsAtMoved(std::string_view value) const {
    return evaluator_.DimsAt(value, moved_);
  }
  // True when an output of `node` has other dims at the moved sizes than at the witness: the
  // size being blamed passes through it.
  bool Changed(int node) const;
  // True when `value` has other dims at the moved sizes than at the witness.
  bool ValueChanged(std::string_view value) const {
    return DimsAtWitness(value) != DimsAtMoved(value);
  }

 private:
  const infer::Inference& inference_;
  const GraphEvaluator& evaluator_;
  const sym::Binding& witness_;
  const sym::Binding& moved_;
  const Pin& pin_;
  const infer::Requirement& failing_;
  const LiteralSource& literal_;
};

// What the walk asks of each rule that runs.
class Matcher {
 public:
  virtual ~Matcher() = default;
  // True when `node`, reached by the walk from `site`'s failure, is where the size entered by
  // this rule's pattern.
  virtual bool ClaimsNode(const BlameSite& site, int node) const { return false; }
  // True when the failing node's literal operand (site.literal(), of a kind other than kNone)
  // is this rule's: asked only when no rule claimed a node of the walk.
  virtual bool ClaimsLiteral(const BlameSite& site) const { return false; }
  // True when `node`, on the side of the failure that kept its size and never read the moved
  // one (a mask of arange(T + 5) where past + T belongs), holds the literal that took the
  // size's place: asked only when nothing else claimed the failure.
  virtual bool ClaimsKeptNode(const BlameSite& site, int node) const { return false; }
};

// The pins one culprit explains.
struct Cause {
  const Matcher* owner = nullptr;  // the rule that claimed it; nullptr when no rule did
  const ir::Graph* graph = nullptr;
  int node = -1;                     // the culprit; -1 when no rule claimed one
  std::vector<const Pin*> pins;      // pins that fail because of it
  std::vector<std::string> symbols;  // union of the pins' symbols, sorted
  std::vector<int> chain;            // nodes from the culprit to the first failing node
  LiteralSource literal;             // the literal operand it was claimed through, if any
};

// What blame reads: the analysis' parts.
struct BlameInputs {
  const ir::Model& model;
  const infer::Inference& inference;
  const Solution& solution;
  const GraphEvaluator& evaluator;
  // Input symbols torch.export specialized to one size, with it (lint/export_ranges.h).
  const std::map<std::string, int64_t>& specialized;
  const ParameterSignature& signature;
};

struct Blamed {
  std::vector<Cause> causes;
  // Symbols of pins whose failing node meets a trained weight (LiteralSource::Kind::kWeight),
  // whoever claims them.
  std::vector<std::string> weight_symbols;
};

// The causes of `pins`, claimed by `matchers` in their order.
Blamed AssignCauses(const BlameInputs& in, const std::vector<Pin>& pins,
                    absl::Span<const Matcher* const> matchers);

}  // namespace shapelint::lint

#endif  // SHAPELINT_LIB_LINT_BLAME_H_
