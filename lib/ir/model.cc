#include "shapelint/ir/model.h"

#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "ir/graph_builder.h"
#include "ir/graph_storage.h"
#include "ir/inline_functions.h"
#include "ir/string_store.h"

namespace shapelint::ir {

using ONNX_NAMESPACE::GraphProto;

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
  if (wire_nodes == nullptr) {
    if (absl::Status inlined = InlineFunctions(*model->proto_); !inlined.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(model->source_, ": ", inlined.message()));
    }
  }
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
