#include "lint/rule.h"

#include <algorithm>
#include <string>
#include <string_view>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "lint/provenance.h"
#include "lint/requirements.h"
#include "shapelint/infer/facts.h"

namespace shapelint::lint {
namespace {

// An operand's values are listed next to its shape up to this many: a shape computation's
// operands are short (a Reshape target, Slice bounds), and a longer list reads as noise.
constexpr size_t kMaxValuesShown = 16;

// The shapes of the node's inputs and outputs as the engine computed them.
void AddNodeShapes(const Analysis& analysis, const ir::Graph& graph, int node, Finding& f) {
  if (node < 0) return;
  const ir::Node node_ref = graph.node(node);
  auto add = [&](std::string_view kind, std::string_view value) {
    if (value.empty()) return;  // an omitted optional input
    const infer::TensorFact* fact = analysis.inference().FindIn(graph, value);
    if (fact == nullptr) return;
    std::string text = infer::ShapeText(*fact, kMaxExprText);
    if (fact->values && !fact->values->empty() && fact->values->size() <= kMaxValuesShown) {
      absl::StrAppend(&text, " = ", infer::ValuesText(*fact, kMaxExprText));
    }
    f.expressions.push_back(
        {absl::StrCat(std::string(kind), " '", std::string(value), "'"), std::move(text)});
  };
  for (std::string_view input : node_ref.input()) add("input", input);
  for (std::string_view output : node_ref.output()) add("output", output);
}

// Sums of dims related to each other hold along a line, not at the point the search found:
// the relations themselves are the witness.
void RelationsAsWitness(const Cause& cause, Witness& witness) {
  std::vector<std::string> relations;
  for (const Pin* p : cause.pins) {
    std::string relation = EqualityText(*p->requirement);
    if (std::find(relations.begin(), relations.end(), relation) == relations.end()) {
      relations.push_back(std::move(relation));
    }
  }
  witness.ranges.clear();
  witness.summary = absl::StrCat("works only where ", absl::StrJoin(relations, " and "));
  witness.relations = std::move(relations);
}

// The requirements behind the finding, and where each is imposed when not at `node`.
void AddRequirements(const Cause& cause, const ir::Graph& graph, int node, Finding& f) {
  for (const Pin* pin : cause.pins) {
    const infer::Requirement& r = *pin->requirement;
    std::string text = RequirementText(r);
    if (!r.what.empty()) absl::StrAppend(&text, " (", r.what, ")");
    if (r.graph != nullptr && r.node >= 0 && (r.graph != &graph || r.node != node)) {
      absl::StrAppend(&text, " at ", r.graph->node(r.node).op_type(), " '",
                      r.graph->NodeLabel(r.node), "'");
    }
    f.expressions.push_back({"requires", std::move(text)});
  }
}

}  // namespace

Finding Rule::FindingFor(const Analysis& analysis, const Cause& cause, int node,
                         std::string message) const {
  Finding f;
  f.rule = std::string(info_.code);
  f.name = std::string(info_.name);
  f.message = std::move(message);
  const ir::Graph& graph = cause.graph != nullptr ? *cause.graph : analysis.model().graph();
  f.node = analysis.Ref(graph, node);
  f.symbols = cause.symbols;
  auto all = [&](bool Pin::*flag) {
    return std::all_of(cause.pins.begin(), cause.pins.end(),
                       [&](const Pin* p) { return p->*flag; });
  };
  if (all(&Pin::always_false)) {
    f.counterexample = analysis.CounterexampleAt(analysis.witness());
  } else {
    f.witness = analysis.WitnessFor(cause.symbols);
    // Where the cause's first pin fails itself, not only where something after it does.
    f.counterexample = analysis.CounterexampleFor(
        cause.symbols, cause.pins.empty() ? nullptr : cause.pins.front()->requirement);
    if (!cause.pins.empty() && all(&Pin::contract)) RelationsAsWitness(cause, *f.witness);
  }
  // Only intermediate value_info contradicts the graph: the writing tool's inference, a hint.
  const bool hints_only =
      !cause.pins.empty() && std::all_of(cause.pins.begin(), cause.pins.end(),
                                         [](const Pin* p) { return IsHint(*p->requirement); });
  // Only declarations contradict it, and each graph output among them was declared at the
  // example on every axis (another axis holds a number where the graph follows the inputs):
  // the declaration may be what was baked as much as the graph, a hypothesis.
  std::string example_output;
  const bool example_declarations_only =
      !hints_only && !cause.pins.empty() &&
      std::all_of(cause.pins.begin(), cause.pins.end(), [&](const Pin* p) {
        const infer::Requirement& r = *p->requirement;
        if (r.kind != infer::RequirementKind::kDeclaredShape) return false;
        if (!r.interface) return true;
        // SL003 reports a baked declaration itself.
        if (IsBakedDeclaration(r) || !analysis.DeclaredAtExample(r.value)) return false;
        example_output = r.value;
        return true;
      });
  // A hint false at the export size, where the graph runs, was wrong there already: the tool
  // that wrote it annotated wrongly (docs/severity.md), whatever it says elsewhere.
  const bool hint_false_at_export =
      hints_only && std::any_of(cause.pins.begin(), cause.pins.end(), [&](const Pin* p) {
        return analysis.FalseAtExport(*p->requirement);
      });
  f.evidence = example_declarations_only ? Evidence::kHypothesis
               : !hints_only             ? Evidence::kContradiction
               : hint_false_at_export    ? Evidence::kWrongAnnotation
               : analysis.has_example()  ? Evidence::kHint
                                         : Evidence::kUnverifiedHint;
  if (example_declarations_only) {
    f.notes.push_back(
        {absl::StrCat("only the declaration of output '", example_output,
                      "' contradicts the graph here, and it declares another axis as a number "
                      "where the graph follows the inputs: the exporter wrote it at the example "
                      "(TorchScript declares so every output dynamic_axes does not name), so it "
                      "may be the declaration that holds the example size, not the graph"),
         std::nullopt});
    // The witness keeps the declarations: say so, as ONNX Runtime does not check them.
    if (f.witness) SayWitnessOf("works with its declared outputs", *f.witness);
  }
  AddRequirements(cause, graph, node, f);
  AddNodeShapes(analysis, graph, node, f);
  if (node >= 0) f.source = SourceOf(graph.node(node));
  // The blame chain: how the size travels from the culprit to where the graph breaks.
  for (size_t i = 1; i < cause.chain.size(); ++i) {
    const int n = cause.chain[i];
    f.notes.push_back({absl::StrCat("the size flows into ", graph.node(n).op_type(), " '",
                                    graph.NodeLabel(n), "'"),
                       analysis.Ref(graph, n)});
  }
  return f;
}

Finding Rule::FindingAt(const Analysis& analysis, const ir::Graph& graph, int node,
                        Evidence evidence, std::string message) const {
  Finding f;
  f.rule = std::string(info_.code);
  f.name = std::string(info_.name);
  f.evidence = evidence;
  f.node = analysis.Ref(graph, node);
  f.message = std::move(message);
  AddNodeShapes(analysis, graph, node, f);
  if (node >= 0) f.source = SourceOf(graph.node(node));
  return f;
}

}  // namespace shapelint::lint
