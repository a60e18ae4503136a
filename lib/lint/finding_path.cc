// A finding's path through the graph (shapelint/lint/finding_path.h): shortest data-flow paths
// between the nodes the finding names, and the facts of the values on them evaluated at two
// bindings.
#include "shapelint/lint/finding_path.h"

#include <algorithm>
#include <deque>
#include <string_view>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "lint/analysis.h"
#include "lint/evaluator.h"
#include "shapelint/infer/facts.h"

namespace shapelint::lint {
namespace {

// The graph of `g` or of its subgraphs whose path is `path`, or nullptr.
const ir::Graph* GraphAt(const ir::Graph& g, const std::string& path) {
  if (g.path() == path) return &g;
  // A subgraph's path extends its parent's: other branches cannot hold it.
  if (!absl::StartsWith(path, g.path())) return nullptr;
  for (int i = 0; i < g.num_nodes(); ++i) {
    for (const ir::Graph* sub : g.Subgraphs(i)) {
      if (const ir::Graph* found = GraphAt(*sub, path)) return found;
    }
  }
  return nullptr;
}

// The node `ref` points at in `g`, or -1 when it names another graph or a node `g` lacks (a
// reference built by hand, or to another version of the model).
int NodeIn(const ir::Graph& g, const NodeRef& ref) {
  if (ref.graph != g.path() || ref.index < 0 || ref.index >= g.num_nodes()) return -1;
  return g.node(ref.index).op_type() == ref.op_type ? ref.index : -1;
}

// One step of a path: a node, and the value it reads from the step before (kNoValue first).
struct Hop {
  int node = -1;
  ir::ValueId via = ir::kNoValue;
};

// The fewest nodes from `from` to `to` along data flow, both included; empty when `to` is not
// downstream of `from`. Breadth first over consumers: a graph is a DAG, and each node is seen
// once, so a path costs at most one pass over the graph.
std::vector<Hop> ShortestPath(const ir::Graph& g, int from, int to) {
  if (from == to) return {{from, ir::kNoValue}};
  constexpr int kUnseen = -2;
  std::vector<int> parent(g.num_nodes(), kUnseen);
  std::vector<ir::ValueId> via(g.num_nodes(), ir::kNoValue);
  parent[from] = -1;
  std::deque<int> queue = {from};
  while (!queue.empty() && parent[to] == kUnseen) {
    const int n = queue.front();
    queue.pop_front();
    for (ir::ValueId out : g.OutputIds(n)) {
      if (out == ir::kNoValue) continue;
      for (int c : g.Consumers(out)) {
        if (parent[c] != kUnseen) continue;
        parent[c] = n;
        via[c] = out;
        queue.push_back(c);
      }
    }
  }
  if (parent[to] == kUnseen) return {};
  std::vector<Hop> path;
  for (int n = to; n != -1; n = parent[n]) path.push_back({n, via[n]});
  std::reverse(path.begin(), path.end());
  path.front().via = ir::kNoValue;
  return path;
}

std::optional<int64_t> At(const sym::MaybeExpr& e, sym::Evaluator& at) {
  return e ? at(*e) : std::nullopt;
}

// The two evaluations of one value's fact.
class TensorReader {
 public:
  TensorReader(const ir::Graph& graph, const infer::Inference& inference,
               const sym::Binding& witness, const sym::Binding* counterexample)
      : graph_(graph),
        inference_(inference),
        at_witness_(witness),
        at_counterexample_(counterexample ? *counterexample : witness),
        has_counterexample_(counterexample != nullptr) {}

  PathTensor Read(std::string_view name) {
    PathTensor t;
    t.name = std::string(name);
    const infer::TensorFact* f = inference_.FindIn(graph_, name);
    if (f == nullptr) {
      t.type.assign(1, '?');  // not = "?": GCC 12 warns of a bogus memcpy bound at -O2
      return t;
    }
    t.type = infer::ShapeText(*f, kMaxPathTypeText);
    if (t.type.size() > kMaxPathTypeText) t.type = t.type.substr(0, kMaxPathTypeText) + "...";
    if (f->shape) {
      t.at_witness = Dims(*f->shape, at_witness_);
      if (has_counterexample_) t.at_counterexample = Dims(*f->shape, at_counterexample_);
    }
    if (f->values && !f->values->empty() && f->values->size() <= kMaxPathValues) {
      t.values_at_witness = Values(*f->values, at_witness_);
      if (has_counterexample_) t.values_at_counterexample = Values(*f->values, at_counterexample_);
    }
    return t;
  }

 private:
  static SizesAt Dims(const std::vector<sym::MaybeExpr>& shape, sym::Evaluator& at) {
    SizesAt dims;
    for (const sym::MaybeExpr& d : shape) dims.push_back(At(d, at));
    return dims;
  }
  static SizesAt Values(const std::vector<infer::Element>& values, sym::Evaluator& at) {
    SizesAt out;
    for (const infer::Element& e : values) out.push_back(At(e.value, at));
    return out;
  }

  const ir::Graph& graph_;
  const infer::Inference& inference_;
  // One evaluator per binding: the values of a path share most of their subexpressions.
  sym::Evaluator at_witness_;
  sym::Evaluator at_counterexample_;
  bool has_counterexample_;
};

std::vector<std::pair<std::string, int64_t>> Sorted(const sym::Binding& binding) {
  const absl::flat_hash_map<std::string, int64_t> values = binding.values();
  std::vector<std::pair<std::string, int64_t>> sorted(values.begin(), values.end());
  std::sort(sorted.begin(), sorted.end());
  return sorted;
}

// The inputs of `node` from outside the path (all but `skip`, the value from the node before).
void AddSideInputs(const ir::Graph& g, int node, int index, ir::ValueId skip, TensorReader& reader,
                   std::vector<PathEdge>& edges) {
  size_t added = 0;
  for (ir::ValueId id : g.InputIds(node)) {
    if (id == ir::kNoValue || id == skip) continue;
    if (added++ == kMaxSideInputs) break;
    PathEdge e;
    e.to = index;
    const int producer = g.Producer(id);
    if (g.Initializer(id) != nullptr) {
      e.source = PathEdge::Source::kInitializer;
    } else if (producer >= 0) {
      e.source = PathEdge::Source::kNode;
      e.producer = RefTo(g, producer);
    } else {
      e.source = PathEdge::Source::kGraphInput;
    }
    e.graph_output = g.Output(id) != nullptr;
    e.tensor = reader.Read(g.value_name(id));
    edges.push_back(std::move(e));
  }
}

// The output of the last node that the drawing ends with: a graph output where the node has
// one (what a declared shape is compared with), else its first.
ir::ValueId ExitValue(const ir::Graph& g, int node) {
  ir::ValueId first = ir::kNoValue;
  for (ir::ValueId id : g.OutputIds(node)) {
    if (id == ir::kNoValue) continue;
    if (g.Output(id) != nullptr) return id;
    if (first == ir::kNoValue) first = id;
  }
  return first;
}

// "kernel_shape = [3, 2]": attribute `name` of `node` as it is written, for ints, an int or a
// float; empty for others (a string may be anything) and when the node lacks it.
std::string AttributeText(const ir::Node& node, std::string_view name) {
  const ir::AttributeRef a = node.FindAttribute(name);
  if (!a) return "";
  const std::string text = absl::StrCat(a->name(), " = ");
  if (a->ints_size() > 0) return absl::StrCat(text, "[", absl::StrJoin(a->ints(), ", "), "]");
  if (a->has_i()) return absl::StrCat(text, a->i());
  if (a->has_f()) return absl::StrCat(text, a->f());
  return "";
}

}  // namespace

FindingPath PathOf(const ir::Model& model, const infer::Inference& inference,
                   const sym::Binding& witness, const Finding& finding,
                   const std::optional<NodeRef>& fails_at) {
  FindingPath path;
  path.witness = Sorted(witness);
  const ir::Graph* graph = GraphAt(model.graph(), finding.node.graph);
  const int culprit = graph ? NodeIn(*graph, finding.node) : -1;
  if (culprit < 0) return path;
  const ir::Graph& g = *graph;

  // The counterexample's sizes, over the witness for any symbol it does not give.
  std::optional<sym::Binding> counterexample;
  int target = culprit;
  if (finding.counterexample) {
    counterexample = witness;
    for (const auto& [symbol, size] : finding.counterexample->binding) {
      counterexample->Set(symbol, size);
    }
    path.counterexample = Sorted(*counterexample);
    if (int failing = NodeIn(g, finding.counterexample->failing_node); failing >= 0) {
      target = failing;
      path.ends_in_failure = finding.counterexample->node_fails;
    }
    // Where the graph itself fails further on at the same sizes, the drawing goes on to there.
    if (const int later = fails_at ? NodeIn(g, *fails_at) : -1;
        !finding.counterexample->node_fails && later >= 0 && later != target &&
        !ShortestPath(g, target, later).empty()) {
      target = later;
      path.ends_in_failure = true;
    }
  }
  path.literal = finding.attribute.empty() ? "" : AttributeText(g.node(culprit), finding.attribute);

  // Where the size entered: the first node a note points at from which the culprit is reached
  // (a Constant, a Shape), else the culprit itself; notes downstream of it are the way on.
  std::vector<Hop> hops = {{culprit, ir::kNoValue}};
  for (const Note& note : finding.notes) {
    const int n = note.node ? NodeIn(g, *note.node) : -1;
    if (n < 0 || n == culprit) continue;
    if (std::vector<Hop> up = ShortestPath(g, n, culprit); !up.empty()) {
      hops = std::move(up);
      break;
    }
  }
  std::vector<Hop> down = ShortestPath(g, culprit, target);
  path.connected = !down.empty();
  if (down.size() > 1) hops.insert(hops.end(), down.begin() + 1, down.end());

  TensorReader reader(g, inference, witness, counterexample ? &*counterexample : nullptr);
  const int last = static_cast<int>(hops.size()) - 1;
  for (int i = 0; i <= last; ++i) {
    path.nodes.push_back(RefTo(g, hops[i].node));
    if (i == 0 || i == last) AddSideInputs(g, hops[i].node, i, hops[i].via, reader, path.edges);
    PathEdge e;
    e.from = i;
    e.to = i < last ? i + 1 : -1;
    const ir::ValueId value = i < last ? hops[i + 1].via : ExitValue(g, hops[i].node);
    if (value == ir::kNoValue) continue;
    e.graph_output = g.Output(value) != nullptr;
    e.tensor = reader.Read(g.value_name(value));
    path.edges.push_back(std::move(e));
  }
  return path;
}

absl::StatusOr<std::vector<FindingPath>> PathsOf(const ir::Model& model, const LintOptions& options,
                                                 const std::vector<Finding>& findings) {
  std::vector<FindingPath> paths;
  if (findings.empty()) return paths;
  sym::InternScope scope;
  absl::StatusOr<PreparedAnalysis> prepared = PrepareAnalysis(model, options);
  if (!prepared.ok()) return prepared.status();
  const Analysis& analysis = *prepared->analysis;
  paths.reserve(findings.size());
  bool at_export = analysis.has_example();
  for (const auto& [symbol, size] : analysis.witness().values()) {
    at_export = at_export && analysis.example().Get(symbol) == size;
  }
  for (const Finding& f : findings) {
    // The first node the graph fails at, at the counterexample's sizes: SL001's pool returns
    // another size there, and the Linear after it is where ONNX Runtime stops.
    std::optional<NodeRef> fails_at;
    if (f.counterexample && !f.counterexample->node_fails) {
      sym::Binding at = analysis.witness();
      for (const auto& [symbol, size] : f.counterexample->binding) at.Set(symbol, size);
      Counterexample c = analysis.Evaluate(at);
      if (c.node_fails) fails_at = c.failing_node;
    }
    paths.push_back(
        PathOf(analysis.model(), analysis.inference(), analysis.witness(), f, fails_at));
    paths.back().witness_is_export = at_export;
  }
  return paths;
}

}  // namespace shapelint::lint
