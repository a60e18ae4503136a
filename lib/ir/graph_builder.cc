#include "ir/graph_builder.h"

#include <algorithm>
#include <deque>
#include <utility>

#include "absl/strings/str_cat.h"
#include "ir/metadata.h"
#include "ir/string_store.h"
#include "ir/wire_nodes.h"

namespace shapelint::ir {
namespace {

using ONNX_NAMESPACE::AttributeProto;
using ONNX_NAMESPACE::GraphProto;

// Subgraph nesting deeper than this is rejected instead of risking the stack.
constexpr int kMaxSubgraphDepth = 64;

bool Resolves(const Graph& graph, std::string_view value) {
  for (const Graph* g = &graph; g != nullptr; g = g->parent()) {
    ValueId id = g->FindValue(value);
    if (id != kNoValue && g->Defines(id)) return true;
  }
  return false;
}

}  // namespace

absl::StatusOr<std::unique_ptr<Graph>> GraphBuilder::Build(
    const GraphProto& proto, const Graph* parent, std::string path,
    const std::vector<std::string_view>* wire_nodes, StringStore* strings,
    google::protobuf::Arena* arena) {
  std::unique_ptr<Graph> owned(new Graph(proto, parent, std::move(path)));
  g_ = owned.get();
  s_ = g_->storage_.get();
  if (depth_ > kMaxSubgraphDepth) {
    return Error(
        absl::StrCat("subgraphs nested deeper than ", kMaxSubgraphDepth, " levels at ", g_->path_));
  }
  Reserve(proto, wire_nodes != nullptr ? static_cast<int>(wire_nodes->size()) : proto.node_size());
  DeclareValues(proto);
  s_->graph_metadata = UnknownStringEntries(proto, kGraphMetadataField);
  absl::Status status;
  if (wire_nodes != nullptr) {
    strings_ = strings;  // names are views into bytes that go after loading: copied from here on
    status = AddWireNodes(*wire_nodes, arena);
  } else {
    status = AddProtoNodes(proto);
  }
  if (!status.ok()) return status;
  // The end of the last node's outputs.
  s_->node_io_begin.push_back(static_cast<int32_t>(s_->node_io.size()));
  Reads reads;
  if (status = CollectReads(reads); !status.ok()) return status;
  if (status = ResolveReads(proto, reads); !status.ok()) return status;
  auto order = TopologicalOrder(reads);
  if (!order.ok()) return order.status();
  s_->order = *std::move(order);
  IndexConsumers(reads);
  ReleaseSlack();
  return owned;
}

// Sizes the tables up front: rehashing tables of a few hundred thousand names is a visible
// cost. Most values are one node's output, read by one or two others.
void GraphBuilder::Reserve(const GraphProto& proto, int num_nodes) {
  s_->values.reserve(num_nodes + proto.input_size() + proto.initializer_size());
  s_->ids.reserve(num_nodes + proto.input_size() + proto.initializer_size());
  s_->node_io.reserve(num_nodes * 3);
  s_->node_io_begin.reserve(2 * num_nodes + 1);
  s_->nodes.reserve(num_nodes);
}

// Indexes the graph's declarations before its nodes, so that a node writing a graph input or
// an initializer is caught as it is added.
void GraphBuilder::DeclareValues(const GraphProto& proto) {
  for (const auto& t : proto.initializer()) {
    Declare(s_->initializers, Intern(t.name()), &t, GraphStorage::kHasInitializer);
  }
  for (const auto& s : proto.sparse_initializer()) {
    // Sparse initializers are values too; their dense form is not needed for shapes.
    Declare(s_->initializers, Intern(s.values().name()),
            static_cast<const ONNX_NAMESPACE::TensorProto*>(nullptr),
            GraphStorage::kHasInitializer);
  }
  for (const auto& vi : proto.input()) {
    Declare(s_->inputs, Intern(vi.name()), &vi, GraphStorage::kHasInput);
  }
  for (const auto& vi : proto.output()) {
    Declare(s_->outputs, Intern(vi.name()), &vi, GraphStorage::kHasOutput);
  }
  for (const auto& vi : proto.value_info()) {
    Declare(s_->value_infos, Intern(vi.name()), &vi, GraphStorage::kHasValueInfo);
  }
  for (GraphStorage::Value& v : s_->values) {
    if (v.flags & (GraphStorage::kHasInitializer | GraphStorage::kHasInput)) {
      v.flags |= GraphStorage::kDefined;
    }
  }
}

// Reads each node from its bytes, without a NodeProto (a binary model's main graph: see
// include/shapelint/ir/model.h). Names are copied to strings_, since the bytes go when this
// returns.
absl::Status GraphBuilder::AddWireNodes(const std::vector<std::string_view>& wire_nodes,
                                        google::protobuf::Arena* arena) {
  WireNode w;
  AttributeProto scratch;  // reused by every attribute that must be parsed to be checked
  for (int i = 0; i < static_cast<int>(wire_nodes.size()); ++i) {
    if (!ReadWireNode(wire_nodes[i], w)) return Error(NotAProtobufMessage());
    // The name is a view into the model's bytes until the outputs are known (below).
    GraphStorage::NodeRecord record{&strings_->Intern(w.op_type), w.name,
                                    static_cast<int32_t>(s_->attributes.size()),
                                    DomainIndex(&strings_->Intern(w.domain))};
    for (std::string_view bytes : w.attributes) {
      if (auto status = AddWireAttribute(bytes, arena, scratch); !status.ok()) return status;
    }
    s_->nodes.push_back(record);
    if (auto status = AddNodeIo(i, w.inputs, w.outputs); !status.ok()) return status;
    s_->nodes.back().name = KeepNodeName(i, w.name);
    for (std::string_view bytes : w.metadata) {
      MetadataEntry entry;
      if (!ReadStringEntry(bytes, entry)) return Error(NotAProtobufMessage());
      if (!IsKeptNodeMetadataKey(entry.first)) continue;
      s_->node_metadata[i].emplace_back(strings_->Keep(entry.first), strings_->Keep(entry.second));
    }
  }
  if (nodes_read_) std::exchange(nodes_read_, nullptr)();
  return absl::OkStatus();
}

// Checks one attribute of a wire node once, to refuse what protobuf refuses, and keeps its
// bytes, parsed when an op reads it; one that holds graphs is parsed and kept onto `arena`,
// since the subgraphs are built from it.
absl::Status GraphBuilder::AddWireAttribute(std::string_view bytes, google::protobuf::Arena* arena,
                                            AttributeProto& scratch) {
  WireAttribute wa;
  if (!ReadWireAttribute(bytes, wa)) return Error(NotAProtobufMessage());
  if (!wa.nested) {
    s_->attributes.push_back({&strings_->Intern(wa.name), strings_->Keep(bytes), nullptr});
    return absl::OkStatus();
  }
  // Graphs, types and sparse tensors nest without bound: protobuf's parser checks them.
  scratch.Clear();
  if (!ParseWireAttribute(bytes, scratch)) return Error(NotAProtobufMessage());
  if (scratch.has_g() || scratch.graphs_size() > 0) {
    auto* kept = google::protobuf::Arena::CreateMessage<AttributeProto>(arena);
    ParseWireAttribute(bytes, *kept);
    s_->attributes.push_back({&kept->name(), {}, kept});
  } else {
    s_->attributes.push_back({&strings_->Intern(scratch.name()), strings_->Keep(bytes), nullptr});
  }
  return absl::OkStatus();
}

// Indexes the nodes of a NodeProto graph (text models, subgraphs): their strings and attributes
// stay in the proto.
absl::Status GraphBuilder::AddProtoNodes(const GraphProto& proto) {
  std::vector<std::string_view> inputs, outputs;
  for (int i = 0; i < proto.node_size(); ++i) {
    const auto& n = proto.node(i);
    GraphStorage::NodeRecord record{&n.op_type(), n.name(),
                                    static_cast<int32_t>(s_->attributes.size()),
                                    DomainIndex(&n.domain())};
    for (const AttributeProto& a : n.attribute()) s_->attributes.push_back({&a.name(), {}, &a});
    s_->nodes.push_back(record);
    inputs.assign(n.input().begin(), n.input().end());
    outputs.assign(n.output().begin(), n.output().end());
    if (auto status = AddNodeIo(i, inputs, outputs); !status.ok()) return status;
    for (const MetadataEntry& entry : UnknownStringEntries(n, kNodeMetadataField)) {
      if (IsKeptNodeMetadataKey(entry.first)) s_->node_metadata[i].push_back(entry);
    }
  }
  return absl::OkStatus();
}

// Lists what each node depends on, building its subgraphs on the way: a node that holds a
// subgraph comes after the producers of the outer values the subgraph reads.
absl::Status GraphBuilder::CollectReads(Reads& reads) {
  const int num_nodes = static_cast<int>(s_->nodes.size());
  reads.ids.reserve(s_->node_io.size());
  reads.begin.reserve(num_nodes + 1);
  for (int i = 0; i < num_nodes; ++i) {
    reads.begin.push_back(static_cast<int32_t>(reads.ids.size()));
    for (ValueId in : s_->InputIds(i)) {
      if (in != kNoValue) reads.ids.push_back(in);
    }
    if (auto status = AddSubgraphs(i, reads); !status.ok()) return status;
  }
  reads.begin.push_back(static_cast<int32_t>(reads.ids.size()));
  return absl::OkStatus();
}

// Builds the subgraphs of node `node`'s attributes, and adds the outer values they read to the
// node's reads, as ids of this graph.
absl::Status GraphBuilder::AddSubgraphs(int node, Reads& reads) {
  for (int32_t a = s_->AttributesBegin(node); a < s_->AttributesEnd(node); ++a) {
    // Attributes that hold graphs are always parsed.
    if (s_->attributes[a].parsed == nullptr) continue;
    const AttributeProto& attr = *s_->attributes[a].parsed;
    std::vector<const GraphProto*> bodies;
    if (attr.has_g()) bodies.push_back(&attr.g());
    for (const auto& sub : attr.graphs()) bodies.push_back(&sub);
    for (const GraphProto* body : bodies) {
      GraphBuilder sub_builder(source_, depth_ + 1);
      auto sub = sub_builder.Build(
          *body, g_, absl::StrCat(g_->path_, "/", g_->NodeLabel(node), ".", attr.name()));
      if (!sub.ok()) return sub.status();
      GraphStorage& built = *(*sub)->storage_;
      for (ValueId outer : sub_builder.outer_reads_) {
        ValueId here = Intern(built.values[outer].name);
        built.values[outer].outer = here;
        reads.ids.push_back(here);
      }
      s_->subgraphs[node].push_back({attr.name(), *std::move(sub)});
    }
  }
  return absl::OkStatus();
}

// Every read, and every graph output, must resolve here or in an enclosing graph.
absl::Status GraphBuilder::ResolveReads(const GraphProto& proto, const Reads& reads) {
  const int num_nodes = static_cast<int>(s_->nodes.size());
  for (int i = 0; i < num_nodes; ++i) {
    for (int32_t k = reads.begin[i]; k < reads.begin[i + 1]; ++k) {
      if (auto status = Resolve(reads.ids[k],
                                [&](std::string_view value) {
                                  return absl::StrCat(
                                      Describe(i), " reads '", std::string(value),
                                      "', which no node, graph input or initializer provides");
                                });
          !status.ok()) {
        return status;
      }
    }
  }
  for (const auto& vi : proto.output()) {
    if (auto status = Resolve(g_->FindValue(vi.name()),
                              [&](std::string_view value) {
                                return absl::StrCat("graph output '", std::string(value), "' of ",
                                                    g_->path_, " is not produced by any node");
                              });
        !status.ok()) {
      return status;
    }
  }
  return absl::OkStatus();
}

// Kahn's algorithm, taking ready nodes in file order so sorted graphs keep their order.
absl::StatusOr<std::vector<int>> GraphBuilder::TopologicalOrder(const Reads& reads) const {
  auto indexed = IndexUsers(reads);
  if (!indexed.ok()) return indexed.status();
  Users& u = *indexed;
  const int n = static_cast<int>(s_->nodes.size());
  std::vector<int> order;
  order.reserve(n);
  // A min-heap would keep strict file order; a FIFO seeded in file order is close and O(n).
  std::deque<int> ready;
  for (int i = 0; i < n; ++i) {
    if (u.pending[i] == 0) ready.push_back(i);
  }
  while (!ready.empty()) {
    int i = ready.front();
    ready.pop_front();
    order.push_back(i);
    for (int32_t k = u.begin[i]; k < u.begin[i + 1]; ++k) {
      if (--u.pending[u.users[k]] == 0) ready.push_back(u.users[k]);
    }
  }
  if (static_cast<int>(order.size()) != n) return CycleError(reads, u.pending);
  return order;
}

// The users of each node's outputs, counted then filled in; a node that reads its own output
// is a cycle, found here.
absl::StatusOr<GraphBuilder::Users> GraphBuilder::IndexUsers(const Reads& reads) const {
  const int n = static_cast<int>(s_->nodes.size());
  Users u;
  u.pending.assign(n, 0);
  u.begin.assign(n + 1, 0);
  for (int i = 0; i < n; ++i) {
    for (int32_t k = reads.begin[i]; k < reads.begin[i + 1]; ++k) {
      int p = s_->values[reads.ids[k]].producer;
      if (p < 0) continue;
      if (p == i) {
        return Error(absl::StrCat("cycle: ", Describe(i), " reads its own output '",
                                  std::string(s_->values[reads.ids[k]].name), "'"));
      }
      ++u.pending[i];
      ++u.begin[p + 1];
    }
  }
  for (int i = 0; i < n; ++i) u.begin[i + 1] += u.begin[i];
  u.users.resize(u.begin[n]);
  std::vector<int32_t> fill(u.begin.begin(), u.begin.end() - 1);
  for (int i = 0; i < n; ++i) {
    for (int32_t k = reads.begin[i]; k < reads.begin[i + 1]; ++k) {
      int p = s_->values[reads.ids[k]].producer;
      if (p >= 0) u.users[fill[p]++] = i;
    }
  }
  return u;
}

// The error for nodes left `pending` by the sort: the first of them that reads a value of
// another, named with that value.
absl::Status GraphBuilder::CycleError(const Reads& reads, const std::vector<int>& pending) const {
  const int n = static_cast<int>(s_->nodes.size());
  for (int i = 0; i < n; ++i) {
    if (pending[i] == 0) continue;
    for (int32_t k = reads.begin[i]; k < reads.begin[i + 1]; ++k) {
      int p = s_->values[reads.ids[k]].producer;
      if (p >= 0 && pending[p] > 0) {
        return Error(absl::StrCat("cycle: ", Describe(i), " reads '",
                                  std::string(s_->values[reads.ids[k]].name),
                                  "', which depends on the node's own output"));
      }
    }
  }
  return Error("cycle in the graph");
}

// Consumers of each value in topological order, a node once per value, as one flat array.
void GraphBuilder::IndexConsumers(const Reads& reads) {
  std::vector<GraphStorage::Value>& values = s_->values;
  std::vector<int> last(values.size(), -1);
  auto each_read = [&](auto&& visit) {
    for (int i : s_->order) {
      for (int32_t k = reads.begin[i]; k < reads.begin[i + 1]; ++k) {
        const ValueId v = reads.ids[k];
        if (last[v] == i) continue;
        last[v] = i;
        visit(v, i);
      }
    }
  };
  std::vector<int32_t> count(values.size() + 1, 0);
  each_read([&](ValueId v, int) { ++count[v + 1]; });
  for (size_t v = 0; v < values.size(); ++v) count[v + 1] += count[v];
  for (size_t v = 0; v < values.size(); ++v) values[v].consumers_begin = count[v];
  s_->consumers.resize(count[values.size()]);
  std::fill(last.begin(), last.end(), -1);
  each_read([&](ValueId v, int i) { s_->consumers[count[v]++] = i; });
}

// The tables are complete: their growth slack (up to half of each) goes now, before inference
// allocates, so that it is not part of the peak. Then the graph's inline views of them are set.
void GraphBuilder::ReleaseSlack() {
  s_->values.shrink_to_fit();
  s_->node_io.shrink_to_fit();
  s_->attributes.shrink_to_fit();
  g_->hot_ = {static_cast<int>(s_->nodes.size()), s_->node_io.data(), s_->node_io_begin.data()};
}

ValueId GraphBuilder::Intern(std::string_view name) {
  // One lookup, one hash: a name is copied only when first seen (with wire nodes it is a view
  // into bytes that go away after loading), under the hash it was looked up with.
  const auto id = static_cast<ValueId>(s_->values.size());
  auto it = s_->ids.lazy_emplace(name, [&](const auto& construct) {
    const std::string_view kept = strings_ != nullptr ? strings_->Keep(name) : name;
    s_->values.push_back({kept});
    construct(id);
  });
  return *it;
}

int32_t GraphBuilder::DomainIndex(const std::string* domain) {
  for (size_t k = 0; k < s_->domains.size(); ++k) {
    if (*s_->domains[k] == *domain) return static_cast<int32_t>(k);
  }
  s_->domains.push_back(domain);
  return static_cast<int32_t>(s_->domains.size() - 1);
}

// A copy of node `i`'s name. Exporters name outputs after their node ("/attn/Gather_6" writes
// "/attn/Gather_6_output_0"): then the name is the start of an output's kept name, which saves
// a copy of most names.
std::string_view GraphBuilder::KeepNodeName(int i, std::string_view name) {
  // Node i is the last one added: its outputs run to the end of node_io.
  for (size_t k = s_->node_io_begin[2 * i + 1]; k < s_->node_io.size(); ++k) {
    const ValueId out = s_->node_io[k];
    if (out == kNoValue) continue;
    std::string_view kept = s_->values[out].name;
    if (kept.substr(0, name.size()) == name) return kept.substr(0, name.size());
  }
  return strings_->Keep(name);
}

// Appends node `i`'s input and output ids and records it as its outputs' producer.
absl::Status GraphBuilder::AddNodeIo(int i, const std::vector<std::string_view>& inputs,
                                     const std::vector<std::string_view>& outputs) {
  s_->node_io_begin.push_back(static_cast<int32_t>(s_->node_io.size()));
  for (std::string_view in : inputs) {
    s_->node_io.push_back(in.empty() ? kNoValue : Intern(in));
  }
  s_->node_io_begin.push_back(static_cast<int32_t>(s_->node_io.size()));
  for (std::string_view out : outputs) {
    if (out.empty()) {
      s_->node_io.push_back(kNoValue);
      continue;
    }
    ValueId id = Intern(out);
    s_->node_io.push_back(id);
    GraphStorage::Value& v = s_->values[id];
    if (v.producer >= 0) {
      return Error(absl::StrCat("value '", std::string(out), "' is produced by both ",
                                Describe(v.producer), " and ", Describe(i)));
    }
    if (v.flags & (GraphStorage::kHasInput | GraphStorage::kHasInitializer)) {
      return Error(absl::StrCat(Describe(i), " writes '", std::string(out),
                                "', which is already a graph input or initializer"));
    }
    v.producer = i;
    v.flags |= GraphStorage::kDefined;
  }
  return absl::OkStatus();
}

// The first declaration of a name counts, as the first entry of a protobuf map would.
template <typename T>
void GraphBuilder::Declare(absl::flat_hash_map<ValueId, const T*>& map, ValueId id,
                           const T* declaration, GraphStorage::Flag flag) {
  if (map.try_emplace(id, declaration).second) s_->values[id].flags |= flag;
}

// A read resolves when this graph defines the value or an enclosing graph does (then it is one
// of this graph's outer reads).
template <typename MessageFn>
absl::Status GraphBuilder::Resolve(ValueId id, const MessageFn& message) {
  const GraphStorage::Value& v = s_->values[id];
  if ((v.flags & GraphStorage::kDefined) != 0 || v.outer != kNoValue ||
      outer_marked_.contains(id)) {
    return absl::OkStatus();
  }
  if (g_->parent_ != nullptr && Resolves(*g_->parent_, v.name)) {
    outer_marked_.insert(id);
    outer_reads_.push_back(id);
    return absl::OkStatus();
  }
  return Error(message(v.name));
}

std::string GraphBuilder::Describe(int index) const {
  return absl::StrCat("node '", g_->NodeLabel(index), "' (", g_->node(index).op_type(), ")");
}

absl::Status GraphBuilder::Error(const std::string& message) const {
  return absl::InvalidArgumentError(absl::StrCat(source_, ": ", message));
}

}  // namespace shapelint::ir
