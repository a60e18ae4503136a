// Building a rule's fix-it (shapelint/lint/fix_it.h): new values with names the model does not
// use, int64 constants, nodes, and sizes computed from the graph's own shapes, so that a rule's
// file holds only what its repair means.
#ifndef SHAPELINT_LIB_LINT_FIX_BUILDER_H_
#define SHAPELINT_LIB_LINT_FIX_BUILDER_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "lint/analysis.h"
#include "shapelint/lint/fix_it.h"
#include "shapelint/sym/expr.h"

namespace shapelint::lint {

class FixBuilder {
 public:
  // A fix-it whose added nodes go before node `anchor` of the main graph.
  FixBuilder(const Analysis& analysis, int anchor, Applicability applicability,
             std::string description);

  const Analysis& analysis() const { return analysis_; }
  // The opset the main graph imports for the default domain: ops are built for it.
  int64_t opset() const { return opset_; }

  // A value name the model does not use, from `hint` ("shape", "starts").
  std::string NewValue(std::string_view hint);
  // An int64 initializer holding `values`: 1-D, or a scalar when `scalar`.
  std::string Ints(const std::vector<int64_t>& values, bool scalar = false);
  // A constant of element type `data_type` and `dims` holding `raw_data` (TensorProto's
  // little-endian raw_data).
  std::string Tensor(int32_t data_type, std::vector<int64_t> dims, std::string raw_data);

  struct Attributes {
    std::vector<std::pair<std::string, int64_t>> ints;
    std::vector<std::pair<std::string, std::vector<int64_t>>> int_lists;
  };
  // Adds a node of `op_type` reading `inputs`, with one output: a new value named after
  // `hint`, or `output` when given (a node the fix replaces keeps its output's name).
  std::string Add(std::string_view op_type, std::vector<std::string> inputs,
                  Attributes attributes = {}, std::string_view hint = "",
                  std::string_view output = "");

  // Dim `axis` of `value` as a 1-D int64 of one element (Shape, with start and end from opset
  // 15, else Gather of it). Built once per value and axis.
  std::string DimOf(std::string_view value, int64_t axis);
  // The 1-D int64 of one element that computes `e` at every size from the graph inputs' dims
  // that hold its symbols; nullopt when a symbol is not a graph input's dim or `e` uses
  // min/max (the graph then has no plain way to say it).
  std::optional<std::string> Compute(const sym::Expr& e);
  // A 1-D int64 (a scalar when `scalar` and there is one entry) of `entries` in order: literals
  // and 1-D values of one element; runs of literals become one constant.
  using Entry = std::variant<int64_t, std::string>;
  std::string Vector(const std::vector<Entry>& entries, bool scalar = false);
  // Dims `first`..`last` (inclusive) of `value` multiplied, as a 1-D int64 of one element.
  std::string ProductOfDims(std::string_view value, int64_t first, int64_t last);

  void Rewire(int node, int input, std::string value);
  // `node`'s outputs now come from the added nodes.
  void Replace(int node);
  // `node` is removed when nothing reads it after the edit (the literal a rewire bypassed).
  void DropIfUnread(int node);
  // The same for each node that computes `value` (a literal and the ops that turned it into an
  // operand), consumers first, so that each is unread once those after it are gone.
  void DropComputationIfUnread(std::string_view value);
  void Declare(FixDeclaration declaration);
  void SetSymbolSize(std::string symbol, int64_t size);
  // Declares the input symbol `symbol` as `size`: every dim_param of that name in the main
  // graph's inputs, outputs and value_info, or the input axes that hold it without a name.
  void DeclareSymbol(const std::string& symbol, int64_t size);

  FixIt Take() &&;

 private:
  std::string Symbol(std::string_view symbol);

  const Analysis& analysis_;
  int64_t opset_;
  FixIt fix_;
  absl::flat_hash_set<std::string> names_;              // given out by this builder
  absl::flat_hash_map<std::string, std::string> dims_;  // "value#axis" -> its 1-D dim
  int counter_ = 0;
};

// A fix of declarations alone: each symbol declared as its size (FixBuilder::DeclareSymbol).
FixIt DeclarationFix(const Analysis& analysis, Applicability applicability,
                     const std::vector<std::pair<std::string, int64_t>>& sizes,
                     std::string description);

}  // namespace shapelint::lint

#endif  // SHAPELINT_LIB_LINT_FIX_BUILDER_H_
