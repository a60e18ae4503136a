// What the engine knows about each value, and what each op requires to run.
#ifndef SHAPELINT_INFER_FACTS_H_
#define SHAPELINT_INFER_FACTS_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "shapelint/sym/expr.h"

namespace shapelint::ir {
class Graph;
}

namespace shapelint::infer {

// Where a literal number entered the graph. Blame follows these back to the cause.
struct Origin {
  enum class Kind {
    kInitializer,   // an initializer; `name` is its name
    kConstantNode,  // the value attribute of a Constant node
    kAttribute,     // an attribute of `node`; `name` is the attribute
    kShapeOf,       // a static dim read by a Shape node: derived, not a literal
  };
  Kind kind;
  const ir::Graph* graph = nullptr;
  int node = -1;  // the Constant, Shape or attributed node; -1 for initializers
  std::string name;

  bool IsLiteral() const { return kind != Kind::kShapeOf; }
};
using OriginId = int32_t;
inline constexpr OriginId kNoOrigin = -1;

// One element of a small integer tensor whose value the engine tracks.
struct Element {
  sym::MaybeExpr value;
  OriginId origin = kNoOrigin;  // set when the value is a constant that came from a literal
};

// What is known of a tensor's values besides `TensorFact::values`; rare, so kept behind a
// pointer that most facts leave empty.
struct ValueForms {
  // No element exceeds this (a Range's last value, arange(seq) -> seq - 1) where the values
  // themselves are not tracked: what indexing with them needs of the dim it addresses.
  sym::MaybeExpr largest;
  // Floats that sizes are computed in and that need not be integers: element i is
  // numerators[i] / divisor, divisor > 1 (math.ceil(h / 2) exported as Cast, Div, Ceil). The
  // tensor's `values` are then unknown, so that only the ops that round these (Floor, Ceil, a
  // Cast to an integer) read them.
  std::vector<sym::MaybeExpr> numerators;
  int64_t divisor = 1;
};

struct SequenceFact;

// A graph has a fact per value: keep it small (rare parts go behind pointers).
struct TensorFact {
  int32_t elem_type = 0;  // ONNX TensorProto.DataType; 0 = unknown
  // The rank is unknown because the alternatives of an If disagree on it (torch's
  // squeeze(dim) on a dynamic dim): a declared shape, which picks one of them, is not adopted.
  bool ambiguous_rank = false;
  std::optional<std::vector<sym::MaybeExpr>> shape;  // nullopt: unknown rank
  std::optional<std::vector<Element>> values;        // row-major; small integer tensors only
  std::shared_ptr<const ValueForms> forms;           // rare: see ValueForms
  // Set for a sequence (ONNX `seq(tensor)`) whose length is known; a sequence of unknown
  // length is an unknown fact. Shared and never changed: facts are copied often, sequences
  // are rare.
  std::shared_ptr<const SequenceFact> sequence;

  bool has_rank() const { return shape.has_value(); }
  int64_t rank() const { return shape ? static_cast<int64_t>(shape->size()) : -1; }
};

// A sequence of chunks of one size cut along a dynamic axis (SplitToSequence with a scalar
// `split`: torch.split(x, 2, dim=1)): every chunk `size` long but the last, which holds what is
// left. `element` is a chunk's fact with that axis unknown.
struct SequenceChunks {
  int64_t axis = 0;
  int64_t size = 1;
  sym::Expr total;  // the axis' length before the cut
  std::shared_ptr<const TensorFact> element;
};

// The elements of a sequence: one fact per element, in order, when the length is a constant;
// when it is symbolic (a split along a dynamic axis), every element is alike and `elements`
// holds that one fact, or the elements are chunks (`chunks`) and `elements` is empty.
struct SequenceFact {
  std::vector<TensorFact> elements;
  sym::Expr length;
  std::optional<SequenceChunks> chunks;
};

// Integer tensors with more elements than this keep their shape but not their values.
inline constexpr int64_t kMaxTrackedElements = 256;

enum class Relation {
  kEqual,          // lhs == rhs
  kBroadcastable,  // lhs == rhs, or either is 1
  kDivisible,      // lhs mod rhs == 0
  kAtLeast,        // lhs >= rhs (an index or a count must fit in the dim)
};

enum class RequirementKind {
  kBroadcast,      // elementwise operands, multidirectional broadcasting
  kReshapeCount,   // Reshape keeps the element count
  kInnerDim,       // MatMul / Gemm contraction dims
  kChannels,       // Conv input channels == weight channels * group
  kConcatDim,      // two operands agree on a dim: Concat's off the concat axis, a cache
                   // update's against the cache, a scatter's updates against its indices
  kSqueezeOne,     // Squeeze removes a dim of size 1
  kDeclaredShape,  // a graph output or value_info declares this dim
  kSplitSum,       // Split sizes add up to the split axis (or divide it equally)
  kIndexBound,     // a literal index or count fits in the dim it addresses (Gather, TopK)
  kWindow,         // a kernel window fits in the padded input (Conv: once; pooling: an empty
                   // output is allowed, a negative one is not)
  kExportRange,    // a range the exporter recorded for an input symbol (no node's; lint/)
  kOperandRank,    // an operand has the rank the op's definition requires (Expand's shape is
                   // 1-D): checked when the model loads, in every branch, whichever runs
};

// Something that must hold for the graph to run (or to keep its declared shapes).
struct Requirement {
  RequirementKind kind;
  Relation relation;
  const ir::Graph* graph = nullptr;
  int node = -1;                // the node that imposes it; for kDeclaredShape, the producer or -1
  std::string value;            // the value it is about (declared shapes: the declared value)
  int64_t axis = -1;            // the axis of `value`, when it is about one dim
  sym::Expr lhs;                // what the graph computes
  sym::Expr rhs;                // what it must equal (or divide by)
  OriginId origin = kNoOrigin;  // literal source of rhs, if known
  // kDeclaredShape: a graph output's declaration (the model's interface), not a value_info's
  // (the writing tool's inference, a hint).
  bool interface = false;
  std::string what;  // e.g. "inner dimension of MatMul: input 0 axis 1 vs input 1 axis 0"
};

// ONNX's name of an element type ("float", "int64", ...), "?" when unknown.
std::string ElementTypeName(int32_t elem_type);
// "float[batch, 3, floor((height - 3) / 2) + 1]": "?" for an unknown dim, "[...]" for an
// unknown rank; each dim cut to `max_chars` (expressions can print far longer than they are).
std::string ShapeText(const TensorFact& fact, size_t max_chars);
// "{batch, 3, -1}" for a tracked integer tensor; empty when its values are not tracked.
std::string ValuesText(const TensorFact& fact, size_t max_chars);

// True when an op demands that one operand's axis (`axis`) equal a size without broadcasting
// (an RNN's initial state against the batch): a 1 there is a size like any other.
inline bool IsOperandEquality(const Requirement& r) {
  return r.kind == RequirementKind::kBroadcast && r.relation == Relation::kEqual;
}

// Whether `relation` holds for these concrete numbers.
bool Holds(Relation relation, int64_t lhs, int64_t rhs);

// Where a graph-input dim came from.
struct InputDim {
  std::string input;
  int64_t axis;
  sym::MaybeExpr dim;      // constant, or expression over symbols
  bool declared_symbolic;  // dim_param present (or dim left empty), i.e. declared dynamic
};

}  // namespace shapelint::infer

#endif  // SHAPELINT_INFER_FACTS_H_
