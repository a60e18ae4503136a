// Read-only, indexed views over an ONNX model.
//
// A Model owns its ModelProto and the strings its graphs need; Graphs, Nodes and their indexes
// point into them and stay valid as long as the Model lives. The nodes of a binary model's main
// graph are read straight from the wire format into compact records (a NodeProto costs about
// six times its serialized size, and nodes are nearly all of a graph): there, proto().graph()
// has no nodes, and nodes are reached through Graph::node() alone. Their attributes stay in
// serialized form, checked at load and parsed again each time one is asked for (an
// AttributeProto costs 300 bytes, a Constant's 700, and the engine reads each once), or read
// from their bytes by Node's typed reads; those that hold subgraphs are parsed once and kept.
// Everything else (the model's metadata, initializers, declared types, subgraphs) stays in
// protos, but the main graph's initializers stored as external data lose their external_data
// entries, which nothing here reads.
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
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"

namespace shapelint::ir {

// Dense index of a value within one graph: every name that the graph's nodes, inputs, outputs,
// initializers and value_info mention, including names read from an enclosing graph, gets one,
// in order of first mention. Indexing by id keeps name hashing out of the analysis's hot paths.
using ValueId = int32_t;
inline constexpr ValueId kNoValue = -1;

class Graph;
struct GraphStorage;
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

// What a typed read of an attribute (Node::IntAttribute and the others) found: the value, no
// attribute of that name, or one of another type. A valid model has none of another type where
// an op expects one, so callers that check models tell it from an absent one.
template <typename T>
class AttributeValue {
 public:
  using Type = ONNX_NAMESPACE::AttributeProto::AttributeType;

  // No attribute of that name.
  AttributeValue() = default;
  explicit AttributeValue(T value) : value_(std::move(value)), found_(true) {}
  // An attribute of `type`, which is not the type read.
  static AttributeValue OfOtherType(Type type) {
    AttributeValue other;
    other.found_ = true;
    other.other_type_ = type;
    return other;
  }

  bool has_value() const { return value_.has_value(); }
  explicit operator bool() const { return has_value(); }
  const T& operator*() const& { return *value_; }
  T&& operator*() && { return *std::move(value_); }
  const T* operator->() const { return &*value_; }
  T value_or(T fallback) const& { return value_.value_or(std::move(fallback)); }
  T value_or(T fallback) && { return std::move(value_).value_or(std::move(fallback)); }
  // The value, for a caller to whom an attribute of another type is as good as none.
  std::optional<T> ToOptional() const& { return value_; }
  std::optional<T> ToOptional() && { return std::move(value_); }

  // The node has no attribute of that name.
  bool absent() const { return !found_; }
  // It has one of another type, other_type(): UNDEFINED when the attribute sets none.
  bool has_other_type() const { return found_ && !value_.has_value(); }
  Type other_type() const { return other_type_; }

 private:
  std::optional<T> value_;
  bool found_ = false;
  Type other_type_ = ONNX_NAMESPACE::AttributeProto::UNDEFINED;
};

// A range over [begin, end) that yields what `Get(item)` gives for each item (ids as names),
// for range-for loops over a node's inputs and outputs.
template <typename Item, typename Get>
class MappedRange {
 public:
  class iterator {  // NOLINT(readability-identifier-naming): the standard name
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

  // The value of the node's metadata entry `key` (NodeProto.metadata_props, IR 10), for the
  // keys the linter reads: pkg.torch.onnx.stack_trace, .class_hierarchy and .name_scopes, where
  // torch.onnx records the PyTorch code a node came from. nullopt when the node has none.
  std::optional<std::string_view> Metadata(std::string_view key) const;

  // Typed reads of the node's first attribute named `name`, as protobuf's parser would give
  // it. Where the model keeps the attribute serialized, the plain types (INT, INTS, FLOAT,
  // STRING) and the type of any attribute are read from its bytes, without a message: most of
  // what reading a small op's attributes cost (docs/performance.md).
  AttributeValue<int64_t> IntAttribute(std::string_view name) const;
  AttributeValue<std::vector<int64_t>> IntsAttribute(std::string_view name) const;
  AttributeValue<float> FloatAttribute(std::string_view name) const;
  // A view into the model, valid as long as it.
  AttributeValue<std::string_view> StringAttribute(std::string_view name) const;
  // Parsed into a message of the call's own where the model keeps the attribute serialized.
  AttributeValue<std::vector<float>> FloatsAttribute(std::string_view name) const;

  // Where a read parses an attribute that the model keeps serialized: gives a message for one
  // of `serialized_size` bytes, which the read clears and parses into, and where what it
  // returns points. Called only for such an attribute, once it has the type read.
  using ParseInto = absl::FunctionRef<ONNX_NAMESPACE::AttributeProto*(size_t serialized_size)>;
  // The tensor of a TENSOR attribute: a pointer into the model (valid as long as it) when the
  // model holds the attribute parsed, else into the message that `parse_into` gave (valid while
  // it is, and until the next parse into it). Parsing again into one message reuses its
  // allocations, as with attribute(i, scratch).
  AttributeValue<const ONNX_NAMESPACE::TensorProto*> TensorAttribute(std::string_view name,
                                                                     ParseInto parse_into) const;
  // The same, parsed into `scratch` when needed.
  AttributeValue<const ONNX_NAMESPACE::TensorProto*> TensorAttribute(
      std::string_view name, ONNX_NAMESPACE::AttributeProto& scratch) const;

 private:
  const Graph* graph_;
  int index_;
};

// One graph of a model and its indexes, built with the model; nodes, subgraphs and the engine
// refer to it by address.
class Graph {
 public:
  ~Graph();
  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;

  // The graph's proto: declarations, initializers, inputs and outputs. Its nodes may be absent
  // (see the top of this file); read nodes with node().
  const ONNX_NAMESPACE::GraphProto& proto() const { return *proto_; }
  // The value of the graph's metadata entry `key` (GraphProto.metadata_props, IR 10), such as
  // torch.export's pkg.torch.export.ExportedProgram.range_constraints; nullopt when absent.
  std::optional<std::string_view> Metadata(std::string_view key) const;
  // The value of metadata entry `key` of `value`'s value_info (ValueInfoProto.metadata_props,
  // IR 10), such as the onnxscript optimizer's pkg.onnxscript.optimizer.folded_from on a
  // constant it folded; nullopt when absent. A view into the model.
  std::optional<std::string_view> ValueMetadata(std::string_view value, std::string_view key) const;
  // Where this graph sits: "main", or e.g. "main/If_3.then_branch" for a subgraph.
  const std::string& path() const { return path_; }
  const Graph* parent() const { return parent_; }

  int num_nodes() const { return hot_.num_nodes; }
  Node node(int index) const { return Node(*this, index); }
  // Node indices, each after the producers of its inputs (stable: file order where possible).
  const std::vector<int>& topological_order() const;

  int num_values() const;
  // The id of the value named `name`, or kNoValue when this graph never mentions it.
  ValueId FindValue(std::string_view name) const;
  std::string_view value_name(ValueId id) const;
  // Ids of node `index`'s inputs and outputs, in order; kNoValue where a name is empty (an
  // omitted optional input or output).
  absl::Span<const ValueId> InputIds(int index) const {
    return NodeIo(hot_.node_io_begin[2 * index], hot_.node_io_begin[2 * index + 1]);
  }
  absl::Span<const ValueId> OutputIds(int index) const {
    return NodeIo(hot_.node_io_begin[2 * index + 1], hot_.node_io_begin[2 * index + 2]);
  }
  // True when this graph provides the value: a node output, a graph input or an initializer.
  bool Defines(ValueId id) const;
  // For a value that this graph reads from an enclosing graph, its id in the parent graph;
  // kNoValue for the graph's own values.
  ValueId OuterId(ValueId id) const;

  // Index of the node in this graph that produces the value, or -1.
  int Producer(ValueId id) const;
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
  absl::Span<const int> Consumers(ValueId id) const;
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
  Graph(const ONNX_NAMESPACE::GraphProto& proto, const Graph* parent, std::string path);
  absl::Span<const ValueId> NodeIo(int32_t begin, int32_t end) const {
    return absl::Span<const ValueId>(hot_.node_io + begin, static_cast<size_t>(end - begin));
  }

  // Views of the tables that inference reads for every node, so that those reads stay inline:
  // out of line they cost half a percent of a run on the decoders of docs/performance.md. They
  // point into storage_, set once the tables are complete.
  struct HotTables {
    int num_nodes = 0;
    const ValueId* node_io = nullptr;        // storage_->node_io
    const int32_t* node_io_begin = nullptr;  // storage_->node_io_begin
  };

  const ONNX_NAMESPACE::GraphProto* proto_;
  const Graph* parent_;
  std::string path_;
  // The tables (lib/ir/graph_storage.h): their layout is lib/ir's own.
  std::unique_ptr<GraphStorage> storage_;
  HotTables hot_;
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
