#include "shapelint/ir/model.h"

#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "ir/graph_builder.h"
#include "ir/graph_storage.h"
#include "ir/inline_functions.h"
#include "ir/string_store.h"
#include "ir/wire_nodes.h"

namespace shapelint::ir {
namespace {

using ONNX_NAMESPACE::AttributeProto;
using ONNX_NAMESPACE::GraphProto;

// Attribute `k` of the graph: the proto it holds, or its bytes parsed into `*scratch` (cleared
// first) or, without one, into a message of the returned handle's own.
AttributeRef AttributeAt(const GraphStorage& storage, int32_t k, AttributeProto* scratch) {
  const GraphStorage::AttributeRecord& a = storage.attributes[k];
  if (a.parsed != nullptr) return AttributeRef(a.parsed);
  if (scratch != nullptr) {
    scratch->Clear();
    // The bytes passed the check at load, which refuses what protobuf refuses: this cannot fail.
    if (!ParseWireAttribute(a.bytes, *scratch)) return AttributeRef();
    return AttributeRef(static_cast<const AttributeProto*>(scratch));
  }
  auto parsed = std::make_unique<AttributeProto>();
  // As above: this cannot fail.
  if (!ParseWireAttribute(a.bytes, *parsed)) return AttributeRef();
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
