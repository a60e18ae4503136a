// Expands calls of model-local functions (ModelProto.functions) in place, so that the engine
// sees plain nodes: a function's shapes depend on its call site (input shapes, attributes),
// exactly as if the body had been written there.
//
// What the expansion will make is counted before any of it is made: a few kilobytes of
// functions that each call the next twice expand to billions of nodes.
#include "ir/inline_functions.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace shapelint::ir {
namespace {

using ONNX_NAMESPACE::AttributeProto;
using ONNX_NAMESPACE::FunctionProto;
using ONNX_NAMESPACE::GraphProto;
using ONNX_NAMESPACE::NodeProto;

std::string Key(const std::string& domain, const std::string& name) {
  return absl::StrCat(domain, "\x1f", name);
}

// What expanding a call makes: nodes in all (with those of their subgraphs), and how deeply
// calls nest in it (1 for a function that calls none). `nodes` saturates past the cap.
struct Cost {
  int64_t nodes = 0;
  int depth = 0;
};

int64_t SaturatingAdd(int64_t a, int64_t b) { return std::min(a + b, kMaxInlinedNodes + 1); }

// Calls `visit` on each node of `nodes` and of the subgraphs their attributes hold.
template <typename Nodes, typename Visit>
void ForEachNode(const Nodes& nodes, const Visit& visit) {
  for (const NodeProto& n : nodes) {
    visit(n);
    for (const AttributeProto& a : n.attribute()) {
      if (a.has_g()) ForEachNode(a.g().node(), visit);
      for (const GraphProto& g : a.graphs()) ForEachNode(g.node(), visit);
    }
  }
}

class Inliner {
 public:
  explicit Inliner(const ONNX_NAMESPACE::ModelProto& model) {
    for (const FunctionProto& f : model.functions()) {
      if (index_.try_emplace(Key(f.domain(), f.name()), functions_.size()).second) {
        functions_.push_back(&f);
      }
    }
  }

  bool empty() const { return functions_.empty(); }

  // Finds the recursive functions and counts what each of the others expands to.
  void Plan() {
    FindRecursive();
    cost_.assign(functions_.size(), Cost{});
    for (int f : order_) {
      if (recursive_[f]) continue;
      Cost& c = cost_[f];
      ForEachNode(functions_[f]->node(), [&](const NodeProto& n) {
        const int callee = Expandable(n);
        if (callee < 0) {
          c.nodes = SaturatingAdd(c.nodes, 1);
          return;
        }
        c.nodes = SaturatingAdd(c.nodes, cost_[callee].nodes);
        c.depth = std::max(c.depth, cost_[callee].depth);
      });
      c.depth = std::min(c.depth + 1, kMaxInlineDepth + 1);
    }
  }

  // An error naming the first call of `graph` (at any depth) whose expansion passes a cap, or
  // the whole expansion when only all calls together pass the node cap.
  absl::Status CheckCaps(const GraphProto& graph) const {
    int64_t total = 0;
    absl::Status status;
    ForEachNode(graph.node(), [&](const NodeProto& n) {
      const int callee = Expandable(n);
      if (callee < 0 || !status.ok()) return;
      const Cost& c = cost_[callee];
      if (c.depth > kMaxInlineDepth) {
        status = absl::InvalidArgumentError(absl::StrCat(
            "model-local functions call each other more than ", kMaxInlineDepth,
            " levels deep from the call of ", Named(callee), "; the model is refused"));
      }
      total = SaturatingAdd(total, c.nodes);
    });
    if (status.ok() && total > kMaxInlinedNodes) {
      status = absl::InvalidArgumentError(
          absl::StrCat("expanding the model-local functions would make more than ",
                       kMaxInlinedNodes, " nodes; the model is refused"));
    }
    return status;
  }

  // Every value name of `graph` and its subgraphs: names made by expansion avoid them.
  void TakeNames(const GraphProto& graph) {
    for (const auto& vi : graph.input()) taken_.insert(vi.name());
    for (const auto& t : graph.initializer()) taken_.insert(t.name());
    ForEachNode(graph.node(), [&](const NodeProto& n) {
      for (const auto& out : n.output()) taken_.insert(out);
    });
  }

  void InlineGraph(GraphProto& graph) {
    google::protobuf::RepeatedPtrField<NodeProto> nodes;
    nodes.Swap(graph.mutable_node());
    for (int i = 0; i < nodes.size(); ++i) {
      NodeProto& node = *nodes.Mutable(i);
      for (AttributeProto& a : *node.mutable_attribute()) {
        if (a.has_g()) InlineGraph(*a.mutable_g());
        for (GraphProto& g : *a.mutable_graphs()) InlineGraph(g);
      }
      const int callee = Expandable(node);
      if (callee < 0) {
        *graph.add_node() = std::move(node);
        continue;
      }
      Expand(*functions_[callee], node, i, graph);
    }
  }

 private:
  // The function `n` calls, when the call is expanded; -1 for other nodes and for calls of
  // recursive functions, which stay calls (unknown ops).
  int Expandable(const NodeProto& n) const {
    auto it = index_.find(Key(n.domain(), n.op_type()));
    if (it == index_.end() || recursive_[it->second]) return -1;
    return static_cast<int>(it->second);
  }

  std::string Named(int f) const {
    const FunctionProto& fn = *functions_[f];
    return fn.domain().empty() ? fn.name() : absl::StrCat(fn.domain(), ".", fn.name());
  }

  // Tarjan's strongly connected components over the calls between functions, without
  // recursion (a model may hold many functions). Fills recursive_ (a function on a cycle of
  // calls, itself included) and order_ (callees before their callers).
  void FindRecursive() {
    const int n = static_cast<int>(functions_.size());
    std::vector<std::vector<int>> calls(n);
    recursive_.assign(n, false);
    for (int f = 0; f < n; ++f) {
      ForEachNode(functions_[f]->node(), [&](const NodeProto& node) {
        auto it = index_.find(Key(node.domain(), node.op_type()));
        if (it == index_.end()) return;
        calls[f].push_back(static_cast<int>(it->second));
        if (static_cast<int>(it->second) == f) recursive_[f] = true;
      });
    }
    std::vector<int> number(n, -1), low(n, 0), stack;
    std::vector<bool> on_stack(n, false);
    int next = 0;
    struct Frame {
      int f;
      size_t edge;
    };
    for (int root = 0; root < n; ++root) {
      if (number[root] >= 0) continue;
      std::vector<Frame> frames{{root, 0}};
      number[root] = low[root] = next++;
      stack.push_back(root);
      on_stack[root] = true;
      while (!frames.empty()) {
        Frame& top = frames.back();
        if (top.edge < calls[top.f].size()) {
          const int g = calls[top.f][top.edge++];
          if (number[g] < 0) {
            number[g] = low[g] = next++;
            stack.push_back(g);
            on_stack[g] = true;
            frames.push_back({g, 0});
          } else if (on_stack[g]) {
            low[top.f] = std::min(low[top.f], number[g]);
          }
          continue;
        }
        const int f = top.f;
        frames.pop_back();
        if (!frames.empty()) low[frames.back().f] = std::min(low[frames.back().f], low[f]);
        if (low[f] != number[f]) continue;
        // f is the root of a component: it is popped whole.
        const bool cycle = stack.back() != f;
        for (;;) {
          const int g = stack.back();
          stack.pop_back();
          on_stack[g] = false;
          recursive_[g] = recursive_[g] || cycle;
          order_.push_back(g);
          if (g == f) break;
        }
      }
    }
  }

  // A prefix "<base>/" for a call's inner values that makes none of them a name the model
  // already has: "<base>_2/", "<base>_3/", ... where it would.
  std::string UniquePrefix(const std::string& base, const FunctionProto& f) {
    std::vector<const std::string*> inner;
    ForEachNode(f.node(), [&](const NodeProto& n) {
      for (const auto& out : n.output()) inner.push_back(&out);
    });
    for (int k = 1;; ++k) {
      std::string prefix = k == 1 ? base + "/" : absl::StrCat(base, "_", k, "/");
      if (std::none_of(inner.begin(), inner.end(),
                       [&](const std::string* name) { return taken_.contains(prefix + *name); })) {
        return prefix;
      }
    }
  }

  void Expand(const FunctionProto& f, const NodeProto& call, int index, GraphProto& graph) {
    const std::string prefix = UniquePrefix(
        call.name().empty() ? absl::StrCat(call.op_type(), "_", index) : call.name(), f);
    // Formal parameters map to the call's actual values; everything else is renamed into the
    // call's own namespace so two calls never share a value.
    absl::flat_hash_map<std::string, std::string> rename;
    for (int k = 0; k < f.input_size(); ++k) {
      rename[f.input(k)] = k < call.input_size() ? call.input(k) : "";
    }
    for (int k = 0; k < f.output_size(); ++k) {
      rename[f.output(k)] = k < call.output_size() ? call.output(k) : prefix + f.output(k);
    }
    auto map_name = [&](const std::string& name) -> std::string {
      if (name.empty()) return name;
      auto r = rename.find(name);
      return r != rename.end() ? r->second : prefix + name;
    };
    absl::flat_hash_map<std::string, const AttributeProto*> actual;
    // (Attribute defaults, FunctionProto.attribute_proto, arrived after the ONNX release this
    // builds against; a missing attribute is then simply absent.)
    for (const AttributeProto& a : call.attribute()) actual[a.name()] = &a;

    GraphProto body;
    for (int i = 0; i < f.node_size(); ++i) {
      const NodeProto& src = f.node(i);
      NodeProto& n = *body.add_node();
      n = src;
      // An unnamed call inside gets its index, as one in the main graph does: its own inner
      // values are named after it.
      const bool call_inside = src.name().empty() && Expandable(src) >= 0;
      n.set_name(prefix + (!src.name().empty() ? src.name()
                           : call_inside       ? absl::StrCat(src.op_type(), "_", i)
                                               : src.op_type()));
      for (auto& in : *n.mutable_input()) in = map_name(in);
      for (auto& out : *n.mutable_output()) {
        out = map_name(out);
        taken_.insert(out);
      }
      ResolveAttributes(n, actual);
      for (AttributeProto& a : *n.mutable_attribute()) {
        if (a.has_g()) RenameReads(*a.mutable_g(), map_name);
        for (GraphProto& g : *a.mutable_graphs()) RenameReads(g, map_name);
      }
    }
    InlineGraph(body);  // calls inside the body
    for (NodeProto& n : *body.mutable_node()) *graph.add_node() = std::move(n);
  }

  // Attributes that refer to the caller's (`ref_attr_name`) take its value; without one the
  // attribute is absent, and the op's own default applies.
  static void ResolveAttributes(
      NodeProto& n, const absl::flat_hash_map<std::string, const AttributeProto*>& actual) {
    google::protobuf::RepeatedPtrField<AttributeProto> resolved;
    for (const AttributeProto& a : n.attribute()) {
      if (a.ref_attr_name().empty()) {
        *resolved.Add() = a;
        continue;
      }
      auto it = actual.find(a.ref_attr_name());
      if (it == actual.end()) continue;
      AttributeProto& r = *resolved.Add();
      r = *it->second;
      r.set_name(a.name());
    }
    n.mutable_attribute()->Swap(&resolved);
  }

  // Values of the function that a nested subgraph reads from its outer scope get the names
  // they have after expansion; names the subgraph defines itself stay.
  template <typename MapName>
  static void RenameReads(GraphProto& g, const MapName& map_name) {
    absl::flat_hash_set<std::string> local;
    for (const auto& vi : g.input()) local.insert(vi.name());
    for (const auto& t : g.initializer()) local.insert(t.name());
    for (const NodeProto& n : g.node()) {
      for (const auto& out : n.output()) local.insert(out);
    }
    for (NodeProto& n : *g.mutable_node()) {
      for (auto& in : *n.mutable_input()) {
        if (!in.empty() && !local.contains(in)) in = map_name(in);
      }
      for (AttributeProto& a : *n.mutable_attribute()) {
        if (a.has_g()) RenameReads(*a.mutable_g(), map_name);
        for (GraphProto& sub : *a.mutable_graphs()) RenameReads(sub, map_name);
      }
    }
    for (auto& out : *g.mutable_output()) {
      if (!local.contains(out.name())) out.set_name(map_name(out.name()));
    }
  }

  std::vector<const FunctionProto*> functions_;  // the first of each domain and name
  absl::flat_hash_map<std::string, size_t> index_;
  std::vector<bool> recursive_;
  std::vector<int> order_;  // callees before callers
  std::vector<Cost> cost_;
  absl::flat_hash_set<std::string> taken_;  // value names of the model and of expansions
};

}  // namespace

absl::Status InlineFunctions(ONNX_NAMESPACE::ModelProto& model) {
  Inliner inliner(model);
  if (inliner.empty() || !model.has_graph()) return absl::OkStatus();
  inliner.Plan();
  if (absl::Status caps = inliner.CheckCaps(model.graph()); !caps.ok()) return caps;
  inliner.TakeNames(model.graph());
  inliner.InlineGraph(*model.mutable_graph());
  // Ops inside functions may come from domains only the functions import.
  absl::flat_hash_set<std::string> imported;
  for (const auto& op : model.opset_import()) imported.insert(op.domain());
  for (const FunctionProto& f : model.functions()) {
    for (const auto& op : f.opset_import()) {
      if (imported.insert(op.domain()).second) *model.add_opset_import() = op;
    }
  }
  return absl::OkStatus();
}

}  // namespace shapelint::ir
