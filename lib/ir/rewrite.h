// Rewriting a serialized model's main graph without parsing what the edit does not touch: the
// bytes of initializers (weights), of untouched nodes and of every other field are copied
// through as the file has them, so a fix never changes a weight's bytes and costs time in
// proportion to the graph's node list, not to the model's size.
#ifndef SHAPELINT_LIB_IR_REWRITE_H_
#define SHAPELINT_LIB_IR_REWRITE_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/statusor.h"

namespace shapelint::ir {

// A dim of a main-graph input declared anew.
struct DimEdit {
  std::string input;            // graph input name
  int axis = 0;                 // 0 <= axis < rank
  std::optional<int64_t> size;  // set: dim_value; else dim_param = `param`
  std::string param;
};

// Edits of the main graph, by node position in the file's node list (the main graph's node
// indices of a binary model: Model keeps the file's order).
struct ModelRewrite {
  // Serialized NodeProtos inserted before node `i` (i == node count appends), in order.
  std::map<int, std::vector<std::string>> insert_before;
  // Nodes left out (a rename of a removed node's input is dropped with it).
  absl::flat_hash_set<int> remove;
  // Inputs renamed: node -> (input slot, new value name).
  absl::flat_hash_map<int, std::vector<std::pair<int, std::string>>> rename_inputs;
  // Serialized TensorProtos appended to the graph's initializers.
  std::vector<std::string> add_initializers;
  std::vector<DimEdit> input_dims;
  // The same for graph outputs and value_info, by value name (`input` names the value): a
  // declaration that a fix makes follow the inputs. One that names no such value is ignored.
  std::vector<DimEdit> declared_dims;
  // Every dim whose dim_param is a key becomes that dim_value, in the main graph's inputs,
  // outputs and value_info; input_dims apply after it, so an explicit edit of a dim wins.
  absl::flat_hash_map<std::string, int64_t> param_sizes;
  // Initializers of the main graph left out, by name: those no node reads after the edit.
  absl::flat_hash_set<std::string> remove_initializers;
  // Prepended to the location of every main-graph initializer kept in external data: the path
  // from the directory the model is written to, to the directory it was read from (which must
  // hold the data files below it: a location may not leave the model's directory).
  std::string external_data_prefix;
  // Entries of the model's metadata_props set: one of the same key is replaced.
  std::vector<std::pair<std::string, std::string>> model_metadata;

  bool empty() const {
    return insert_before.empty() && remove.empty() && rename_inputs.empty() &&
           add_initializers.empty() && input_dims.empty() && declared_dims.empty() &&
           param_sizes.empty() && remove_initializers.empty() && external_data_prefix.empty() &&
           model_metadata.empty();
  }
};

// What a fix needs to know of a serialized model before editing it.
struct WireFacts {
  int num_nodes = 0;               // in the main graph
  bool has_external_data = false;  // an initializer of the main graph has data_location EXTERNAL
  bool has_functions = false;      // the model has local functions
};

// Facts of a serialized ModelProto; an error when the bytes are not one (no graph, broken wire).
absl::StatusOr<WireFacts> InspectModel(std::string_view model_bytes);

// The model with `edits` applied. Fields are copied in their order; the graph's new nodes go
// where insert_before says, its new initializers after the last one. Nothing else changes: with
// no edits the result is the input, byte for byte. Errors name the node or input an edit refers
// to when the model has none such (a node index past the end, an input slot a node lacks, a graph
// input without that axis). A model whose graph field is repeated (protobuf merges them) is
// refused.
absl::StatusOr<std::string> RewriteModel(std::string_view model_bytes, const ModelRewrite& edits);

}  // namespace shapelint::ir

#endif  // SHAPELINT_LIB_IR_REWRITE_H_
