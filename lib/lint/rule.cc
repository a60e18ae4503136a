#include "lint/rule.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace shapelint::lint {

Finding Rule::FindingFor(const Analysis& analysis, const Cause& cause, int node,
                         std::string message) const {
  Finding f;
  f.rule = std::string(info_.code);
  f.name = std::string(info_.name);
  f.message = std::move(message);
  const ir::Graph& graph = cause.graph != nullptr ? *cause.graph : analysis.model().graph();
  f.node = analysis.Ref(graph, node);
  f.symbols = cause.symbols;
  const bool always_false = std::all_of(cause.pins.begin(), cause.pins.end(),
                                        [](const Pin* p) { return p->always_false; });
  if (always_false) {
    f.counterexample = analysis.CounterexampleAt(analysis.witness());
  } else {
    f.witness = analysis.WitnessFor(cause.symbols);
    f.counterexample = analysis.CounterexampleFor(cause.symbols);
  }
  f.severity = f.counterexample ? Severity::kError : Severity::kWarning;
  // The blame chain: how the size travels from the culprit to where the graph breaks.
  for (size_t i = 1; i < cause.chain.size(); ++i) {
    int n = cause.chain[i];
    f.notes.push_back({absl::StrCat("the size flows into ", graph.node(n).op_type(), " '",
                                    graph.NodeLabel(n), "'"),
                       analysis.Ref(graph, n)});
  }
  return f;
}

Finding Rule::FindingAt(const Analysis& analysis, const ir::Graph& graph, int node,
                        Severity severity, std::string message) const {
  Finding f;
  f.rule = std::string(info_.code);
  f.name = std::string(info_.name);
  f.severity = severity;
  f.node = analysis.Ref(graph, node);
  f.message = std::move(message);
  return f;
}

}  // namespace shapelint::lint
