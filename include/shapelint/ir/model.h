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

namespace shapelint::ir {

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

  // Index of the node in this graph that produces `value`, or -1.
  int Producer(std::string_view value) const;
  // Initializer of this graph named `value`, or nullptr.
  const ONNX_NAMESPACE::TensorProto* Initializer(std::string_view value) const;
  // Graph input named `value`, or nullptr. Inputs that only give an initializer's type count.
  const ONNX_NAMESPACE::ValueInfoProto* Input(std::string_view value) const;
  // Declared type of `value` as a graph output, or nullptr.
  const ONNX_NAMESPACE::ValueInfoProto* Output(std::string_view value) const;
  // Declared type of `value` in value_info, or nullptr.
  const ONNX_NAMESPACE::ValueInfoProto* ValueInfo(std::string_view value) const;
  // Nodes of this graph that read `value`, in topological order.
  const std::vector<int>& Consumers(std::string_view value) const;

  // Subgraphs held by attributes of node `index` (If branches, Loop/Scan bodies).
  std::vector<const Graph*> Subgraphs(int index) const;
  // The subgraph held by attribute `attribute` of node `index`, or nullptr.
  const Graph* Subgraph(int index, std::string_view attribute) const;

  // Human-readable name of a node: its name, or "<OpType #index>" when unnamed.
  std::string NodeLabel(int index) const;

 private:
  friend class GraphBuilder;
  const ONNX_NAMESPACE::GraphProto* proto_ = nullptr;
  const Graph* parent_ = nullptr;
  std::string path_;
  std::vector<int> order_;
  absl::flat_hash_map<std::string_view, int> producer_;
  absl::flat_hash_map<std::string_view, const ONNX_NAMESPACE::TensorProto*> initializer_;
  absl::flat_hash_map<std::string_view, const ONNX_NAMESPACE::ValueInfoProto*> input_;
  absl::flat_hash_map<std::string_view, const ONNX_NAMESPACE::ValueInfoProto*> output_;
  absl::flat_hash_map<std::string_view, const ONNX_NAMESPACE::ValueInfoProto*> value_info_;
  absl::flat_hash_map<std::string_view, std::vector<int>> consumers_;
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
