#include "lint/declared_dims.h"

#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace shapelint::lint {
namespace {

using ONNX_NAMESPACE::TensorShapeProto;
using ONNX_NAMESPACE::ValueInfoProto;

TensorShapeProto* ShapeOf(ValueInfoProto& value) {
  if (!value.type().has_tensor_type() || !value.type().tensor_type().has_shape()) return nullptr;
  return value.mutable_type()->mutable_tensor_type()->mutable_shape();
}

// Replaces the dims named `name` with `size`; returns how many it replaced.
int FixNamed(TensorShapeProto* shape, const std::string& name, int64_t size) {
  if (shape == nullptr) return 0;
  int fixed = 0;
  for (auto& dim : *shape->mutable_dim()) {
    if (dim.has_dim_param() && dim.dim_param() == name) {
      dim.set_dim_value(size);  // clears dim_param: they are one field (a oneof)
      ++fixed;
    }
  }
  return fixed;
}

// Leaves each static dim of the graph's value_info unknown. The exporter wrote them by
// inference from the inputs as they were declared; once an input dim declared static is meant
// to vary, they hold its example size and every size computed from it, and checking the graph
// against them would report the exporter's bookkeeping as bakes (a convolution's output
// "declared" at the example height). Graph outputs stay: they are the model's interface.
void ForgetStaticValueInfo(ONNX_NAMESPACE::GraphProto& graph) {
  for (auto& info : *graph.mutable_value_info()) {
    TensorShapeProto* shape = ShapeOf(info);
    if (shape == nullptr) continue;
    for (auto& dim : *shape->mutable_dim()) {
      if (dim.has_dim_value()) dim.Clear();
    }
  }
}

}  // namespace

absl::StatusOr<std::unique_ptr<ir::Model>> WithDeclaredDims(
    const ir::Model& model, const std::vector<DynamicAxis>& dynamic,
    const std::vector<std::pair<std::string, int64_t>>& static_dims) {
  ONNX_NAMESPACE::ModelProto proto = model.CompleteProto();
  auto* graph = proto.mutable_graph();
  std::set<std::string> initializers;
  for (const auto& t : graph->initializer()) initializers.insert(t.name());
  bool relaxed_a_static_dim = false;
  for (const DynamicAxis& d : dynamic) {
    ValueInfoProto* input = nullptr;
    std::vector<std::string> names;
    for (auto& in : *graph->mutable_input()) {
      if (initializers.count(in.name()) > 0) continue;
      names.push_back(in.name());
      if (in.name() == d.input) input = &in;
    }
    if (input == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat("dynamic axis: the model has no input '", d.input,
                       "' (its inputs: ", absl::StrJoin(names, ", "), ")"));
    }
    TensorShapeProto* shape = ShapeOf(*input);
    const int64_t rank = shape == nullptr ? 0 : shape->dim_size();
    const int64_t axis = d.axis < 0 ? d.axis + rank : d.axis;
    if (shape == nullptr || axis < 0 || axis >= rank) {
      return absl::InvalidArgumentError(absl::StrCat(
          "dynamic axis: input '", d.input, "' has no axis ", d.axis, " (rank ", rank, ")"));
    }
    auto* dim = shape->mutable_dim(static_cast<int>(axis));
    relaxed_a_static_dim |= dim->has_dim_value();
    if (d.name.empty()) {
      dim->Clear();  // an unnamed dim: the engine gives it a symbol of its own
    } else {
      dim->set_dim_param(d.name);
    }
  }
  if (relaxed_a_static_dim) ForgetStaticValueInfo(*graph);
  for (const auto& [name, size] : static_dims) {
    if (size < 0) return absl::InvalidArgumentError(absl::StrCat("static dim: ", name, " < 0"));
    int in_inputs = 0;
    for (auto& in : *graph->mutable_input()) in_inputs += FixNamed(ShapeOf(in), name, size);
    if (in_inputs == 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("static dim: no input dim of the model is named '", name, "'"));
    }
    for (auto& out : *graph->mutable_output()) FixNamed(ShapeOf(out), name, size);
    for (auto& info : *graph->mutable_value_info()) FixNamed(ShapeOf(info), name, size);
  }
  return ir::Model::FromProto(std::move(proto), model.source());
}

}  // namespace shapelint::lint
