// A finding's path through the graph: from where the example size entered to the node that
// breaks, with the tensors on the way evaluated where the model works and where it does not.
//
// A finding names its node, the node that fails at its counterexample and, in its notes, the
// nodes the size travels through; a drawing of it (the HTML report, docs/html.md) needs what
// lies between them and the shapes there, which only the graph and its inference hold. This is
// computed on request, after linting: no report but the HTML one pays for it.
#ifndef SHAPELINT_LINT_FINDING_PATH_H_
#define SHAPELINT_LINT_FINDING_PATH_H_

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "shapelint/infer/engine.h"
#include "shapelint/ir/model.h"
#include "shapelint/lint/finding.h"
#include "shapelint/lint/lint.h"
#include "shapelint/sym/expr.h"

namespace shapelint::lint {

// Concrete dims, or element values, at one binding; an element is nullopt where it is unknown
// there (an unknown dim, or one that mentions a symbol the binding lacks).
using SizesAt = std::vector<std::optional<int64_t>>;

// A tensor on the path.
struct PathTensor {
  std::string name;
  // Its type as `onnx-shapelint shapes` prints it, "float[batch, 3, floor(height / 3), 2]",
  // cut at kMaxPathTypeText characters with "...".
  std::string type;
  // Its dims at the witness (the export size) and at the counterexample; nullopt when the rank
  // is unknown, and at_counterexample also when the finding has no counterexample.
  std::optional<SizesAt> at_witness;
  std::optional<SizesAt> at_counterexample;
  // For a small integer tensor whose values the engine tracks (a Reshape target, a shape
  // computed from Shape), at most kMaxPathValues of them, at both bindings: a size baked into a
  // literal is seen there. nullopt otherwise.
  std::optional<SizesAt> values_at_witness;
  std::optional<SizesAt> values_at_counterexample;
};

inline constexpr size_t kMaxPathTypeText = 160;
inline constexpr size_t kMaxPathValues = 16;
// Inputs from outside the path shown for one node; a Concat of many is cut there.
inline constexpr size_t kMaxSideInputs = 6;

// One tensor flowing into, along or out of the path.
struct PathEdge {
  // Where it comes from, when not from a node of the path.
  enum class Source {
    kPath,        // `from` is a node of the path
    kGraphInput,  // an input of the graph (or a value of an enclosing graph)
    kInitializer,
    kNode,  // a node off the path: `producer`
  };
  int from = -1;  // index in FindingPath::nodes; -1 when `source` is not kPath
  int to = -1;    // index in FindingPath::nodes; -1 for the value the last node puts out
  Source source = Source::kPath;
  std::optional<NodeRef> producer;  // for kNode
  bool graph_output = false;        // the value is an output of its graph
  PathTensor tensor;
};

struct FindingPath {
  // From the node where the size entered to the node that fails, along data flow: a node that
  // a note points at upstream of the finding's node (the Constant a literal came from), else
  // the finding's node; then the fewest nodes to the counterexample's failing node (or the
  // finding's node when it has no counterexample). Never empty for a finding whose node the
  // model has; empty when it has not (a finding about the model as a whole).
  std::vector<NodeRef> nodes;
  // False when the failing node is not downstream of the finding's node: `nodes` then ends at
  // the finding's node.
  bool connected = false;
  // In drawing order: for each node, the inputs it reads from outside the path (for the first
  // node, and for the last one, at most kMaxSideInputs each), then the value it passes to the
  // next node, or for the last node its output (a graph output where it has one).
  std::vector<PathEdge> edges;
  // The bindings the shapes are evaluated at, sorted by symbol: the witness (every input
  // symbol), and the counterexample's (empty when the finding has none).
  std::vector<std::pair<std::string, int64_t>> witness;
  std::vector<std::pair<std::string, int64_t>> counterexample;
  // True when `witness` is the export size (given, or recorded by the exporter) for every
  // symbol it binds: only then may a report call it that. Otherwise it is a binding at which
  // every requirement holds, which the search chose.
  bool witness_is_export = false;
  // True when the last node fails at the counterexample: the counterexample's failing node, or,
  // for a counterexample where the finding's node only returns another size (SL001's pool),
  // the first node downstream that the graph fails at there (the Linear the pooled map feeds),
  // so the drawing goes on to where ONNX Runtime stops.
  bool ends_in_failure = false;
  // The finding's attribute on its node as the model has it ("kernel_shape = [3, 2]"): the
  // literal the drawing highlights; empty when the finding names none or the node lacks it.
  std::string literal;
};

// The path of `finding` in `model`, the model it was linted on (with LintOptions::dynamic and
// static_dims applied: PathsOf does that), with the tensors' shapes from `inference` at
// `witness` and at the finding's counterexample (its binding over `witness`). The caller keeps
// the sym::InternScope that `inference` was built in open for the call. `fails_at`, the first
// node the graph fails at at the counterexample's sizes where the finding's own counterexample
// only changes a size, extends the path to it when it is downstream.
FindingPath PathOf(const ir::Model& model, const infer::Inference& inference,
                   const sym::Binding& witness, const Finding& finding,
                   const std::optional<NodeRef>& fails_at = std::nullopt);

// The paths of `findings`, which lint::Lint(model, options) returned, in their order. The model
// is analysed once more for all of them (inference, and the witness of its pins, the export
// sizes where `options` give them). Fails only where Lint does: options that do not fit the
// model. Like Lint, it frees every expression it builds before it returns.
absl::StatusOr<std::vector<FindingPath>> PathsOf(const ir::Model& model, const LintOptions& options,
                                                 const std::vector<Finding>& findings);

}  // namespace shapelint::lint

#endif  // SHAPELINT_LINT_FINDING_PATH_H_
