// Expands calls of model-local functions (ModelProto.functions) in place, so that the engine
// sees plain nodes: a function's shapes depend on its call site (input shapes, attributes),
// exactly as if the body had been written there.
#include "ir/inline_functions.h"

#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"

namespace shapelint::ir {
namespace {

using ONNX_NAMESPACE::AttributeProto;
using ONNX_NAMESPACE::FunctionProto;
using ONNX_NAMESPACE::GraphProto;
using ONNX_NAMESPACE::NodeProto;

// Functions calling functions deeper than this are left as calls (unknown ops), which keeps
// recursive definitions from expanding forever.
constexpr int kMaxInlineDepth = 16;
// Expansion stops growing a graph past this many nodes; the rest stay calls.
constexpr int kMaxInlinedNodes = 1'000'000;

std::string Key(const std::string& domain, const std::string& name) {
  return absl::StrCat(domain, "\x1f", name);
}

class Inliner {
 public:
  explicit Inliner(const ONNX_NAMESPACE::ModelProto& model) {
    for (const FunctionProto& f : model.functions()) functions_[Key(f.domain(), f.name())] = &f;
  }

  bool empty() const { return functions_.empty(); }

  void InlineGraph(GraphProto& graph, int depth) {
    if (depth > kMaxInlineDepth) return;
    google::protobuf::RepeatedPtrField<NodeProto> nodes;
    nodes.Swap(graph.mutable_node());
    for (int i = 0; i < nodes.size(); ++i) {
      NodeProto& node = *nodes.Mutable(i);
      for (AttributeProto& a : *node.mutable_attribute()) {
        if (a.has_g()) InlineGraph(*a.mutable_g(), depth + 1);
        for (GraphProto& g : *a.mutable_graphs()) InlineGraph(g, depth + 1);
      }
      auto it = functions_.find(Key(node.domain(), node.op_type()));
      if (it == functions_.end() || inlined_ >= kMaxInlinedNodes) {
        *graph.add_node() = std::move(node);
        continue;
      }
      Expand(*it->second, node, i, graph, depth);
    }
  }

 private:
  void Expand(const FunctionProto& f, const NodeProto& call, int index, GraphProto& graph,
              int depth) {
    const std::string prefix = absl::StrCat(
        call.name().empty() ? absl::StrCat(call.op_type(), "_", index) : call.name(), "/");
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
    for (const NodeProto& src : f.node()) {
      NodeProto& n = *body.add_node();
      n = src;
      n.set_name(prefix + (src.name().empty() ? src.op_type() : src.name()));
      for (auto& in : *n.mutable_input()) in = map_name(in);
      for (auto& out : *n.mutable_output()) out = map_name(out);
      ResolveAttributes(n, actual);
      for (AttributeProto& a : *n.mutable_attribute()) {
        if (a.has_g()) RenameReads(*a.mutable_g(), map_name);
        for (GraphProto& g : *a.mutable_graphs()) RenameReads(g, map_name);
      }
    }
    inlined_ += body.node_size();
    InlineGraph(body, depth + 1);  // calls inside the body
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

  absl::flat_hash_map<std::string, const FunctionProto*> functions_;
  int inlined_ = 0;
};

}  // namespace

void InlineFunctions(ONNX_NAMESPACE::ModelProto& model) {
  Inliner inliner(model);
  if (inliner.empty() || !model.has_graph()) return;
  inliner.InlineGraph(*model.mutable_graph(), 0);
  // Ops inside functions may come from domains only the functions import.
  absl::flat_hash_set<std::string> imported;
  for (const auto& op : model.opset_import()) imported.insert(op.domain());
  for (const FunctionProto& f : model.functions()) {
    for (const auto& op : f.opset_import()) {
      if (imported.insert(op.domain()).second) *model.add_opset_import() = op;
    }
  }
}

}  // namespace shapelint::ir
