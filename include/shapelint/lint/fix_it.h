// A fix-it: the graph edit a rule proposes for its finding, as clang-tidy's checks attach one to
// a diagnostic. Plain data over the main graph's node indices and value names; lint::Fix (see
// shapelint/lint/fix.h) applies the fix-its of a run together, writes the model and proves it.
#ifndef SHAPELINT_LINT_FIX_IT_H_
#define SHAPELINT_LINT_FIX_IT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace shapelint::lint {

// Ruff's split: a safe fix keeps what the graph computes at the sizes where it works (the same
// output shapes, the same values up to rounding) and only changes what happens elsewhere; an
// unsafe one may change outputs there too, and is applied only when asked for.
enum class Applicability { kSafe, kUnsafe };

// A node the fix adds to the main graph.
struct FixNode {
  std::string op_type;
  std::string name;
  std::vector<std::string> inputs;  // "" for an omitted optional input
  std::vector<std::string> outputs;
  std::vector<std::pair<std::string, int64_t>> ints;                    // INT attributes
  std::vector<std::pair<std::string, std::vector<int64_t>>> int_lists;  // INTS attributes
};

// A constant the fix adds: an int64 tensor (a shape, an axis, indices), or a tensor of another
// element type given as raw bytes (the rows of a table it rebuilds).
struct FixConstant {
  std::string name;
  std::vector<int64_t> dims;  // empty: a scalar
  std::vector<int64_t> values;
  int32_t data_type = 7;  // ONNX's TensorProto.DataType; 7 is INT64, which `values` holds
  std::string raw_data;   // for other types: little-endian, as TensorProto.raw_data
};

// Input `input` of node `node` reads `value` instead.
struct FixRewire {
  int node = -1;
  int input = -1;
  std::string value;
};

// A graph input's dim declared anew: a size (the declaration a weight already fixes) or a
// dim_param (an axis the user asked to be dynamic).
struct FixDeclaration {
  std::string input;
  int axis = -1;
  std::optional<int64_t> size;  // set: dim_value; else dim_param = symbol
  std::string symbol;
};

struct FixIt {
  Applicability applicability = Applicability::kSafe;
  // Unsafe only because the finding is a hypothesis (the literal may be the module's own
  // number): a run that shows eager PyTorch computing another value at other sizes makes it
  // safe (lint/run_records.h).
  bool unsafe_as_hypothesis = false;
  std::string description;  // what the edit does, one sentence
  // The added nodes, in an order that runs, go before node `anchor` of the main graph (where
  // its inputs are all defined); -1 when the fix adds none.
  int anchor = -1;
  std::vector<FixConstant> constants;
  std::vector<FixNode> nodes;
  std::vector<FixRewire> rewires;
  // Nodes the fix replaces (their outputs now come from `nodes`) or leaves unread: removed,
  // the latter only when nothing reads them after the edit.
  std::vector<int> replaced;
  std::vector<int> unread;
  std::vector<FixDeclaration> declarations;
  // Every dim_param of this name in the main graph's inputs, outputs and value_info becomes
  // this size (with `declarations`, the declaration a weight fixes).
  std::vector<std::pair<std::string, int64_t>> symbol_sizes;
  // Sizes at which what the fix replaces is right, where the witness does not say (a literal
  // batch no requirement pins): the proof compares outputs there.
  std::vector<std::pair<std::string, int64_t>> holds_at;
  // Declared dims of outputs and value_info (value, axis) that pinned the same size as what the
  // fix replaces (the exporter declared the batch its folded tensor had): they follow the
  // fixed graph, even though the original graph computed them otherwise.
  std::vector<std::pair<std::string, int>> stale_declarations;
  // The same repair of the same bake at other nodes, applied with this one: a view traced once
  // per layer holds the same literals in every layer, while blame reports the first.
  std::vector<FixIt> siblings;
};

}  // namespace shapelint::lint

#endif  // SHAPELINT_LINT_FIX_IT_H_
