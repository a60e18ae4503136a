// Helpers shared by the tensor, generator, indexing and reduction op families: dense index
// arithmetic over small tensors whose values are tracked, broadcasting of dims, and reading
// the constant inputs (integer or float) that size an op's output.
#ifndef SHAPELINT_LIB_INFER_TENSOR_UTIL_H_
#define SHAPELINT_LIB_INFER_TENSOR_UTIL_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/functional/function_ref.h"
#include "infer/op_context.h"
#include "shapelint/infer/constants.h"

namespace shapelint::infer {

// True when `e` is a known constant below `bound` (careful: std::optional orders nullopt first,
// so `e->AsConstant() < 0` is true for a symbol).
inline bool ConstantBelow(const sym::MaybeExpr& e, int64_t bound) {
  auto c = e ? e->AsConstant() : std::nullopt;
  return c.has_value() && *c < bound;
}

// True when both sides are constants for which `relation` is false: the op fails for certain
// (OpContext::Require says so too, but not inside subgraphs, where it records nothing).
inline bool FailsForCertain(Relation relation, const sym::MaybeExpr& lhs,
                            const sym::MaybeExpr& rhs) {
  auto l = lhs ? lhs->AsConstant() : std::nullopt;
  auto r = rhs ? rhs->AsConstant() : std::nullopt;
  return l && r && !Holds(relation, *l, *r);
}

// True when both shapes are known to the last dim and equal (the same expressions).
bool SameKnownShape(const TensorFact& a, const TensorFact& b);

// `dims` with every known-negative constant made unknown: a negative size means the op fails
// at run time, and no dim should claim a size it can never have.
Dims WithoutNegative(Dims dims);

// The dims when every one is a non-negative constant.
std::optional<std::vector<int64_t>> ConstDims(const Dims& dims);
std::optional<std::vector<int64_t>> ConstDims(const TensorFact& fact);

// The tracked values of `fact` together with its constant shape, when both are known and agree
// in element count: what every value computation over a whole tensor needs.
struct DenseValues {
  std::vector<int64_t> dims;
  const std::vector<Element>* values;
};
std::optional<DenseValues> Dense(const TensorFact& fact);

// Row-major strides of `dims`.
std::vector<int64_t> Strides(const std::vector<int64_t>& dims);
// Coordinates of the row-major position `flat` in a tensor of shape `dims`.
std::vector<int64_t> Unravel(int64_t flat, const std::vector<int64_t>& dims);
// Row-major position of `coords` in a tensor with `strides`.
int64_t Ravel(const std::vector<int64_t>& coords, const std::vector<int64_t>& strides);

// The element values of input `i` (each may be unknown), when its values are tracked.
std::optional<std::vector<sym::MaybeExpr>> ElementValues(const OpContext& ctx, size_t i);
// The single element of input `i` (a scalar or a one-element tensor), when tracked.
std::optional<Element> SingleElement(const OpContext& ctx, size_t i);
// True when input `i` is present but known to hold no elements: ONNX reads an empty tensor
// in an optional input slot as "not given" (Resize scales/sizes, Reduce axes).
bool KnownEmpty(const OpContext& ctx, size_t i);
// Number of elements of a 1-D input `i` when its length is a constant.
std::optional<int64_t> ConstLength(const OpContext& ctx, size_t i);
// Requires input `i`, a list of sizes (Expand's shape, Reshape's target, Tile's repeats), to be
// 1-D, as the op's definition does, when its rank is known (kOperandRank). False when it is
// known not to be: the op's output is then no shape at all.
bool RequireVector(OpContext& ctx, size_t i, std::string_view what);

// Constant values of a float (or integer) input `i`: integer values the engine tracks, or the
// data of an initializer or Constant node that produces it (float and double tensors).
std::optional<std::vector<double>> ConstFloats(const OpContext& ctx, size_t i);
// The dims when every one is a constant, and the tensor is small enough for its values to be
// tracked (at most kMaxTrackedElements elements).
std::optional<std::vector<int64_t>> StaticDims(const Dims& dims);
// StaticDims of a fact whose values are tracked and agree with them in number.
std::optional<std::vector<int64_t>> StaticDimsWithValues(const TensorFact& fact);
// The elements of a row-major tensor of `dims` at the cross product of `kept` (per axis, the
// indices kept, in order): what Slice and Gather with constant indices select.
std::vector<Element> GatherIndices(const std::vector<Element>& values,
                                   const std::vector<int64_t>& dims,
                                   const std::vector<std::vector<int64_t>>& kept);

// Normalises each axis against `rank`; nullopt when one is out of range or repeated.
std::optional<std::vector<int64_t>> NormalizeAxes(const std::vector<int64_t>& axes, int64_t rank);

// One operand's dim at a broadcast axis: the dim and, when it is a literal, its origin.
struct BroadcastOperand {
  sym::MaybeExpr dim;
  OriginId origin = kNoOrigin;
};
// Result dim of multidirectional (numpy) broadcasting at one output axis, recording that the
// operands must be compatible (`kind`, relation kBroadcastable). Unknown when an operand dim is
// unknown, since it may be 1 or not. `what` says what the requirement is; it is called only when
// there is one (most broadcasts meet equal dims or 1s, and the text would be thrown away).
sym::MaybeExpr BroadcastDim(OpContext& ctx, const std::vector<BroadcastOperand>& operands,
                            RequirementKind kind, absl::FunctionRef<std::string()> what,
                            int64_t axis);

// Index of the element of an operand with `shape` (right-aligned, dims of 1 broadcast) that
// feeds output element `flat` of a tensor with `out_shape`.
int64_t BroadcastSource(int64_t flat, const std::vector<int64_t>& out_shape,
                        const std::vector<int64_t>& shape);

// An origin for attribute `name` of the current node (created on first use by the caller).
OriginId AttributeOrigin(OpContext& ctx, std::string_view name);

// A computed element: constant results keep the first literal origin among `args`, as the
// elementwise family does, so that blame can follow them back.
Element Computed(const sym::MaybeExpr& value, const std::vector<const Element*>& args);

// The largest element `f` is known to have (ValueForms::largest), if any.
sym::MaybeExpr LargestOf(const TensorFact& f);
// The element of `f`'s tracked values that no other exceeds at any sizes, when one does and it
// cannot be negative: the largest index a table computed from sizes holds (DLRM's pairs
// i * F + j, where F was read from the shape and the rows i and columns j were folded at the
// example). nullopt when a value is unknown or no element dominates every other.
sym::MaybeExpr DominantNonNegative(const TensorFact& f);
// Records that no element of `f` exceeds `largest` (nothing when it is unknown).
void SetLargest(TensorFact& f, const sym::MaybeExpr& largest);
// Float quotients (ValueForms::numerators) of `x` cast to an integer type into `y`: a Cast
// truncates toward zero, which is floor where a numerator cannot be negative; unknown
// otherwise. Nothing when `x` holds none.
void TruncateQuotients(const TensorFact& x, TensorFact& y);

// max(len, 0), written as len where len cannot be negative.
sym::MaybeExpr NonNegative(const sym::MaybeExpr& len);

// Literal indices must address the axis they index: ONNX Runtime fails on one outside
// [-dim, dim - 1] (index 4 needs 5 rows, -2 needs 2). Only the extreme indices matter, so at
// most two requirements on `dim` (axis `axis` of the data), from the indices idx[first],
// idx[first + step], ... whose elements (and origins) are ctx.in(1)'s values; `op` names the
// op in the requirement ("Gather index 4 on axis 1"). Indices 0 and -1 ask nothing.
void RequireIndexExtremes(OpContext& ctx, const std::vector<int64_t>& idx, size_t first,
                          size_t step, const sym::MaybeExpr& dim, int64_t axis, const char* op);

}  // namespace shapelint::infer

#endif  // SHAPELINT_LIB_INFER_TENSOR_UTIL_H_
