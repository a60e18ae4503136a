// The view an op's inference function gets of one node: input facts, attributes, output facts
// to fill, and a way to record requirements. Op functions are pure apart from this context.
#ifndef SHAPELINT_LIB_INFER_OP_CONTEXT_H_
#define SHAPELINT_LIB_INFER_OP_CONTEXT_H_

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/types/span.h"
#include "shapelint/infer/engine.h"
#include "shapelint/infer/facts.h"
#include "shapelint/ir/model.h"

namespace shapelint::infer {

using Dims = std::vector<sym::MaybeExpr>;

// The messages the attributes an op reads are parsed into, reused from node to node: a message
// parsed again keeps its allocations, so reading a node's attributes allocates and frees nothing
// once the first nodes have been read (each new message cost as much as its parse to build and
// free; docs/performance.md). A stack: each OpContext takes messages above those of the contexts
// still alive around it (a control-flow op infers its subgraphs inside its own context) and
// gives them back when it ends.
class AttributeScratch {
 public:
  // A message for an attribute of `serialized_size` bytes.
  ONNX_NAMESPACE::AttributeProto* Take(size_t serialized_size);
  size_t used() const { return used_; }
  // Gives back every message above `used`; one that took a large attribute (a long list) is
  // freed rather than kept at that size.
  void GiveBack(size_t used);

 private:
  struct Message {
    std::unique_ptr<ONNX_NAMESPACE::AttributeProto> proto;
    bool large = false;
  };
  std::vector<Message> messages_;
  size_t used_ = 0;
};

class OpContext {
 public:
  // The facts of the node's inputs, null where an input is omitted. Inline: most nodes have a
  // few, and the engine builds one list per node.
  using Inputs = absl::InlinedVector<const TensorFact*, 4>;

  // `scratch`, when given, is where attributes are parsed; it must outlive the context.
  OpContext(const ir::Graph& graph, int node, int64_t opset, Inference& inference, Inputs inputs,
            absl::Span<TensorFact> outputs, AttributeScratch* scratch = nullptr)
      : graph_(graph),
        node_index_(node),
        opset_(opset),
        inference_(inference),
        inputs_(std::move(inputs)),
        outputs_(outputs),
        scratch_(scratch),
        scratch_used_(scratch != nullptr ? scratch->used() : 0) {}
  ~OpContext() {
    if (scratch_ != nullptr) scratch_->GiveBack(scratch_used_);
  }
  OpContext(const OpContext&) = delete;
  OpContext& operator=(const OpContext&) = delete;

  ir::Node node() const { return graph_.node(node_index_); }
  int node_index() const { return node_index_; }
  const ir::Graph& graph() const { return graph_; }
  // Opset version of the node's domain.
  int64_t opset() const { return opset_; }

  size_t num_inputs() const { return inputs_.size(); }
  // True when input `i` is present (not omitted and not an empty name).
  bool has_input(size_t i) const { return i < inputs_.size() && inputs_[i] != nullptr; }
  // The fact for input `i`; an unknown fact when absent.
  const TensorFact& in(size_t i) const;
  size_t num_outputs() const { return outputs_.size(); }
  // The fact of output i; an output the node does not have (a malformed node with fewer
  // outputs than its op defines) gets a scratch fact that nobody reads.
  TensorFact& out(size_t i) {
    if (i < outputs_.size()) return outputs_[i];
    discarded_ = TensorFact{};
    return discarded_;
  }

  // The node's attribute `k` (in the node's order) and its first attribute named `name`; null
  // when it has none. Valid as long as the context.
  const ONNX_NAMESPACE::AttributeProto* AttrAt(int k) const;
  const ONNX_NAMESPACE::AttributeProto* Attr(std::string_view name) const;
  // The first attribute named `name` as one type, read with ir::Node's typed reads; nullopt
  // (null) when it is absent or of another type. AttrTensor's tensor is valid as long as the
  // context, parsed into a scratch message when the model keeps it serialized.
  std::optional<int64_t> AttrInt(std::string_view name) const;
  int64_t AttrInt(std::string_view name, int64_t fallback) const;
  std::optional<std::vector<int64_t>> AttrInts(std::string_view name) const;
  std::optional<std::string> AttrString(std::string_view name) const;
  std::optional<float> AttrFloat(std::string_view name) const;
  const ONNX_NAMESPACE::TensorProto* AttrTensor(std::string_view name) const;
  // Set when a typed accessor above found the attribute with another type (a string where an
  // int belongs): the model is invalid, and the engine then treats the node's outputs as
  // unknown rather than trust a fallback. Says which attribute, as a note's text.
  const std::string& bad_attribute() const { return bad_attribute_; }

  // Constant integer values of input `i`, when every element is a known constant.
  std::optional<std::vector<int64_t>> ConstInts(size_t i) const;

  // A new symbol for a size only known at run time (NonZero's count, TopK's k from data),
  // named after the node and `what` so that what follows still propagates symbolically.
  sym::Expr FreshSymbol(std::string_view what);

  OriginId AddOrigin(Origin origin);
  const Origin* origin(OriginId id) const { return inference_.OriginOf(id); }
  // Records a requirement unless it trivially holds. Returns false if it is already known
  // to fail (both sides constant and the relation false).
  bool Require(RequirementKind kind, Relation relation, const sym::MaybeExpr& lhs,
               const sym::MaybeExpr& rhs, std::string what, OriginId origin = kNoOrigin,
               int64_t axis = -1);

  // Inside a subgraph whose execution depends on data (a branch of an If whose condition is
  // not known, a Loop body), requirements are not recorded: they may never have to hold. An
  // operand's rank (kOperandRank) is: ONNX Runtime checks it when it loads the model.
  void set_record_requirements(bool record) { record_requirements_ = record; }

  // Notes that the op's output stays unknown for `reason` (at most one note per op type).
  void Unsupported(std::string_view reason);
  // Notes something wrong with this node's own data (a Constant without a value).
  void Note(std::string message);

 private:
  const ir::Graph& graph_;
  int node_index_;
  int64_t opset_;
  Inference& inference_;
  Inputs inputs_;
  absl::Span<TensorFact> outputs_;
  bool record_requirements_ = true;
  mutable std::string bad_attribute_;
  AttributeScratch* scratch_;
  size_t scratch_used_;
  // Attributes parsed for this op: what Attr() returns points into them.
  mutable absl::InlinedVector<ir::AttributeRef, 4> held_;
  TensorFact discarded_;

  // The value of a typed read of attribute `name` (ir::Node's), noting in bad_attribute_ an
  // attribute of another type than `expected`.
  template <typename T>
  std::optional<T> Checked(ir::AttributeValue<T> read, std::string_view name,
                           ONNX_NAMESPACE::AttributeProto::AttributeType expected) const;
};

// Runs inference over a subgraph in the scope of the node that holds it: the engine
// implements it; control-flow ops call it.
class SubgraphRunner {
 public:
  virtual ~SubgraphRunner() = default;
  // Facts of `body`'s outputs, given facts for its inputs (in order). Requirements inside
  // are recorded only if `record_requirements` and the enclosing scope records them.
  virtual std::vector<TensorFact> RunSubgraph(const OpContext& ctx, const ir::Graph& body,
                                              std::vector<TensorFact> inputs,
                                              bool record_requirements) = 0;
};
using ControlFlowFn = void (*)(OpContext& ctx, SubgraphRunner& runner);
// The function for If, Loop and Scan; nullptr for other ops.
ControlFlowFn FindControlFlow(std::string_view op_type);

using OpInferFn = void (*)(OpContext& ctx);

// The inference function for a default-domain op, or nullptr when the op is not modelled.
OpInferFn FindOp(std::string_view op_type);
// The same for any domain: the default domain ("" or "ai.onnx") and com.microsoft.
OpInferFn FindOp(std::string_view domain, std::string_view op_type);

// Helpers shared by the op families.
bool IsIntegerType(int32_t elem_type);
// Product of dims; unknown if any is unknown.
sym::MaybeExpr Product(const Dims& dims, size_t begin = 0, size_t end = SIZE_MAX);
// Normalises a possibly negative axis against `rank`; nullopt when out of range.
std::optional<int64_t> NormalizeAxis(int64_t axis, int64_t rank);
// Element count when every dim is a constant.
std::optional<int64_t> ConstantElementCount(const Dims& dims);
// Reads a TensorProto's values if small enough and integers, or floats that all hold whole
// numbers (sizes computed in floating point); `origin` is attached to each.
std::optional<std::vector<Element>> ReadSmallValues(const ONNX_NAMESPACE::TensorProto& tensor,
                                                    OriginId origin);
// Fact for a TensorProto (dtype, dims, and the values ReadSmallValues reads).
TensorFact FactFromTensor(const ONNX_NAMESPACE::TensorProto& tensor, OriginId origin);
// Why the tensor cannot be what it says, if it cannot: a negative dim, or raw data whose length
// is not the element count times the element size. Payloads left out (external data, weights
// skimmed at load) are not checked.
std::optional<std::string> TensorDefect(const ONNX_NAMESPACE::TensorProto& tensor);

}  // namespace shapelint::infer

#endif  // SHAPELINT_LIB_INFER_OP_CONTEXT_H_
