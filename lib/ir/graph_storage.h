// How a Graph (include/shapelint/ir/model.h) stores what it indexes: flat tables by node,
// attribute and value id, laid out for graphs of hundreds of thousands of nodes. GraphBuilder
// fills them once; Graph and Node read them. Private to lib/ir, so that the layout can change
// without touching the public header or what includes it.
#ifndef SHAPELINT_LIB_IR_GRAPH_STORAGE_H_
#define SHAPELINT_LIB_IR_GRAPH_STORAGE_H_

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/types/span.h"
#include "shapelint/ir/model.h"
#include "shapelint/ir/name_hash.h"

namespace shapelint::ir {

struct GraphStorage {
  enum Flag : uint8_t {
    kDefined = 1,         // a node output, graph input or initializer of this graph
    kHasInitializer = 2,  // in initializers (nullptr there for a sparse initializer)
    kHasInput = 4,        // in inputs
    kHasOutput = 8,       // in outputs
    kHasValueInfo = 16,   // in value_infos
  };
  // What a node holds besides its inputs and outputs. The strings live in the proto or in the
  // model's StringStore.
  // 32 bytes: a graph has hundreds of thousands.
  struct NodeRecord {
    const std::string* op_type;
    std::string_view name;
    int32_t attributes_begin;  // into attributes, up to the next node's
    int32_t domain;            // into domains
  };
  // An attribute as the proto a graph holds (`parsed`), or as its serialized bytes.
  struct AttributeRecord {
    const std::string* name;
    std::string_view bytes;
    const ONNX_NAMESPACE::AttributeProto* parsed;
  };
  struct Value {
    std::string_view name;  // a view into the proto or the model's StringStore
    int32_t producer = -1;
    ValueId outer = kNoValue;
    int32_t consumers_begin = 0;  // into consumers, which holds them in value order
    uint8_t flags = 0;
  };
  // Finds a value's id by its name. The table holds ids only, hashed and compared through the
  // names in values: a fifth of the memory of a table of names and ids, which was 7 to 10 % of
  // the heap peak on the decoders of docs/performance.md.
  struct IdByName {
    using is_transparent = void;  // NOLINT(readability-identifier-naming): absl's name
    const std::vector<Value>* values;
    size_t operator()(ValueId id) const { return NameHash{}((*values)[id].name); }
    size_t operator()(std::string_view name) const { return NameHash{}(name); }
    bool operator()(ValueId a, ValueId b) const { return a == b; }  // names are unique
    bool operator()(ValueId a, std::string_view b) const { return (*values)[a].name == b; }
    bool operator()(std::string_view a, ValueId b) const { return a == (*values)[b].name; }
  };
  struct NamedSubgraph {
    std::string attribute;
    std::unique_ptr<Graph> graph;
  };

  GraphStorage() = default;
  // The name index refers to `values` by address.
  GraphStorage(const GraphStorage&) = delete;
  GraphStorage& operator=(const GraphStorage&) = delete;

  int32_t AttributesBegin(int node) const { return nodes[node].attributes_begin; }
  int32_t AttributesEnd(int node) const {
    return static_cast<size_t>(node) + 1 < nodes.size() ? nodes[node + 1].attributes_begin
                                                        : static_cast<int32_t>(attributes.size());
  }
  absl::Span<const ValueId> InputIds(int node) const {
    return Slice(node_io, node_io_begin[2 * node], node_io_begin[2 * node + 1]);
  }
  absl::Span<const ValueId> OutputIds(int node) const {
    return Slice(node_io, node_io_begin[2 * node + 1], node_io_begin[2 * node + 2]);
  }
  absl::Span<const int> Consumers(ValueId id) const {
    const int32_t end = static_cast<size_t>(id) + 1 < values.size()
                            ? values[id + 1].consumers_begin
                            : static_cast<int32_t>(consumers.size());
    return Slice(consumers, values[id].consumers_begin, end);
  }
  // The declaration of value `id` in `map`, which the value's `flag` says it has; nullptr when
  // it has none.
  template <typename T>
  const T* Declared(const absl::flat_hash_map<ValueId, const T*>& map, ValueId id,
                    Flag flag) const {
    if (id == kNoValue || (values[id].flags & flag) == 0) return nullptr;
    return map.find(id)->second;
  }
  template <typename T>
  static absl::Span<const T> Slice(const std::vector<T>& v, int32_t begin, int32_t end) {
    return absl::Span<const T>(v.data() + begin, static_cast<size_t>(end - begin));
  }

  std::vector<int> order;  // the topological order
  std::vector<NodeRecord> nodes;
  std::vector<const std::string*> domains;  // the few distinct domains of the nodes
  std::vector<AttributeRecord> attributes;
  std::vector<Value> values;
  absl::flat_hash_set<ValueId, IdByName, IdByName> ids{0, IdByName{&values}, IdByName{&values}};
  // Inputs then outputs of each node: node i's inputs are node_io[node_io_begin[2i],
  // node_io_begin[2i+1]), its outputs run to node_io_begin[2i+2].
  std::vector<ValueId> node_io;
  std::vector<int32_t> node_io_begin;
  std::vector<int> consumers;  // each value's consumers, contiguous
  // Declarations are few next to values: kept apart, behind the flags.
  absl::flat_hash_map<ValueId, const ONNX_NAMESPACE::TensorProto*> initializers;
  absl::flat_hash_map<ValueId, const ONNX_NAMESPACE::ValueInfoProto*> inputs;
  absl::flat_hash_map<ValueId, const ONNX_NAMESPACE::ValueInfoProto*> outputs;
  absl::flat_hash_map<ValueId, const ONNX_NAMESPACE::ValueInfoProto*> value_infos;
  absl::flat_hash_map<int, std::vector<NamedSubgraph>> subgraphs;
  // The metadata entries the linter reads (ir/metadata.h), of the nodes that have any; views
  // into the proto or the model's StringStore.
  absl::flat_hash_map<int, std::vector<std::pair<std::string_view, std::string_view>>>
      node_metadata;
  std::vector<std::pair<std::string_view, std::string_view>> graph_metadata;
};

}  // namespace shapelint::ir

#endif  // SHAPELINT_LIB_IR_GRAPH_STORAGE_H_
