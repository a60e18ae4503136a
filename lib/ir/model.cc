#include "shapelint/ir/model.h"

#include <algorithm>
#include <deque>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/io/coded_stream.h"
#include "ir/graph_storage.h"
#include "ir/inline_functions.h"
#include "ir/skim.h"
#include "ir/string_store.h"
#include "ir/wire_nodes.h"

namespace shapelint::ir {
namespace {

using ONNX_NAMESPACE::AttributeProto;
using ONNX_NAMESPACE::GraphProto;

// Subgraph nesting deeper than this is rejected instead of risking the stack.
constexpr int kMaxSubgraphDepth = 64;

// Parses a serialized AttributeProto of a main-graph node: model, graph, node and attribute are
// the levels above its own fields.
bool ParseAttribute(std::string_view bytes, AttributeProto& out) {
  google::protobuf::io::CodedInputStream stream(reinterpret_cast<const uint8_t*>(bytes.data()),
                                                static_cast<int>(bytes.size()));
  stream.SetRecursionLimit(kMaxMessageDepth - 3);
  return out.MergeFromCodedStream(&stream) && stream.ConsumedEntireMessage();
}

// Attribute `k` of the graph: the proto it holds, or its bytes parsed into `*scratch` (cleared
// first) or, without one, into a message of the returned handle's own.
AttributeRef AttributeAt(const GraphStorage& storage, int32_t k, AttributeProto* scratch) {
  const GraphStorage::AttributeRecord& a = storage.attributes[k];
  if (a.parsed != nullptr) return AttributeRef(a.parsed);
  if (scratch != nullptr) {
    scratch->Clear();
    // The bytes passed the check at load, which refuses what protobuf refuses: this cannot fail.
    if (!ParseAttribute(a.bytes, *scratch)) return AttributeRef();
    return AttributeRef(static_cast<const AttributeProto*>(scratch));
  }
  auto parsed = std::make_unique<AttributeProto>();
  // As above: this cannot fail.
  if (!ParseAttribute(a.bytes, *parsed)) return AttributeRef();
  return AttributeRef(std::move(parsed));
}

}  // namespace

const std::string& Node::op_type() const { return *graph_->storage_->nodes[index_].op_type; }

const std::string& Node::domain() const {
  const GraphStorage& s = *graph_->storage_;
  return *s.domains[s.nodes[index_].domain];
}

std::string_view Node::name() const { return graph_->storage_->nodes[index_].name; }
int Node::input_size() const { return static_cast<int>(graph_->storage_->InputIds(index_).size()); }

int Node::output_size() const {
  return static_cast<int>(graph_->storage_->OutputIds(index_).size());
}

std::string_view Node::input(int i) const {
  const GraphStorage& s = *graph_->storage_;
  const ValueId id = s.InputIds(index_)[i];
  return id == kNoValue ? std::string_view() : s.values[id].name;
}

std::string_view Node::output(int i) const {
  const GraphStorage& s = *graph_->storage_;
  const ValueId id = s.OutputIds(index_)[i];
  return id == kNoValue ? std::string_view() : s.values[id].name;
}

std::string_view Node::NameOf::operator()(ValueId id) const {
  return id == kNoValue ? std::string_view() : graph->storage_->values[id].name;
}

Node::Names Node::input() const {
  return Names(graph_->storage_->InputIds(index_), NameOf{graph_});
}

Node::Names Node::output() const {
  return Names(graph_->storage_->OutputIds(index_), NameOf{graph_});
}

int Node::attribute_size() const {
  const GraphStorage& s = *graph_->storage_;
  return s.AttributesEnd(index_) - s.AttributesBegin(index_);
}

std::string_view Node::attribute_name(int i) const {
  const GraphStorage& s = *graph_->storage_;
  return *s.attributes[s.AttributesBegin(index_) + i].name;
}

AttributeRef Node::attribute(int i) const { return attribute(i, nullptr); }

size_t Node::attribute_serialized_size(int i) const { return attribute_bytes(i).size(); }

std::string_view Node::attribute_bytes(int i) const {
  const GraphStorage& s = *graph_->storage_;
  const GraphStorage::AttributeRecord& a = s.attributes[s.AttributesBegin(index_) + i];
  return a.parsed != nullptr ? std::string_view() : a.bytes;
}

AttributeRef Node::attribute(int i, AttributeProto* scratch) const {
  const GraphStorage& s = *graph_->storage_;
  return AttributeAt(s, s.AttributesBegin(index_) + i, scratch);
}

AttributeRef Node::FindAttribute(std::string_view name) const {
  const GraphStorage& s = *graph_->storage_;
  const int32_t end = s.AttributesEnd(index_);
  for (int32_t k = s.AttributesBegin(index_); k < end; ++k) {
    if (*s.attributes[k].name == name) return AttributeAt(s, k, nullptr);
  }
  return AttributeRef();
}

Graph::Graph(const GraphProto& proto, const Graph* parent, std::string path)
    : proto_(&proto),
      parent_(parent),
      path_(std::move(path)),
      storage_(std::make_unique<GraphStorage>()) {}

Graph::~Graph() = default;

const std::vector<int>& Graph::topological_order() const { return storage_->order; }
int Graph::num_values() const { return static_cast<int>(storage_->values.size()); }
std::string_view Graph::value_name(ValueId id) const { return storage_->values[id].name; }

bool Graph::Defines(ValueId id) const {
  return (storage_->values[id].flags & GraphStorage::kDefined) != 0;
}

ValueId Graph::OuterId(ValueId id) const { return storage_->values[id].outer; }
int Graph::Producer(ValueId id) const { return storage_->values[id].producer; }
absl::Span<const int> Graph::Consumers(ValueId id) const { return storage_->Consumers(id); }

ValueId Graph::FindValue(std::string_view name) const {
  auto it = storage_->ids.find(name);
  return it == storage_->ids.end() ? kNoValue : *it;
}

int Graph::Producer(std::string_view value) const {
  ValueId id = FindValue(value);
  return id == kNoValue ? -1 : Producer(id);
}

const ONNX_NAMESPACE::TensorProto* Graph::Initializer(ValueId id) const {
  return storage_->Declared(storage_->initializers, id, GraphStorage::kHasInitializer);
}
const ONNX_NAMESPACE::TensorProto* Graph::Initializer(std::string_view value) const {
  return Initializer(FindValue(value));
}
const ONNX_NAMESPACE::ValueInfoProto* Graph::Input(ValueId id) const {
  return storage_->Declared(storage_->inputs, id, GraphStorage::kHasInput);
}
const ONNX_NAMESPACE::ValueInfoProto* Graph::Input(std::string_view value) const {
  return Input(FindValue(value));
}
const ONNX_NAMESPACE::ValueInfoProto* Graph::Output(ValueId id) const {
  return storage_->Declared(storage_->outputs, id, GraphStorage::kHasOutput);
}
const ONNX_NAMESPACE::ValueInfoProto* Graph::Output(std::string_view value) const {
  return Output(FindValue(value));
}
const ONNX_NAMESPACE::ValueInfoProto* Graph::ValueInfo(ValueId id) const {
  return storage_->Declared(storage_->value_infos, id, GraphStorage::kHasValueInfo);
}
const ONNX_NAMESPACE::ValueInfoProto* Graph::ValueInfo(std::string_view value) const {
  return ValueInfo(FindValue(value));
}

absl::Span<const int> Graph::Consumers(std::string_view value) const {
  ValueId id = FindValue(value);
  return id == kNoValue ? absl::Span<const int>() : Consumers(id);
}

std::vector<const Graph*> Graph::Subgraphs(int index) const {
  std::vector<const Graph*> result;
  auto it = storage_->subgraphs.find(index);
  if (it == storage_->subgraphs.end()) return result;
  for (const auto& s : it->second) result.push_back(s.graph.get());
  return result;
}

const Graph* Graph::Subgraph(int index, std::string_view attribute) const {
  auto it = storage_->subgraphs.find(index);
  if (it == storage_->subgraphs.end()) return nullptr;
  for (const auto& s : it->second) {
    if (s.attribute == attribute) return s.graph.get();
  }
  return nullptr;
}

std::string Graph::NodeLabel(int index) const {
  const auto& n = node(index);
  if (!n.name().empty()) return std::string(n.name());
  return absl::StrCat("<", n.op_type(), " #", index, ">");
}

// Builds one Graph (and, recursively, its subgraphs) and checks its references. Each value
// name is hashed once per mention here; everything after works on ids.
class GraphBuilder {
 public:
  GraphBuilder(const std::string& source, int depth) : source_(source), depth_(depth) {}

  // Called once the wire nodes have been read.
  void set_nodes_read(std::function<void()> f) { nodes_read_ = std::move(f); }

  // Nodes come from `proto` unless `wire_nodes` is given: then they are read from those bytes,
  // their names copied to `strings` and their attributes parsed onto `arena`.
  absl::StatusOr<std::unique_ptr<Graph>> Build(
      const GraphProto& proto, const Graph* parent, std::string path,
      const std::vector<std::string_view>* wire_nodes = nullptr, StringStore* strings = nullptr,
      google::protobuf::Arena* arena = nullptr) {
    std::unique_ptr<Graph> owned(new Graph(proto, parent, std::move(path)));
    g_ = owned.get();
    s_ = g_->storage_.get();
    if (depth_ > kMaxSubgraphDepth) {
      return Error(absl::StrCat("subgraphs nested deeper than ", kMaxSubgraphDepth, " levels at ",
                                g_->path_));
    }
    const int num_nodes =
        wire_nodes != nullptr ? static_cast<int>(wire_nodes->size()) : proto.node_size();
    // Sized up front: rehashing tables of a few hundred thousand names is a visible cost. Most
    // values are one node's output, read by one or two others.
    s_->values.reserve(num_nodes + proto.input_size() + proto.initializer_size());
    s_->ids.reserve(num_nodes + proto.input_size() + proto.initializer_size());
    s_->node_io.reserve(num_nodes * 3);
    s_->node_io_begin.reserve(2 * num_nodes + 1);
    s_->nodes.reserve(num_nodes);

    for (const auto& t : proto.initializer()) {
      Declare(s_->initializers, Intern(t.name()), &t, GraphStorage::kHasInitializer);
    }
    for (const auto& s : proto.sparse_initializer()) {
      // Sparse initializers are values too; their dense form is not needed for shapes.
      Declare(s_->initializers, Intern(s.values().name()),
              static_cast<const ONNX_NAMESPACE::TensorProto*>(nullptr),
              GraphStorage::kHasInitializer);
    }
    for (const auto& vi : proto.input())
      Declare(s_->inputs, Intern(vi.name()), &vi, GraphStorage::kHasInput);
    for (const auto& vi : proto.output()) {
      Declare(s_->outputs, Intern(vi.name()), &vi, GraphStorage::kHasOutput);
    }
    for (const auto& vi : proto.value_info()) {
      Declare(s_->value_infos, Intern(vi.name()), &vi, GraphStorage::kHasValueInfo);
    }
    for (GraphStorage::Value& v : s_->values) {
      if (v.flags & (GraphStorage::kHasInitializer | GraphStorage::kHasInput))
        v.flags |= GraphStorage::kDefined;
    }

    if (wire_nodes != nullptr) {
      strings_ = strings;
      WireNode w;
      WireAttribute wa;
      AttributeProto scratch;
      for (int i = 0; i < num_nodes; ++i) {
        if (!ReadWireNode((*wire_nodes)[i], w)) return Error(NotAProtobufMessage());
        // The name is a view into the model's bytes until the outputs are known (below).
        GraphStorage::NodeRecord record{&strings->Intern(w.op_type), w.name,
                                        static_cast<int32_t>(s_->attributes.size()),
                                        DomainIndex(&strings->Intern(w.domain))};
        for (std::string_view bytes : w.attributes) {
          // Checked once to refuse what protobuf refuses; parsed when an op reads it.
          if (!ReadWireAttribute(bytes, wa)) return Error(NotAProtobufMessage());
          if (!wa.nested) {
            s_->attributes.push_back({&strings->Intern(wa.name), strings->Keep(bytes), nullptr});
            continue;
          }
          // Graphs, types and sparse tensors nest without bound: protobuf's parser checks them.
          scratch.Clear();
          if (!ParseAttribute(bytes, scratch)) return Error(NotAProtobufMessage());
          if (scratch.has_g() || scratch.graphs_size() > 0) {
            auto* kept = google::protobuf::Arena::CreateMessage<AttributeProto>(arena);
            ParseAttribute(bytes, *kept);
            s_->attributes.push_back({&kept->name(), {}, kept});
          } else {
            s_->attributes.push_back(
                {&strings->Intern(scratch.name()), strings->Keep(bytes), nullptr});
          }
        }
        s_->nodes.push_back(record);
        if (auto status = AddNodeIo(i, w.inputs, w.outputs); !status.ok()) return status;
        s_->nodes.back().name = KeepNodeName(i, w.name);
      }
      if (nodes_read_) std::exchange(nodes_read_, nullptr)();
    } else {
      std::vector<std::string_view> inputs, outputs;
      for (int i = 0; i < num_nodes; ++i) {
        const auto& n = proto.node(i);
        GraphStorage::NodeRecord record{&n.op_type(), n.name(),
                                        static_cast<int32_t>(s_->attributes.size()),
                                        DomainIndex(&n.domain())};
        for (const AttributeProto& a : n.attribute()) s_->attributes.push_back({&a.name(), {}, &a});
        s_->nodes.push_back(record);
        inputs.assign(n.input().begin(), n.input().end());
        outputs.assign(n.output().begin(), n.output().end());
        if (auto status = AddNodeIo(i, inputs, outputs); !status.ok()) return status;
      }
    }
    s_->node_io_begin.push_back(static_cast<int32_t>(s_->node_io.size()));

    // Dependencies of each node: its own inputs and the outer values its subgraphs read.
    std::vector<ValueId> reads;
    std::vector<int32_t> reads_begin;
    reads.reserve(s_->node_io.size());
    reads_begin.reserve(num_nodes + 1);
    for (int i = 0; i < num_nodes; ++i) {
      reads_begin.push_back(static_cast<int32_t>(reads.size()));
      for (ValueId in : s_->InputIds(i)) {
        if (in != kNoValue) reads.push_back(in);
      }
      for (int32_t a = s_->nodes[i].attributes_begin; a < s_->AttributesEnd(i); ++a) {
        // Attributes that hold graphs are always parsed.
        if (s_->attributes[a].parsed == nullptr) continue;
        const AttributeProto& attr = *s_->attributes[a].parsed;
        std::vector<const GraphProto*> bodies;
        if (attr.has_g()) bodies.push_back(&attr.g());
        for (const auto& sub : attr.graphs()) bodies.push_back(&sub);
        for (const GraphProto* body : bodies) {
          GraphBuilder sub_builder(source_, depth_ + 1);
          auto sub = sub_builder.Build(
              *body, g_, absl::StrCat(g_->path_, "/", g_->NodeLabel(i), ".", attr.name()));
          if (!sub.ok()) return sub.status();
          Graph& built = **sub;
          for (ValueId outer : sub_builder.outer_reads_) {
            ValueId here = Intern(built.storage_->values[outer].name);
            built.storage_->values[outer].outer = here;
            reads.push_back(here);
          }
          s_->subgraphs[i].push_back({attr.name(), *std::move(sub)});
        }
      }
    }
    reads_begin.push_back(static_cast<int32_t>(reads.size()));

    // Every read must resolve here or in an enclosing graph.
    for (int i = 0; i < num_nodes; ++i) {
      for (int32_t k = reads_begin[i]; k < reads_begin[i + 1]; ++k) {
        if (auto status = Resolve(reads[k],
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

    auto order = TopologicalOrder(reads, reads_begin);
    if (!order.ok()) return order.status();
    s_->order = *std::move(order);
    IndexConsumers(reads, reads_begin);
    // The tables are complete: their growth slack (up to half of each) goes now, before
    // inference allocates, so that it is not part of the peak.
    s_->values.shrink_to_fit();
    s_->node_io.shrink_to_fit();
    s_->attributes.shrink_to_fit();
    g_->hot_ = {static_cast<int>(s_->nodes.size()), s_->node_io.data(), s_->node_io_begin.data()};
    return owned;
  }

 private:
  ValueId Intern(std::string_view name) {
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

  int32_t DomainIndex(const std::string* domain) {
    for (size_t k = 0; k < s_->domains.size(); ++k) {
      if (*s_->domains[k] == *domain) return static_cast<int32_t>(k);
    }
    s_->domains.push_back(domain);
    return static_cast<int32_t>(s_->domains.size() - 1);
  }

  // A copy of node `i`'s name. Exporters name outputs after their node ("/attn/Gather_6" writes
  // "/attn/Gather_6_output_0"): then the name is the start of an output's kept name, which
  // saves a copy of most names.
  std::string_view KeepNodeName(int i, std::string_view name) {
    // Node i is the last one added: its outputs run to the end of storage_->node_io.
    for (size_t k = s_->node_io_begin[2 * i + 1]; k < s_->node_io.size(); ++k) {
      const ValueId out = s_->node_io[k];
      if (out == kNoValue) continue;
      std::string_view kept = s_->values[out].name;
      if (kept.substr(0, name.size()) == name) return kept.substr(0, name.size());
    }
    return strings_->Keep(name);
  }

  // Appends node `i`'s input and output ids and records it as its outputs' producer.
  absl::Status AddNodeIo(int i, const std::vector<std::string_view>& inputs,
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
  void Declare(absl::flat_hash_map<ValueId, const T*>& map, ValueId id, const T* declaration,
               GraphStorage::Flag flag) {
    if (map.try_emplace(id, declaration).second) s_->values[id].flags |= flag;
  }

  static bool Resolves(const Graph& graph, std::string_view value) {
    for (const Graph* g = &graph; g != nullptr; g = g->parent()) {
      ValueId id = g->FindValue(value);
      if (id != kNoValue && g->Defines(id)) return true;
    }
    return false;
  }

  // A read resolves when this graph defines the value or an enclosing graph does (then it is
  // one of this graph's outer reads).
  template <typename MessageFn>
  absl::Status Resolve(ValueId id, const MessageFn& message) {
    if ((s_->values[id].flags & GraphStorage::kDefined) != 0 || s_->values[id].outer != kNoValue ||
        outer_marked_.contains(id)) {
      return absl::OkStatus();
    }
    std::string_view name = s_->values[id].name;
    if (g_->parent_ != nullptr && Resolves(*g_->parent_, name)) {
      outer_marked_.insert(id);
      outer_reads_.push_back(id);
      return absl::OkStatus();
    }
    return Error(message(name));
  }

  std::string Describe(int index) const {
    return absl::StrCat("node '", g_->NodeLabel(index), "' (", g_->node(index).op_type(), ")");
  }

  absl::Status Error(const std::string& message) const {
    return absl::InvalidArgumentError(absl::StrCat(source_, ": ", message));
  }

  // Kahn's algorithm, taking ready nodes in file order so sorted graphs keep their order.
  absl::StatusOr<std::vector<int>> TopologicalOrder(const std::vector<ValueId>& reads,
                                                    const std::vector<int32_t>& begin) const {
    const int n = static_cast<int>(s_->nodes.size());
    std::vector<int> pending(n, 0);
    // Users of each node's outputs, as one flat list per producer (counted, then filled).
    std::vector<int32_t> users_begin(n + 1, 0);
    for (int i = 0; i < n; ++i) {
      for (int32_t k = begin[i]; k < begin[i + 1]; ++k) {
        int p = s_->values[reads[k]].producer;
        if (p < 0) continue;
        if (p == i) {
          return Error(absl::StrCat("cycle: ", Describe(i), " reads its own output '",
                                    std::string(s_->values[reads[k]].name), "'"));
        }
        ++pending[i];
        ++users_begin[p + 1];
      }
    }
    for (int i = 0; i < n; ++i) users_begin[i + 1] += users_begin[i];
    std::vector<int> users(users_begin[n]);
    std::vector<int32_t> fill(users_begin.begin(), users_begin.end() - 1);
    for (int i = 0; i < n; ++i) {
      for (int32_t k = begin[i]; k < begin[i + 1]; ++k) {
        int p = s_->values[reads[k]].producer;
        if (p >= 0) users[fill[p]++] = i;
      }
    }
    std::vector<int> order;
    order.reserve(n);
    // A min-heap would keep strict file order; a FIFO seeded in file order is close and O(n).
    std::deque<int> ready;
    for (int i = 0; i < n; ++i) {
      if (pending[i] == 0) ready.push_back(i);
    }
    while (!ready.empty()) {
      int i = ready.front();
      ready.pop_front();
      order.push_back(i);
      for (int32_t k = users_begin[i]; k < users_begin[i + 1]; ++k) {
        if (--pending[users[k]] == 0) ready.push_back(users[k]);
      }
    }
    if (static_cast<int>(order.size()) != n) {
      for (int i = 0; i < n; ++i) {
        if (pending[i] == 0) continue;
        for (int32_t k = begin[i]; k < begin[i + 1]; ++k) {
          int p = s_->values[reads[k]].producer;
          if (p >= 0 && pending[p] > 0) {
            return Error(absl::StrCat("cycle: ", Describe(i), " reads '",
                                      std::string(s_->values[reads[k]].name),
                                      "', which depends on the node's own output"));
          }
        }
      }
      return Error("cycle in the graph");
    }
    return order;
  }

  // Consumers of each value in topological order, a node once per value, as one flat array.
  void IndexConsumers(const std::vector<ValueId>& reads, const std::vector<int32_t>& begin) {
    std::vector<GraphStorage::Value>& values = s_->values;
    std::vector<int> last(values.size(), -1);
    auto each_read = [&](auto&& visit) {
      for (int i : s_->order) {
        for (int32_t k = begin[i]; k < begin[i + 1]; ++k) {
          if (last[reads[k]] == i) continue;
          last[reads[k]] = i;
          visit(reads[k], i);
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

  const std::string& source_;
  int depth_;
  Graph* g_ = nullptr;
  GraphStorage* s_ = nullptr;       // g_'s tables
  StringStore* strings_ = nullptr;  // set when names must be copied
  std::function<void()> nodes_read_;
  // Values this graph reads from an enclosing graph, in order of first read.
  std::vector<ValueId> outer_reads_;
  absl::flat_hash_set<ValueId> outer_marked_;
};

Model::Model() = default;
Model::~Model() = default;

absl::StatusOr<std::unique_ptr<Model>> Model::FromProto(ONNX_NAMESPACE::ModelProto proto,
                                                        std::string source) {
  std::unique_ptr<Model> model(new Model());
  model->owned_proto_ = std::move(proto);
  model->proto_ = &model->owned_proto_;
  model->source_ = std::move(source);
  return Index(std::move(model), nullptr, nullptr);
}

absl::StatusOr<std::unique_ptr<Model>> Model::FromArena(
    std::unique_ptr<google::protobuf::Arena> arena, ONNX_NAMESPACE::ModelProto* proto,
    std::string source) {
  std::unique_ptr<Model> model(new Model());
  model->arena_ = std::move(arena);
  model->proto_ = proto;
  model->source_ = std::move(source);
  return Index(std::move(model), nullptr, nullptr);
}

absl::StatusOr<std::unique_ptr<Model>> Model::FromArenaAndWireNodes(
    std::unique_ptr<google::protobuf::Arena> arena, ONNX_NAMESPACE::ModelProto* proto,
    const std::vector<std::string_view>& nodes, std::string source,
    std::function<void()> nodes_read) {
  std::unique_ptr<Model> model(new Model());
  model->arena_ = std::move(arena);
  model->proto_ = proto;
  model->source_ = std::move(source);
  model->strings_ = std::make_unique<StringStore>();
  return Index(std::move(model), &nodes, std::move(nodes_read));
}

absl::StatusOr<std::unique_ptr<Model>> Model::Index(std::unique_ptr<Model> model,
                                                    const std::vector<std::string_view>* wire_nodes,
                                                    std::function<void()> nodes_read) {
  if (!model->proto_->has_graph()) {
    return absl::InvalidArgumentError(
        absl::StrCat(model->source_, ": not an ONNX model (it has no graph)"));
  }
  // A model with functions never comes with wire nodes (SplitMainGraphNodes keeps it whole).
  if (wire_nodes == nullptr) InlineFunctions(*model->proto_);
  for (const auto& op : model->proto_->opset_import()) {
    std::string domain = op.domain() == "ai.onnx" ? "" : op.domain();
    model->opsets_[domain] = op.version();
  }
  GraphBuilder builder(model->source_, 0);
  builder.set_nodes_read(std::move(nodes_read));
  auto graph = builder.Build(model->proto_->graph(), nullptr, "main", wire_nodes,
                             model->strings_.get(), model->arena_.get());
  if (!graph.ok()) return graph.status();
  model->graph_ = *std::move(graph);
  return model;
}

ONNX_NAMESPACE::ModelProto Model::CompleteProto() const {
  ONNX_NAMESPACE::ModelProto copy = *proto_;
  if (strings_ == nullptr) return copy;  // the proto has its nodes
  GraphProto& graph = *copy.mutable_graph();
  graph.clear_node();
  for (int i = 0; i < graph_->num_nodes(); ++i) {
    const Node n = graph_->node(i);
    ONNX_NAMESPACE::NodeProto& out = *graph.add_node();
    out.set_op_type(n.op_type());
    if (!n.domain().empty()) out.set_domain(n.domain());
    if (!n.name().empty()) out.set_name(std::string(n.name()));
    for (std::string_view in : n.input()) out.add_input(std::string(in));
    for (std::string_view o : n.output()) out.add_output(std::string(o));
    for (int k = 0; k < n.attribute_size(); ++k) *out.add_attribute() = *n.attribute(k);
  }
  return copy;
}

int64_t Model::OpsetVersion(std::string_view domain) const {
  if (domain == "ai.onnx") domain = "";
  auto it = opsets_.find(absl::string_view(domain.data(), domain.size()));
  return it == opsets_.end() ? -1 : it->second;
}

}  // namespace shapelint::ir
