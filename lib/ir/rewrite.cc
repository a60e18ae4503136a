#include "ir/rewrite.h"

#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "ir/metadata.h"
#include "ir/wire.h"
#include "ir/wire_fields.h"
#include "shapelint/ir/load.h"

namespace shapelint::ir {
namespace {

using wire::kEntryKey;
using wire::kEntryValue;
using wire::kExternal;
using wire::kGraphInitializer;
using wire::kGraphInput;
using wire::kGraphNode;
using wire::kGraphOutput;
using wire::kGraphValueInfo;
using wire::kModelFunctions;
using wire::kModelGraph;
using wire::kModelMetadata;
using wire::kNodeInput;
using wire::kTensorDataLocation;
using wire::kTensorExternalData;
using wire::kTensorName;
using wire::kValueInfoName;

using ONNX_NAMESPACE::TensorShapeProto;
using ONNX_NAMESPACE::TypeProto;
using ONNX_NAMESPACE::ValueInfoProto;
using ParamSizes = absl::flat_hash_map<std::string, int64_t>;

// Debian's Abseil has its own absl::string_view, which StrCat takes and std::string_view does
// not convert to: views are passed as strings.
absl::Status Broken(std::string_view what) {
  return absl::InvalidArgumentError(
      absl::StrCat("not a serialized ONNX model: ", std::string(what)));
}

// A field of `field_number` holding `content`, as protobuf writes one.
void AppendMessageField(uint64_t field_number, std::string_view content, std::string& out) {
  wire::AppendVarint(field_number << 3 | wire::kLengthDelimited, out);
  wire::AppendVarint(content.size(), out);
  out.append(content);
}

// A field's bytes, its tag included, in the message `reader` reads.
std::string_view FieldBytes(std::string_view message, const wire::Field& f,
                            const wire::FieldReader& reader) {
  return message.substr(f.begin, reader.position() - f.begin);
}

// Where the main graph sits in a ModelProto. Fields of ONNX's numbers but another wire type are
// not what they seem: protobuf's parser keeps them as unknown fields, and so do we.
struct ModelLayout {
  size_t graph_begin = 0;  // offset of the graph field's tag
  size_t graph_end = 0;    // offset past the graph field
  std::string_view graph;  // the GraphProto
  bool has_functions = false;
};

absl::StatusOr<ModelLayout> ReadModelLayout(std::string_view model) {
  wire::FieldReader fields(model);
  wire::Field f;
  ModelLayout layout;
  bool found = false;
  while (fields.Next(f)) {
    if (f.wire_type != wire::kLengthDelimited) continue;
    if (f.number == kModelFunctions) layout.has_functions = true;
    if (f.number != kModelGraph) continue;
    // Protobuf merges repeated graph fields into one graph, whose node indices span them all.
    if (found) return absl::InvalidArgumentError("the model has several graph fields");
    found = true;
    layout.graph_begin = f.begin;
    layout.graph_end = fields.position();
    layout.graph = f.content;
  }
  if (fields.broken()) return Broken("the model's fields are broken");
  if (!found) return Broken("the model has no graph");
  return layout;
}

// Whether a serialized TensorProto is stored as external data; nullopt when it is broken. Its
// payload is stepped over, never read.
std::optional<bool> IsExternal(std::string_view tensor) {
  wire::FieldReader fields(tensor);
  wire::Field f;
  bool external = false;
  while (fields.Next(f)) {
    if (f.number == kTensorDataLocation && f.wire_type == wire::kVarint) {
      external = f.varint == kExternal;  // the last one counts, as when parsing
    }
  }
  if (fields.broken()) return std::nullopt;
  return external;
}

// The key and value of a serialized StringStringEntryProto (empty when absent).
MetadataEntry EntryOf(std::string_view entry) {
  MetadataEntry e;
  ReadStringEntry(entry, e);  // a broken entry keeps what was read: it is copied or replaced
  return e;
}

std::string EntryBytes(std::string_view key, std::string_view value) {
  std::string out;
  AppendMessageField(kEntryKey, key, out);
  AppendMessageField(kEntryValue, value, out);
  return out;
}

// A serialized TensorProto's name; the payload is stepped over.
std::string_view TensorName(std::string_view tensor) {
  wire::FieldReader fields(tensor);
  wire::Field f;
  std::string_view name;
  while (fields.Next(f)) {
    if (f.number == kTensorName && f.wire_type == wire::kLengthDelimited) name = f.content;
  }
  return name;
}

// The TensorProto with `prefix` before its external-data location; nullopt when it has none.
// Every other field, the payload included, is copied byte for byte.
std::optional<std::string> Relocated(std::string_view tensor, std::string_view prefix) {
  std::string out;
  out.reserve(tensor.size() + prefix.size());
  wire::FieldReader fields(tensor);
  wire::Field f;
  bool moved = false;
  while (fields.Next(f)) {
    if (f.number == kTensorExternalData && f.wire_type == wire::kLengthDelimited) {
      const auto [key, value] = EntryOf(f.content);
      if (key == "location") {
        AppendMessageField(kTensorExternalData,
                           EntryBytes(key, absl::StrCat(std::string(prefix), std::string(value))),
                           out);
        moved = true;
        continue;
      }
    }
    out.append(FieldBytes(tensor, f, fields));
  }
  if (!moved) return std::nullopt;
  return out;
}

// What the rewrite needs to know of the graph before writing it.
struct GraphLayout {
  int num_nodes = 0;
  size_t last_node_end = 0;         // offset past the last node field; 0 when none
  size_t last_initializer_end = 0;  // offset past the last initializer field; 0 when none
  bool has_external_data = false;
};

absl::StatusOr<GraphLayout> ReadGraphLayout(std::string_view graph) {
  wire::FieldReader fields(graph);
  wire::Field f;
  GraphLayout layout;
  while (fields.Next(f)) {
    if (f.wire_type != wire::kLengthDelimited) continue;
    if (f.number == kGraphNode) {
      ++layout.num_nodes;
      layout.last_node_end = fields.position();
    } else if (f.number == kGraphInitializer) {
      layout.last_initializer_end = fields.position();
      const std::optional<bool> external = IsExternal(f.content);
      if (!external) return Broken("an initializer of the graph is broken");
      layout.has_external_data = layout.has_external_data || *external;
    }
  }
  if (fields.broken()) return Broken("the graph's fields are broken");
  return layout;
}

// The edits' node indices against the graph's node count; input slots are checked per node.
absl::Status CheckNodeIndices(const ModelRewrite& edits, int num_nodes) {
  const auto bad = [num_nodes](std::string_view what, int index) {
    return absl::InvalidArgumentError(
        absl::StrCat(std::string(what), " node ", index, ": the graph has ", num_nodes, " nodes"));
  };
  for (const auto& [index, nodes] : edits.insert_before) {
    if (index < 0 || index > num_nodes) return bad("cannot insert before", index);
  }
  for (int index : edits.remove) {
    if (index < 0 || index >= num_nodes) return bad("cannot remove", index);
  }
  for (const auto& [index, renames] : edits.rename_inputs) {
    if (index < 0 || index >= num_nodes) return bad("cannot rename an input of", index);
  }
  return absl::OkStatus();
}

// A serialized NodeProto with some inputs renamed; its other fields are copied byte for byte.
absl::StatusOr<std::string> RenameInputs(std::string_view node, int index,
                                         const std::vector<std::pair<int, std::string>>& renames) {
  absl::flat_hash_map<int, std::string_view> by_slot;  // a later rename of a slot wins
  int last_slot = -1;
  for (const auto& [slot, name] : renames) {
    if (slot < 0) {
      return absl::InvalidArgumentError(absl::StrCat("node ", index, " has no input ", slot));
    }
    by_slot[slot] = name;
    last_slot = std::max(last_slot, slot);
  }
  std::string out;
  out.reserve(node.size());
  wire::FieldReader fields(node);
  wire::Field f;
  int slot = 0;
  while (fields.Next(f)) {
    if (f.number == kNodeInput && f.wire_type == wire::kLengthDelimited) {
      const auto it = by_slot.find(slot++);
      if (it != by_slot.end()) {
        AppendMessageField(kNodeInput, it->second, out);
        continue;
      }
    }
    out.append(FieldBytes(node, f, fields));
  }
  if (fields.broken()) return Broken(absl::StrCat("node ", index, " is broken"));
  if (last_slot >= slot) {
    return absl::InvalidArgumentError(
        absl::StrCat("node ", index, " has ", slot, " inputs, no input ", last_slot));
  }
  return out;
}

bool ApplyParamSizes(TypeProto& type, const ParamSizes& sizes);

// Every dim of `shape` whose dim_param is a key of `sizes` becomes its dim_value.
bool ApplyParamSizes(TensorShapeProto& shape, const ParamSizes& sizes) {
  bool changed = false;
  for (TensorShapeProto::Dimension& dim : *shape.mutable_dim()) {
    if (!dim.has_dim_param()) continue;
    const auto it = sizes.find(dim.dim_param());
    if (it == sizes.end()) continue;
    dim.set_dim_value(it->second);
    changed = true;
  }
  return changed;
}

// Same in every shape a type holds, the elements' of sequences, optionals and maps included.
bool ApplyParamSizes(TypeProto& type, const ParamSizes& sizes) {
  switch (type.value_case()) {
    case TypeProto::kTensorType:
      return type.tensor_type().has_shape() &&
             ApplyParamSizes(*type.mutable_tensor_type()->mutable_shape(), sizes);
    case TypeProto::kSparseTensorType:
      return type.sparse_tensor_type().has_shape() &&
             ApplyParamSizes(*type.mutable_sparse_tensor_type()->mutable_shape(), sizes);
    case TypeProto::kSequenceType:
      return type.sequence_type().has_elem_type() &&
             ApplyParamSizes(*type.mutable_sequence_type()->mutable_elem_type(), sizes);
    case TypeProto::kOptionalType:
      return type.optional_type().has_elem_type() &&
             ApplyParamSizes(*type.mutable_optional_type()->mutable_elem_type(), sizes);
    case TypeProto::kMapType:
      return type.map_type().has_value_type() &&
             ApplyParamSizes(*type.mutable_map_type()->mutable_value_type(), sizes);
    default:
      return false;
  }
}

// Sets one dim of a graph input; false when it already was so.
absl::StatusOr<bool> ApplyDimEdit(ValueInfoProto& info, const DimEdit& edit) {
  const bool has_shape = info.type().has_tensor_type() && info.type().tensor_type().has_shape();
  const int rank = has_shape ? info.type().tensor_type().shape().dim_size() : 0;
  if (edit.axis < 0 || edit.axis >= rank) {
    return absl::InvalidArgumentError(
        has_shape ? absl::StrCat("graph input '", edit.input, "' has rank ", rank, ", no axis ",
                                 edit.axis)
                  : absl::StrCat("graph input '", edit.input, "' declares no tensor shape"));
  }
  TensorShapeProto::Dimension& dim =
      *info.mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim(edit.axis);
  if (edit.size) {
    if (dim.has_dim_value() && dim.dim_value() == *edit.size) return false;
    dim.set_dim_value(*edit.size);  // the oneof clears dim_param
  } else {
    if (dim.has_dim_param() && dim.dim_param() == edit.param) return false;
    dim.set_dim_param(edit.param);
  }
  return true;
}

// The name of a serialized ValueInfoProto; the last one counts, as when parsing.
std::string_view ValueInfoName(std::string_view info) {
  wire::FieldReader fields(info);
  wire::Field f;
  std::string_view name;
  while (fields.Next(f)) {
    if (f.number == kValueInfoName && f.wire_type == wire::kLengthDelimited) name = f.content;
  }
  return name;  // a broken message fails when it is parsed
}

// Writes the rebuilt content of the main graph, field by field.
class GraphWriter {
 public:
  GraphWriter(std::string_view graph, const GraphLayout& layout, const ModelRewrite& edits)
      : graph_(graph), layout_(layout), edits_(edits), dim_edit_used_(edits.input_dims.size()) {}

  absl::StatusOr<std::string> Write() {
    out_.reserve(graph_.size());
    wire::FieldReader fields(graph_);
    wire::Field f;
    while (fields.Next(f)) {
      const absl::Status status = WriteField(f, FieldBytes(graph_, f, fields));
      if (!status.ok()) return status;
      if (fields.position() == layout_.last_node_end) WriteInserted(layout_.num_nodes);
      if (fields.position() == layout_.last_initializer_end) WriteInitializers();
    }
    if (layout_.num_nodes == 0) WriteInserted(0);
    if (layout_.last_initializer_end == 0) WriteInitializers();
    for (size_t i = 0; i < dim_edit_used_.size(); ++i) {
      if (dim_edit_used_[i]) continue;
      return absl::InvalidArgumentError(
          absl::StrCat("the graph has no input named '", edits_.input_dims[i].input, "'"));
    }
    return std::move(out_);
  }

 private:
  absl::Status WriteField(const wire::Field& f, std::string_view bytes) {
    if (f.wire_type == wire::kLengthDelimited) {
      if (f.number == kGraphNode) return WriteNode(f.content, bytes);
      if (f.number == kGraphInitializer) return WriteInitializer(f.content, bytes);
      if (f.number == kGraphInput || f.number == kGraphOutput || f.number == kGraphValueInfo) {
        return WriteValueInfo(f, bytes);
      }
    }
    out_.append(bytes);
    return absl::OkStatus();
  }

  absl::Status WriteInitializer(std::string_view tensor, std::string_view bytes) {
    if (!edits_.remove_initializers.empty() &&
        edits_.remove_initializers.contains(std::string(TensorName(tensor)))) {
      return absl::OkStatus();
    }
    if (!edits_.external_data_prefix.empty()) {
      if (std::optional<std::string> moved = Relocated(tensor, edits_.external_data_prefix)) {
        AppendMessageField(kGraphInitializer, *moved, out_);
        return absl::OkStatus();
      }
    }
    out_.append(bytes);
    return absl::OkStatus();
  }

  absl::Status WriteNode(std::string_view node, std::string_view bytes) {
    const int index = node_++;
    WriteInserted(index);
    if (edits_.remove.contains(index)) return absl::OkStatus();  // its renames go with it
    const auto renames = edits_.rename_inputs.find(index);
    if (renames == edits_.rename_inputs.end()) {
      out_.append(bytes);
      return absl::OkStatus();
    }
    absl::StatusOr<std::string> renamed = RenameInputs(node, index, renames->second);
    if (!renamed.ok()) return renamed.status();
    AppendMessageField(kGraphNode, *renamed, out_);
    return absl::OkStatus();
  }

  // Parses a value's declaration only when an edit may change it, and writes it anew only when
  // one did.
  absl::Status WriteValueInfo(const wire::Field& f, std::string_view bytes) {
    const std::vector<const DimEdit*> dim_edits = DimEditsOf(f);
    if (dim_edits.empty() && edits_.param_sizes.empty()) {
      out_.append(bytes);
      return absl::OkStatus();
    }
    ValueInfoProto info;
    if (!info.ParseFromArray(f.content.data(), static_cast<int>(f.content.size()))) {
      return Broken("a value declaration of the graph is broken");
    }
    bool changed = info.has_type() && ApplyParamSizes(*info.mutable_type(), edits_.param_sizes);
    for (const DimEdit* edit : dim_edits) {  // after param_sizes: an explicit edit wins
      absl::StatusOr<bool> set = ApplyDimEdit(info, *edit);
      if (!set.ok()) return set.status();
      changed = changed || *set;
    }
    if (changed) {
      AppendMessageField(f.number, info.SerializeAsString(), out_);
    } else {
      out_.append(bytes);
    }
    return absl::OkStatus();
  }

  // The dim edits that apply to field `f`: input_dims for an input (marked as used),
  // declared_dims for an output or value_info.
  std::vector<const DimEdit*> DimEditsOf(const wire::Field& f) {
    std::vector<const DimEdit*> found;
    const bool input = f.number == kGraphInput;
    const std::vector<DimEdit>& edits = input ? edits_.input_dims : edits_.declared_dims;
    if (edits.empty()) return found;
    const std::string_view name = ValueInfoName(f.content);
    for (size_t i = 0; i < edits.size(); ++i) {
      if (edits[i].input != name) continue;
      found.push_back(&edits[i]);
      if (input) dim_edit_used_[i] = true;
    }
    return found;
  }

  void WriteInserted(int index) {
    const auto it = edits_.insert_before.find(index);
    if (it == edits_.insert_before.end()) return;
    for (const std::string& node : it->second) AppendMessageField(kGraphNode, node, out_);
  }

  void WriteInitializers() {
    for (const std::string& tensor : edits_.add_initializers) {
      AppendMessageField(kGraphInitializer, tensor, out_);
    }
  }

  std::string_view graph_;
  const GraphLayout& layout_;
  const ModelRewrite& edits_;
  std::vector<bool> dim_edit_used_;
  std::string out_;
  int node_ = 0;
};

}  // namespace

absl::StatusOr<WireFacts> InspectModel(std::string_view model_bytes) {
  absl::StatusOr<ModelLayout> model = ReadModelLayout(model_bytes);
  if (!model.ok()) return model.status();
  absl::StatusOr<GraphLayout> graph = ReadGraphLayout(model->graph);
  if (!graph.ok()) return graph.status();
  WireFacts facts;
  facts.num_nodes = graph->num_nodes;
  facts.has_external_data = graph->has_external_data;
  facts.has_functions = model->has_functions;
  return facts;
}

absl::StatusOr<std::string> RewriteModel(std::string_view model_bytes, const ModelRewrite& edits) {
  absl::StatusOr<ModelLayout> model = ReadModelLayout(model_bytes);
  if (!model.ok()) return model.status();
  absl::StatusOr<GraphLayout> layout = ReadGraphLayout(model->graph);
  if (!layout.ok()) return layout.status();
  const absl::Status indices = CheckNodeIndices(edits, layout->num_nodes);
  if (!indices.ok()) return indices;
  absl::StatusOr<std::string> graph = GraphWriter(model->graph, *layout, edits).Write();
  if (!graph.ok()) return graph.status();
  // An unchanged graph keeps its tag and length as written, which need not be the shortest.
  if (*graph == model->graph && edits.model_metadata.empty()) return std::string(model_bytes);

  std::string out;
  out.reserve(model_bytes.size() - model->graph.size() + graph->size() + 16);
  if (edits.model_metadata.empty()) {
    out.append(model_bytes.substr(0, model->graph_begin));
    AppendMessageField(kModelGraph, *graph, out);
    out.append(model_bytes.substr(model->graph_end));
    return out;
  }
  // The model's fields in their order, the graph rewritten and the entries set replaced; the
  // new entries last.
  wire::FieldReader fields(model_bytes);
  wire::Field f;
  while (fields.Next(f)) {
    if (f.begin == model->graph_begin) {
      AppendMessageField(kModelGraph, *graph, out);
      continue;
    }
    if (f.number == kModelMetadata && f.wire_type == wire::kLengthDelimited) {
      const std::string_view key = EntryOf(f.content).first;
      const bool replaced = std::any_of(edits.model_metadata.begin(), edits.model_metadata.end(),
                                        [&](const auto& e) { return e.first == key; });
      if (replaced) continue;
    }
    out.append(FieldBytes(model_bytes, f, fields));
  }
  for (const auto& [key, value] : edits.model_metadata) {
    AppendMessageField(kModelMetadata, EntryBytes(key, value), out);
  }
  return out;
}

absl::StatusOr<std::string> SetModelMetadata(std::string_view model_bytes, const std::string& key,
                                             const std::string& value) {
  ModelRewrite rewrite;
  rewrite.model_metadata.emplace_back(key, value);
  return RewriteModel(model_bytes, rewrite);
}

}  // namespace shapelint::ir
