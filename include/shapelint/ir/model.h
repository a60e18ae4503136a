// Read-only, indexed views over an ONNX ModelProto.
//
// A Model owns its ModelProto; Graphs and their indexes point into it and stay valid as long as
// the Model lives. Building a Model validates what every later stage relies on: each node input
// is provided by a node, a graph input, an initializer or an enclosing graph; each value has one
// producer; and the nodes can be put in topological order. A violation is an error that names
// the value and the node.
#ifndef SHAPELINT_IR_MODEL_H_
#define SHAPELINT_IR_MODEL_H_

#include <google/protobuf/arena.h>
#include <onnx/onnx_pb.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"

namespace shapelint::ir {

// Dense index of a value within one graph: every name that the graph's nodes, inputs, outputs,
// initializers and value_info mention, including names read from an enclosing graph, gets one,
// in order of first mention. Indexing by id keeps name hashing out of the analysis's hot paths.
using ValueId = int32_t;
inline constexpr ValueId kNoValue = -1;

class Graph {
 public:
  const ONNX_NAMESPACE::GraphProto& proto() const { return *proto_; }
  // Where this graph sits: "main", or e.g. "main/If_3.then_branch" for a subgraph.
  const std::string& path() const { return path_; }
  const Graph* parent() const { return parent_; }

  int num_nodes() const { return proto_->node_size(); }
  const ONNX_NAMESPACE::NodeProto& node(int index) const { return proto_->node(index); }
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
    return Slice(consumers_, values_[id].consumers_begin, values_[id].consumers_end);
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
  enum Flag : uint8_t {
    kDefined = 1,         // a node output, graph input or initializer of this graph
    kHasInitializer = 2,  // in initializers_ (nullptr there for a sparse initializer)
    kHasInput = 4,        // in inputs_
    kHasOutput = 8,       // in outputs_
    kHasValueInfo = 16,   // in value_infos_
  };
  struct Value {
    std::string_view name;  // a view into the proto
    int32_t producer = -1;
    ValueId outer = kNoValue;
    int32_t consumers_begin = 0;
    int32_t consumers_end = 0;
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
  std::vector<Value> values_;
  absl::flat_hash_map<std::string_view, ValueId> ids_;
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

  const ONNX_NAMESPACE::ModelProto& proto() const { return *proto_; }
  const Graph& graph() const { return *graph_; }
  const std::string& source() const { return source_; }
  // Opset version imported for `domain` ("" and "ai.onnx" are the same), or -1 if none.
  int64_t OpsetVersion(std::string_view domain) const;

 private:
  Model() = default;
  static absl::StatusOr<std::unique_ptr<Model>> Index(std::unique_ptr<Model> model);
  // Declared first, so destroyed last: the proto and the graphs may live on it.
  std::unique_ptr<google::protobuf::Arena> arena_;
  ONNX_NAMESPACE::ModelProto owned_proto_;  // unused when the proto lives on arena_
  ONNX_NAMESPACE::ModelProto* proto_ = nullptr;
  std::string source_;
  std::unique_ptr<Graph> graph_;
  absl::flat_hash_map<std::string, int64_t> opsets_;
};

}  // namespace shapelint::ir

#endif  // SHAPELINT_IR_MODEL_H_
