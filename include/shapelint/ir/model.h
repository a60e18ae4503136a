// Read-only, indexed views over an ONNX model.
//
// A Model owns its ModelProto and the strings its graphs need; Graphs, Nodes and their indexes
// point into them and stay valid as long as the Model lives. The nodes of a binary model's main
// graph are read straight from the wire format into compact records (a NodeProto costs about
// six times its serialized size, and nodes are nearly all of a graph): there, proto().graph()
// has no nodes, and nodes are reached through Graph::node() alone. Their attributes stay in
// serialized form, checked at load and parsed again each time one is asked for (an
// AttributeProto costs 300 bytes, a Constant's 700, and the engine reads each once); those that
// hold subgraphs are parsed once and kept. Everything else (the model's metadata,
// initializers, declared types, subgraphs) stays in protos, but the main graph's initializers
// stored as external data lose their external_data entries, which nothing here reads.
//
// Building a Model validates what every later stage relies on: each node input
// is provided by a node, a graph input, an initializer or an enclosing graph; each value has one
// producer; and the nodes can be put in topological order. A violation is an error that names
// the value and the node.
#ifndef SHAPELINT_IR_MODEL_H_
#define SHAPELINT_IR_MODEL_H_

#include <google/protobuf/arena.h>
#include <onnx/onnx_pb.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "shapelint/ir/name_hash.h"

namespace shapelint::ir {

// Dense index of a value within one graph: every name that the graph's nodes, inputs, outputs,
// initializers and value_info mention, including names read from an enclosing graph, gets one,
// in order of first mention. Indexing by id keeps name hashing out of the analysis's hot paths.
using ValueId = int32_t;
inline constexpr ValueId kNoValue = -1;

class Graph;
class StringStore;

// An attribute of a node: a proto the model holds, or one parsed for this handle, which then
// owns it. Pointers into it live as long as the handle. Empty when there is no such attribute.
class AttributeRef {
 public:
  AttributeRef() = default;
  explicit AttributeRef(const ONNX_NAMESPACE::AttributeProto* held) : proto_(held) {}
  explicit AttributeRef(std::unique_ptr<ONNX_NAMESPACE::AttributeProto> parsed)
      : owned_(std::move(parsed)), proto_(owned_.get()) {}

  const ONNX_NAMESPACE::AttributeProto* get() const { return proto_; }
  const ONNX_NAMESPACE::AttributeProto& operator*() const { return *proto_; }
  const ONNX_NAMESPACE::AttributeProto* operator->() const { return proto_; }
  explicit operator bool() const { return proto_ != nullptr; }

 private:
  std::unique_ptr<ONNX_NAMESPACE::AttributeProto> owned_;
  const ONNX_NAMESPACE::AttributeProto* proto_ = nullptr;
};

// A range over [begin, end) that yields what `Get(item)` gives for each item (ids as names),
// for range-for loops over a node's inputs and outputs.
template <typename Item, typename Get>
class MappedRange {
 public:
  class iterator {
   public:
    iterator(const Item* at, Get get) : at_(at), get_(get) {}
    decltype(auto) operator*() const { return get_(*at_); }
    iterator& operator++() {
      ++at_;
      return *this;
    }
    bool operator!=(const iterator& other) const { return at_ != other.at_; }

   private:
    const Item* at_;
    Get get_;
  };
  MappedRange(absl::Span<const Item> items, Get get) : items_(items), get_(get) {}
  iterator begin() const { return iterator(items_.data(), get_); }
  iterator end() const { return iterator(items_.data() + items_.size(), get_); }
  size_t size() const { return items_.size(); }

 private:
  absl::Span<const Item> items_;
  Get get_;
};

// One node of a graph: a cheap handle (graph and index), passed by value. Its accessors mirror
// NodeProto's, with input and output names read from the graph's value table.
class Node {
 public:
  Node(const Graph& graph, int index) : graph_(&graph), index_(index) {}

  int index() const { return index_; }
  const std::string& op_type() const;
  const std::string& domain() const;
  // Empty when the node has no name; Graph::NodeLabel gives a label for messages.
  std::string_view name() const;

  int input_size() const;
  // Name of input `i`; empty for an omitted optional input.
  std::string_view input(int i) const;
  int output_size() const;
  std::string_view output(int i) const;

  struct NameOf {
    const Graph* graph;
    std::string_view operator()(ValueId id) const;
  };
  using Names = MappedRange<ValueId, NameOf>;
  // The input (output) names in order, for range-for.
  Names input() const;
  Names output() const;

  int attribute_size() const;
  // Name of attribute `i`, without parsing it.
  std::string_view attribute_name(int i) const;
  AttributeRef attribute(int i) const;
  // The same, parsed into `*scratch` (cleared first) unless the model holds it parsed already:
  // valid while `*scratch` is and until the next parse into it. Parsing again into one message
  // reuses its allocations, which the engine does for every node (lib/infer/op_context.h).
  AttributeRef attribute(int i, ONNX_NAMESPACE::AttributeProto* scratch) const;
  // Size of attribute `i` as the file serializes it; 0 when the model holds it parsed.
  size_t attribute_serialized_size(int i) const;
  // Attribute `i` as the file serializes it; empty when the model holds it parsed.
  std::string_view attribute_bytes(int i) const;
  // The node's first attribute named `name`; empty when it has none.
  AttributeRef FindAttribute(std::string_view name) const;

 private:
  const Graph* graph_;
  int index_;
};

class Graph {
 public:
  Graph() = default;
  // The name index refers to values_ by address.
  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;

  // The graph's proto: declarations, initializers, inputs and outputs. Its nodes may be absent
  // (see the top of this file); read nodes with node().
  const ONNX_NAMESPACE::GraphProto& proto() const { return *proto_; }
  // Where this graph sits: "main", or e.g. "main/If_3.then_branch" for a subgraph.
  const std::string& path() const { return path_; }
  const Graph* parent() const { return parent_; }

  int num_nodes() const { return static_cast<int>(nodes_.size()); }
  Node node(int index) const { return Node(*this, index); }
  // Node indices, each after the producers of its inputs (stable: file order where possible).
  const std::vector<int>& topological_order() const { return order_; }

  int num_values() const { return static_cast<int>(values_.size()); }
  // The id of the value named `name`, or kNoValue when this graph never mentions it.
  ValueId FindValue(std::string_view name) const;
  std::string_view value_name(ValueId id) const { return values_[id].name; }
  // Ids of node `index`'s inputs and outputs, in order; kNoValue where a name is empty (an
  // omitted optional input or output).
  absl::Span<const ValueId> InputIds(int index) const {
    return Slice(node_io_, node_io_begin_[2 * index], node_io_begin_[2 * index + 1]);
  }
  absl::Span<const ValueId> OutputIds(int index) const {
    return Slice(node_io_, node_io_begin_[2 * index + 1], node_io_begin_[2 * index + 2]);
  }
  // True when this graph provides the value: a node output, a graph input or an initializer.
  bool Defines(ValueId id) const { return (values_[id].flags & kDefined) != 0; }
  // For a value that this graph reads from an enclosing graph, its id in the parent graph;
  // kNoValue for the graph's own values.
  ValueId OuterId(ValueId id) const { return values_[id].outer; }

  // Index of the node in this graph that produces the value, or -1.
  int Producer(ValueId id) const { return values_[id].producer; }
  int Producer(std::string_view value) const;
  // Initializer of this graph with that name, or nullptr.
  const ONNX_NAMESPACE::TensorProto* Initializer(ValueId id) const;
  const ONNX_NAMESPACE::TensorProto* Initializer(std::string_view value) const;
  // Graph input with that name, or nullptr. Inputs that only give an initializer's type count.
  const ONNX_NAMESPACE::ValueInfoProto* Input(ValueId id) const;
  const ONNX_NAMESPACE::ValueInfoProto* Input(std::string_view value) const;
  // Declared type of the value as a graph output, or nullptr.
  const ONNX_NAMESPACE::ValueInfoProto* Output(ValueId id) const;
  const ONNX_NAMESPACE::ValueInfoProto* Output(std::string_view value) const;
  // Declared type of the value in value_info, or nullptr.
  const ONNX_NAMESPACE::ValueInfoProto* ValueInfo(ValueId id) const;
  const ONNX_NAMESPACE::ValueInfoProto* ValueInfo(std::string_view value) const;
  // Nodes of this graph that read the value (as an input, or inside a subgraph), in
  // topological order, each once.
  absl::Span<const int> Consumers(ValueId id) const {
    const int32_t end = static_cast<size_t>(id) + 1 < values_.size()
                            ? values_[id + 1].consumers_begin
                            : static_cast<int32_t>(consumers_.size());
    return Slice(consumers_, values_[id].consumers_begin, end);
  }
  absl::Span<const int> Consumers(std::string_view value) const;

  // Subgraphs held by attributes of node `index` (If branches, Loop/Scan bodies).
  std::vector<const Graph*> Subgraphs(int index) const;
  // The subgraph held by attribute `attribute` of node `index`, or nullptr.
  const Graph* Subgraph(int index, std::string_view attribute) const;

  // Human-readable name of a node: its name, or "<OpType #index>" when unnamed.
  std::string NodeLabel(int index) const;

 private:
  friend class GraphBuilder;
  friend class Node;
  enum Flag : uint8_t {
    kDefined = 1,         // a node output, graph input or initializer of this graph
    kHasInitializer = 2,  // in initializers_ (nullptr there for a sparse initializer)
    kHasInput = 4,        // in inputs_
    kHasOutput = 8,       // in outputs_
    kHasValueInfo = 16,   // in value_infos_
  };
  // What a node holds besides its inputs and outputs. The strings live in the proto or in the
  // model's StringStore.
  // 32 bytes: a graph has hundreds of thousands.
  struct NodeRecord {
    const std::string* op_type;
    std::string_view name;
    int32_t attributes_begin;  // into attributes_, up to the next node's
    int32_t domain;            // into domains_
  };
  int32_t AttributesEnd(int node) const {
    return static_cast<size_t>(node) + 1 < nodes_.size() ? nodes_[node + 1].attributes_begin
                                                         : static_cast<int32_t>(attributes_.size());
  }
  // An attribute as the proto a graph holds (`parsed`), or as its serialized bytes.
  struct AttributeRecord {
    const std::string* name;
    std::string_view bytes;
    const ONNX_NAMESPACE::AttributeProto* parsed;
  };
  AttributeRef AttributeAt(int32_t k, ONNX_NAMESPACE::AttributeProto* scratch = nullptr) const;
  struct Value {
    std::string_view name;  // a view into the proto or the model's StringStore
    int32_t producer = -1;
    ValueId outer = kNoValue;
    int32_t consumers_begin = 0;  // into consumers_, which holds them in value order
    uint8_t flags = 0;
  };
  template <typename T>
  static absl::Span<const T> Slice(const std::vector<T>& v, int32_t begin, int32_t end) {
    return absl::Span<const T>(v.data() + begin, static_cast<size_t>(end - begin));
  }
  template <typename T>
  const T* Declared(const absl::flat_hash_map<ValueId, const T*>& map, ValueId id,
                    Flag flag) const {
    if (id == kNoValue || (values_[id].flags & flag) == 0) return nullptr;
    return map.find(id)->second;
  }

  const ONNX_NAMESPACE::GraphProto* proto_ = nullptr;
  const Graph* parent_ = nullptr;
  std::string path_;
  std::vector<int> order_;
  std::vector<NodeRecord> nodes_;
  std::vector<const std::string*> domains_;  // the few distinct domains of the nodes
  std::vector<AttributeRecord> attributes_;
  std::vector<Value> values_;
  // Finds a value's id by its name. The table holds ids only, hashed and compared through the
  // names in values_: a fifth of the memory of a table of names and ids, which was 7 to 10 % of
  // the heap peak on the decoders of docs/performance.md.
  struct IdByName {
    using is_transparent = void;
    const std::vector<Value>* values;
    size_t operator()(ValueId id) const { return NameHash{}((*values)[id].name); }
    size_t operator()(std::string_view name) const { return NameHash{}(name); }
    bool operator()(ValueId a, ValueId b) const { return a == b; }  // names are unique
    bool operator()(ValueId a, std::string_view b) const { return (*values)[a].name == b; }
    bool operator()(std::string_view a, ValueId b) const { return a == (*values)[b].name; }
  };
  absl::flat_hash_set<ValueId, IdByName, IdByName> ids_{0, IdByName{&values_}, IdByName{&values_}};
  // Inputs then outputs of each node: node i's inputs are node_io_[node_io_begin_[2i],
  // node_io_begin_[2i+1]), its outputs run to node_io_begin_[2i+2].
  std::vector<ValueId> node_io_;
  std::vector<int32_t> node_io_begin_;
  std::vector<int> consumers_;  // each value's consumers, contiguous
  // Declarations are few next to values: kept apart, behind the flags.
  absl::flat_hash_map<ValueId, const ONNX_NAMESPACE::TensorProto*> initializers_;
  absl::flat_hash_map<ValueId, const ONNX_NAMESPACE::ValueInfoProto*> inputs_;
  absl::flat_hash_map<ValueId, const ONNX_NAMESPACE::ValueInfoProto*> outputs_;
  absl::flat_hash_map<ValueId, const ONNX_NAMESPACE::ValueInfoProto*> value_infos_;
  struct NamedSubgraph {
    std::string attribute;
    std::unique_ptr<Graph> graph;
  };
  absl::flat_hash_map<int, std::vector<NamedSubgraph>> subgraphs_;
};

class Model {
 public:
  // Validates and indexes `proto`. `source` names the model in messages (usually its path).
  static absl::StatusOr<std::unique_ptr<Model>> FromProto(ONNX_NAMESPACE::ModelProto proto,
                                                          std::string source);
  // The same for a proto allocated on `arena`, which the Model then owns: the whole model is
  // freed at once instead of message by message (a large graph has millions of them).
  static absl::StatusOr<std::unique_ptr<Model>> FromArena(
      std::unique_ptr<google::protobuf::Arena> arena, ONNX_NAMESPACE::ModelProto* proto,
      std::string source);
  // The same for a proto whose main graph has no nodes, and the serialized NodeProtos of that
  // graph, in order (views into bytes that need to live only during the call). Attributes are
  // checked and kept serialized (those with subgraphs parsed onto `arena`); names are copied
  // once each. `nodes_read`, when given, is called as soon as nothing reads the bytes any more,
  // so that they can go before indexing allocates the rest.
  static absl::StatusOr<std::unique_ptr<Model>> FromArenaAndWireNodes(
      std::unique_ptr<google::protobuf::Arena> arena, ONNX_NAMESPACE::ModelProto* proto,
      const std::vector<std::string_view>& nodes, std::string source,
      std::function<void()> nodes_read = nullptr);
  ~Model();

  // The model's proto. For a binary model, its main graph has no nodes (see the top of this
  // file): use graph() for them, or CompleteProto() for a proto that has them.
  const ONNX_NAMESPACE::ModelProto& proto() const { return *proto_; }
  // A copy of the whole model, nodes included, with model-local functions inlined.
  ONNX_NAMESPACE::ModelProto CompleteProto() const;
  const Graph& graph() const { return *graph_; }
  const std::string& source() const { return source_; }
  // Opset version imported for `domain` ("" and "ai.onnx" are the same), or -1 if none.
  int64_t OpsetVersion(std::string_view domain) const;

 private:
  Model();
  static absl::StatusOr<std::unique_ptr<Model>> Index(
      std::unique_ptr<Model> model, const std::vector<std::string_view>* wire_nodes,
      std::function<void()> nodes_read);
  // Declared first, so destroyed last: the proto and the graphs may live on it.
  std::unique_ptr<google::protobuf::Arena> arena_;
  std::unique_ptr<StringStore> strings_;
  ONNX_NAMESPACE::ModelProto owned_proto_;  // unused when the proto lives on arena_
  ONNX_NAMESPACE::ModelProto* proto_ = nullptr;
  std::string source_;
  std::unique_ptr<Graph> graph_;
  absl::flat_hash_map<std::string, int64_t> opsets_;
};

}  // namespace shapelint::ir

#endif  // SHAPELINT_IR_MODEL_H_
