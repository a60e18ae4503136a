// Building a Graph: its tables (lib/ir/graph_storage.h), filled from a GraphProto or from a
// binary model's wire nodes, and the checks of include/shapelint/ir/model.h that every later
// stage relies on. Each value name is hashed once per mention here; everything after works on
// ids.
#ifndef SHAPELINT_LIB_IR_GRAPH_BUILDER_H_
#define SHAPELINT_LIB_IR_GRAPH_BUILDER_H_

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
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "ir/graph_storage.h"
#include "shapelint/ir/model.h"

namespace shapelint::ir {

// Builds one Graph (and, recursively, its subgraphs) and checks its references.
class GraphBuilder {
 public:
  // `source` names the model in messages; `depth` is the graph's subgraph nesting (0 for main).
  GraphBuilder(const std::string& source, int depth) : source_(source), depth_(depth) {}

  // Called once the wire nodes have been read.
  void set_nodes_read(std::function<void()> f) { nodes_read_ = std::move(f); }

  // Nodes come from `proto` unless `wire_nodes` is given: then they are read from those bytes,
  // their names copied to `strings` and their attributes parsed onto `arena`.
  absl::StatusOr<std::unique_ptr<Graph>> Build(
      const ONNX_NAMESPACE::GraphProto& proto, const Graph* parent, std::string path,
      const std::vector<std::string_view>* wire_nodes = nullptr, StringStore* strings = nullptr,
      google::protobuf::Arena* arena = nullptr);

 private:
  // What each node depends on, its own inputs and the outer values its subgraphs read: node i's
  // are ids[begin[i], begin[i + 1]).
  struct Reads {
    std::vector<ValueId> ids;
    std::vector<int32_t> begin;
  };
  // The nodes that read each node's outputs, as one flat list per producer: node p's are
  // users[begin[p], begin[p + 1]). `pending` counts each node's reads that a node produces.
  struct Users {
    std::vector<int32_t> begin;
    std::vector<int> users;
    std::vector<int> pending;
  };

  // The steps of Build, in order.
  void Reserve(const ONNX_NAMESPACE::GraphProto& proto, int num_nodes);
  void DeclareValues(const ONNX_NAMESPACE::GraphProto& proto);
  absl::Status AddWireNodes(const std::vector<std::string_view>& wire_nodes,
                            google::protobuf::Arena* arena);
  absl::Status AddProtoNodes(const ONNX_NAMESPACE::GraphProto& proto);
  absl::Status CollectReads(Reads& reads);
  absl::Status ResolveReads(const ONNX_NAMESPACE::GraphProto& proto, const Reads& reads);
  absl::StatusOr<std::vector<int>> TopologicalOrder(const Reads& reads) const;
  void IndexConsumers(const Reads& reads);
  void ReleaseSlack();

  // Helpers of the steps.
  absl::Status AddWireAttribute(std::string_view bytes, google::protobuf::Arena* arena,
                                ONNX_NAMESPACE::AttributeProto& scratch);
  absl::Status AddSubgraphs(int node, Reads& reads);
  absl::StatusOr<Users> IndexUsers(const Reads& reads) const;
  absl::Status CycleError(const Reads& reads, const std::vector<int>& pending) const;
  ValueId Intern(std::string_view name);
  int32_t DomainIndex(const std::string* domain);
  std::string_view KeepNodeName(int i, std::string_view name);
  absl::Status AddNodeIo(int i, const std::vector<std::string_view>& inputs,
                         const std::vector<std::string_view>& outputs);
  template <typename T>
  void Declare(absl::flat_hash_map<ValueId, const T*>& map, ValueId id, const T* declaration,
               GraphStorage::Flag flag);
  template <typename MessageFn>
  absl::Status Resolve(ValueId id, const MessageFn& message);
  std::string Describe(int index) const;
  absl::Status Error(const std::string& message) const;

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

}  // namespace shapelint::ir

#endif  // SHAPELINT_LIB_IR_GRAPH_BUILDER_H_
