// Small helpers shared by the neural-network op families (conv_variants.cc, rnn_ops.cc,
// attention_ops.cc, signal_ops.cc, microsoft_ops.cc, ...). Header-only so that each family
// stays one source file.
#ifndef SHAPELINT_LIB_INFER_NN_UTIL_H_
#define SHAPELINT_LIB_INFER_NN_UTIL_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "infer/op_context.h"
#include "infer/tensor_util.h"

namespace shapelint::infer::nn {

using sym::Expr;
using sym::MaybeExpr;

inline std::optional<int64_t> ConstOf(const MaybeExpr& e) {
  return e ? e->AsConstant() : std::nullopt;
}

inline MaybeExpr C(int64_t v) { return Expr::Constant(v); }

// Dim `axis` of a fact, unknown when the rank is unknown or too small.
inline MaybeExpr DimOf(const TensorFact& f, int64_t axis) {
  if (!f.shape || axis < 0 || axis >= f.rank()) return std::nullopt;
  return (*f.shape)[axis];
}

// The value of input `i` when it holds exactly one element (a scalar or a one-element
// tensor), possibly symbolic (a size read with Shape); unknown otherwise.
inline MaybeExpr ScalarInput(const OpContext& ctx, size_t i) {
  auto e = SingleElement(ctx, i);
  return e ? e->value : std::nullopt;
}

// Number of elements of a 1-D input: from its tracked values, else from a constant shape.
inline std::optional<int64_t> VectorLength(const OpContext& ctx, size_t i) {
  if (auto values = ElementValues(ctx, i)) return static_cast<int64_t>(values->size());
  return ConstLength(ctx, i);
}

// A shape of `rank` unknown dims.
inline Dims UnknownDims(int64_t rank) { return Dims(static_cast<size_t>(rank), std::nullopt); }

// [d0, ..., d(axis-1), 1, ..., 1]: the statistics shape of the layer-norm family, whose
// reduced axes are kept with size 1 (ONNX LayerNormalization-17, "Mean and InvStdDev").
inline std::optional<Dims> KeptPrefixShape(const TensorFact& x, int64_t axis_attr) {
  if (!x.shape) return std::nullopt;
  auto axis = NormalizeAxis(axis_attr, x.rank());
  if (!axis) return std::nullopt;
  Dims out(x.shape->begin(), x.shape->begin() + *axis);
  for (int64_t i = *axis; i < x.rank(); ++i) out.push_back(C(1));
  return out;
}

// floor(a / k) for a head split (hidden = heads * head_size), with the divisibility the
// reshape needs recorded, so that the quotient is exact wherever the graph runs.
inline MaybeExpr SplitHeads(OpContext& ctx, const MaybeExpr& hidden, int64_t heads,
                            const char* what) {
  if (heads <= 0) return std::nullopt;
  ctx.Require(RequirementKind::kChannels, Relation::kDivisible, hidden, C(heads), what);
  return sym::FloorDiv(hidden, C(heads));
}

}  // namespace shapelint::infer::nn

#endif  // SHAPELINT_LIB_INFER_NN_UTIL_H_
