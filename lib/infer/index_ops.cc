// Indexing ops: GatherElements, GatherND, ScatterElements (and the older Scatter), ScatterND,
// and the ops whose output size depends on data: Compress, NonZero, TopK, Unique. A size only
// known at run time becomes a fresh symbol, so that what follows still propagates; when the
// data is a small constant, the size and values are computed exactly instead.
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "infer/op_context.h"
#include "infer/ops.h"
#include "infer/tensor_util.h"

namespace shapelint::infer {
namespace {

using ONNX_NAMESPACE::TensorProto;
using sym::Expr;
using sym::MaybeExpr;

// Reduction of the Scatter ops (opset 16+; "none" before): how an update meets the data.
std::optional<Element> ScatterCombine(const std::string& reduction, const Element& old,
                                      const Element& update) {
  if (reduction == "none") return update;
  MaybeExpr v;
  if (reduction == "add") v = sym::Add(old.value, update.value);
  if (reduction == "mul") v = sym::Mul(old.value, update.value);
  if (reduction == "max") v = sym::Max(old.value, update.value);
  if (reduction == "min") v = sym::Min(old.value, update.value);
  if (!v) return std::nullopt;
  return Computed(v, {&old, &update});
}

std::string Reduction(const OpContext& ctx) {
  return ctx.opset() >= 16 ? ctx.AttrString("reduction").value_or("none") : "none";
}

}  // namespace

void InferGatherElements(OpContext& ctx) {
  const TensorFact& data = ctx.in(0);
  const TensorFact& indices = ctx.in(1);
  TensorFact& y = ctx.out(0);
  y.elem_type = data.elem_type;
  // "Its output shape is the same as the shape of indices", whose rank is the data's.
  y.shape = indices.shape;
  if (!y.shape && data.shape) y.shape = Dims(data.rank());
  auto dense = Dense(data);
  auto idx = ctx.ConstInts(1);
  auto idx_dims = ConstDims(indices);
  if (!dense || !idx || !idx_dims || idx_dims->size() != dense->dims.size()) return;
  auto axis = NormalizeAxis(ctx.AttrInt("axis", 0), data.rank());
  if (!axis) return;
  // out[i][j][k] = data[index[i][j][k]][j][k] for axis 0, and so on.
  const std::vector<int64_t> strides = Strides(dense->dims);
  std::vector<Element> vals;
  for (size_t i = 0; i < idx->size(); ++i) {
    std::vector<int64_t> c = Unravel(static_cast<int64_t>(i), *idx_dims);
    int64_t at = (*idx)[i];
    const int64_t dim = dense->dims[*axis];
    if (at < 0) at += dim;
    if (at < 0 || at >= dim) return;  // out of range: the op fails
    c[*axis] = at;
    for (size_t k = 0; k < c.size(); ++k) {
      if (c[k] >= dense->dims[k]) return;
    }
    vals.push_back((*dense->values)[Ravel(c, strides)]);
  }
  y.values = std::move(vals);
}

void InferGatherND(OpContext& ctx) {
  const TensorFact& data = ctx.in(0);
  const TensorFact& indices = ctx.in(1);
  TensorFact& y = ctx.out(0);
  y.elem_type = data.elem_type;
  if (!data.shape || !indices.shape || indices.rank() < 1) return;
  // batch_dims arrived in opset 12.
  const int64_t b = ctx.opset() >= 12 ? ctx.AttrInt("batch_dims", 0) : 0;
  const int64_t r = data.rank(), q = indices.rank();
  const MaybeExpr& last = indices.shape->back();
  auto k = last ? last->AsConstant() : std::nullopt;
  if (b < 0 || b >= std::min(r, q) || !k || *k < 1 || *k > r - b) return;
  // Output shape: indices.shape[:q-1] + data.shape[b+k:].
  Dims out(indices.shape->begin(), indices.shape->end() - 1);
  out.insert(out.end(), data.shape->begin() + b + *k, data.shape->end());
  y.shape = out;
  auto idx = ctx.ConstInts(1);
  // Column j of the tuples addresses data axis b + j ([[0], [2], [4]], a table folded from
  // arange(0, int(T), 2), needs T > 4).
  for (int64_t j = 0; idx && j < *k; ++j) {
    RequireIndexExtremes(ctx, *idx, static_cast<size_t>(j), static_cast<size_t>(*k),
                         (*data.shape)[b + j], b + j, "GatherND");
  }
  // Values: each index tuple (after the batch coordinates) picks a slice of data.
  auto dense = Dense(data);
  auto idx_dims = ConstDims(indices);
  auto count = ConstantElementCount(out);
  if (!dense || !idx || !idx_dims || !count || *count > kMaxTrackedElements) return;
  const std::vector<int64_t> strides = Strides(dense->dims);
  const std::vector<int64_t> prefix(idx_dims->begin(), idx_dims->end() - 1);
  const std::vector<int64_t> slice(dense->dims.begin() + b + *k, dense->dims.end());
  int64_t slice_count = 1;
  for (int64_t d : slice) slice_count *= d;
  int64_t prefix_count = 1;
  for (int64_t d : prefix) prefix_count *= d;
  std::vector<Element> vals;
  for (int64_t p = 0; p < prefix_count; ++p) {
    std::vector<int64_t> pc = Unravel(p, prefix);
    std::vector<int64_t> base(pc.begin(), pc.begin() + b);  // batch coordinates
    for (int64_t j = 0; j < *k; ++j) {
      int64_t at = (*idx)[p * *k + j];
      const int64_t dim = dense->dims[b + j];
      if (at < 0) at += dim;
      if (at < 0 || at >= dim) return;
      base.push_back(at);
    }
    for (int64_t s = 0; s < slice_count; ++s) {
      std::vector<int64_t> c = base;
      std::vector<int64_t> sc = Unravel(s, slice);
      c.insert(c.end(), sc.begin(), sc.end());
      vals.push_back((*dense->values)[Ravel(c, strides)]);
    }
  }
  if (static_cast<int64_t>(vals.size()) == *count) y.values = std::move(vals);
}

void InferScatterElements(OpContext& ctx) {
  const TensorFact& data = ctx.in(0);
  TensorFact& y = ctx.out(0);
  y.elem_type = data.elem_type;
  y.shape = data.shape;  // the output is data with some elements replaced
  // "updates: Tensor of rank r >= 1 (same rank and shape as indices)".
  const TensorFact& index_fact = ctx.in(1);
  const TensorFact& update_fact = ctx.in(2);
  if (index_fact.shape && update_fact.shape && index_fact.rank() == update_fact.rank()) {
    for (int64_t a = 0; a < index_fact.rank(); ++a) {
      ctx.Require(RequirementKind::kConcatDim, Relation::kEqual, (*update_fact.shape)[a],
                  (*index_fact.shape)[a],
                  absl::StrCat(ctx.node().op_type(), " updates axis ", a, " vs indices axis ", a),
                  kNoOrigin, a);
    }
  }
  auto dense = Dense(data);
  auto idx = ctx.ConstInts(1);
  auto idx_dims = ConstDims(ctx.in(1));
  const TensorFact& updates = ctx.in(2);
  if (!dense || !idx || !idx_dims || !updates.values || updates.values->size() != idx->size() ||
      idx_dims->size() != dense->dims.size()) {
    return;
  }
  auto axis = NormalizeAxis(ctx.AttrInt("axis", 0), data.rank());
  if (!axis) return;
  const std::string reduction = Reduction(ctx);
  const std::vector<int64_t> strides = Strides(dense->dims);
  std::vector<Element> vals = *dense->values;
  std::vector<bool> written(vals.size(), false);
  for (size_t i = 0; i < idx->size(); ++i) {
    std::vector<int64_t> c = Unravel(static_cast<int64_t>(i), *idx_dims);
    int64_t at = (*idx)[i];
    const int64_t dim = dense->dims[*axis];
    if (at < 0) at += dim;
    if (at < 0 || at >= dim) return;
    c[*axis] = at;
    const int64_t flat = Ravel(c, strides);
    // With reduction "none", duplicate indices leave the result undefined.
    if (reduction == "none" && written[flat]) return;
    written[flat] = true;
    auto v = ScatterCombine(reduction, vals[flat], (*updates.values)[i]);
    if (!v) return;
    vals[flat] = *v;
  }
  y.values = std::move(vals);
}

namespace {

// ScatterND's updates have the shape indices.shape[:-1] + data.shape[k:], k = indices.shape[-1]
// (ONNX's definition; ONNX Runtime refuses any other): one requirement per axis of the updates,
// where k is known and the ranks agree.
void RequireScatterNDUpdates(OpContext& ctx, const TensorFact& data, const TensorFact& indices,
                             const TensorFact& updates) {
  if (!data.shape || !indices.shape || !updates.shape || indices.shape->empty()) return;
  const sym::MaybeExpr& last = indices.shape->back();
  const std::optional<int64_t> k = last ? last->AsConstant() : std::nullopt;
  const int64_t q = indices.rank();
  const int64_t r = data.rank();
  if (!k || *k < 1 || *k > r || updates.rank() != q - 1 + r - *k) return;
  for (int64_t a = 0; a + 1 < q; ++a) {
    ctx.Require(RequirementKind::kConcatDim, Relation::kEqual, (*updates.shape)[a],
                (*indices.shape)[a],
                absl::StrCat("ScatterND updates axis ", a, " vs indices axis ", a), kNoOrigin, a);
  }
  for (int64_t j = 0; j < r - *k; ++j) {
    ctx.Require(RequirementKind::kConcatDim, Relation::kEqual, (*updates.shape)[q - 1 + j],
                (*data.shape)[*k + j],
                absl::StrCat("ScatterND updates axis ", q - 1 + j, " vs data axis ", *k + j),
                kNoOrigin, q - 1 + j);
  }
}

}  // namespace

void InferScatterND(OpContext& ctx) {
  const TensorFact& data = ctx.in(0);
  TensorFact& y = ctx.out(0);
  y.elem_type = data.elem_type;
  y.shape = data.shape;
  RequireScatterNDUpdates(ctx, data, ctx.in(1), ctx.in(2));
  auto dense = Dense(data);
  auto idx = ctx.ConstInts(1);
  auto idx_dims = ConstDims(ctx.in(1));
  const TensorFact& updates = ctx.in(2);
  if (!dense || !idx || !idx_dims || idx_dims->empty() || !updates.values) return;
  // indices [..., k] address slices of data.shape[k:]; updates = indices[:-1] + slice.
  const int64_t k = idx_dims->back();
  const int64_t r = static_cast<int64_t>(dense->dims.size());
  if (k < 1 || k > r) return;
  int64_t slice_count = 1;
  for (int64_t j = k; j < r; ++j) slice_count *= dense->dims[j];
  const int64_t tuples = static_cast<int64_t>(idx->size()) / k;
  if (static_cast<int64_t>(updates.values->size()) != tuples * slice_count) return;
  const std::string reduction = Reduction(ctx);
  const std::vector<int64_t> strides = Strides(dense->dims);
  std::vector<Element> vals = *dense->values;
  std::vector<bool> written(vals.size(), false);
  for (int64_t t = 0; t < tuples; ++t) {
    int64_t base = 0;
    for (int64_t j = 0; j < k; ++j) {
      int64_t at = (*idx)[t * k + j];
      if (at < 0) at += dense->dims[j];
      if (at < 0 || at >= dense->dims[j]) return;
      base += at * strides[j];
    }
    for (int64_t s = 0; s < slice_count; ++s) {
      const int64_t flat = base + s;
      if (reduction == "none" && written[flat]) return;  // duplicates: undefined
      written[flat] = true;
      auto v = ScatterCombine(reduction, vals[flat], (*updates.values)[t * slice_count + s]);
      if (!v) return;
      vals[flat] = *v;
    }
  }
  y.values = std::move(vals);
}

void InferCompress(OpContext& ctx) {
  const TensorFact& x = ctx.in(0);
  TensorFact& y = ctx.out(0);
  y.elem_type = x.elem_type;
  auto attr_axis = ctx.AttrInt("axis");
  // Without an axis the input is flattened first; the output is 1-D.
  MaybeExpr length;  // the length of the compressed axis (or of the flattened input)
  std::optional<int64_t> axis;
  if (attr_axis) {
    if (!x.shape) return;
    axis = NormalizeAxis(*attr_axis, x.rank());
    if (!axis) return;
    length = (*x.shape)[*axis];
  } else if (x.shape) {
    length = Product(*x.shape);
  }
  // "Its length can be less than the input length along the axis ... slices exceeding the
  // condition length are discarded": the count is the number of true conditions, known when
  // the condition and the length are constants.
  MaybeExpr count;
  auto cond = ctx.ConstInts(1);
  auto len = length ? length->AsConstant() : std::nullopt;
  std::vector<int64_t> kept;
  bool fails = false;
  if (cond && len) {
    for (int64_t i = 0; i < static_cast<int64_t>(cond->size()); ++i) {
      if ((*cond)[i] == 0) continue;
      // A true condition past the end selects nothing that exists: numpy (ONNX's reference)
      // raises an out-of-bounds error.
      if (i >= *len) fails = true;
      kept.push_back(i);
    }
    if (!fails) count = Expr::Constant(static_cast<int64_t>(kept.size()));
  } else if (cond) {
    // A symbolic length: wherever the op runs (every true condition within the axis), the
    // count is the number of true conditions. That the axis is long enough is not recorded:
    // requirements have no "at least" relation yet.
    int64_t trues = 0;
    for (int64_t c : *cond) trues += c != 0 ? 1 : 0;
    count = Expr::Constant(trues);
  } else {
    count = ctx.FreshSymbol("count");
  }
  if (axis) {
    Dims out = *x.shape;
    out[*axis] = count;
    y.shape = std::move(out);
  } else {
    y.shape = Dims{count};
  }
  // Values: selecting elements of a 1-D (or flattened) tensor.
  if (!x.values || !cond || !len || fails || (axis && x.rank() != 1)) return;
  if (static_cast<int64_t>(x.values->size()) != *len) return;
  std::vector<Element> vals;
  vals.reserve(kept.size());
  for (int64_t i : kept) vals.push_back((*x.values)[i]);
  y.values = std::move(vals);
}

void InferNonZero(OpContext& ctx) {
  const TensorFact& x = ctx.in(0);
  TensorFact& y = ctx.out(0);
  y.elem_type = TensorProto::INT64;
  // [rank, number of non-zero elements]. For a scalar, ONNX's shape inference says rank 0
  // but onnxruntime treats it as 1-D: the first dim stays unknown there.
  MaybeExpr rows = x.shape && x.rank() > 0 ? MaybeExpr(Expr::Constant(x.rank())) : std::nullopt;
  auto dense = Dense(x);
  bool all_const = dense.has_value();
  if (dense) {
    for (const Element& e : *dense->values)
      all_const = all_const && e.value && e.value->IsConstant();
  }
  if (!all_const || x.rank() == 0) {
    y.shape = Dims{rows, ctx.FreshSymbol("nonzero")};
    return;
  }
  std::vector<int64_t> hits;
  for (size_t i = 0; i < dense->values->size(); ++i) {
    if (*(*dense->values)[i].value->AsConstant() != 0) hits.push_back(static_cast<int64_t>(i));
  }
  const int64_t n = static_cast<int64_t>(hits.size());
  y.shape = Dims{rows, Expr::Constant(n)};
  if (x.rank() * n > kMaxTrackedElements) return;
  // Row d holds the d-th coordinate of each hit, in row-major order.
  std::vector<Element> vals(x.rank() * n);
  for (int64_t j = 0; j < n; ++j) {
    std::vector<int64_t> c = Unravel(hits[j], dense->dims);
    for (int64_t d = 0; d < x.rank(); ++d) vals[d * n + j] = {Expr::Constant(c[d]), kNoOrigin};
  }
  y.values = std::move(vals);
}

void InferTopK(OpContext& ctx) {
  const TensorFact& x = ctx.in(0);
  ctx.out(0).elem_type = x.elem_type;
  if (ctx.num_outputs() > 1) ctx.out(1).elem_type = TensorProto::INT64;
  if (!x.shape) return;
  auto axis = NormalizeAxis(ctx.AttrInt("axis", -1), x.rank());
  if (!axis) return;
  // k: an attribute before opset 10, a one-element input since.
  MaybeExpr k;
  OriginId k_origin = kNoOrigin;
  if (ctx.opset() < 10) {
    if (auto a = ctx.AttrInt("k")) k = Expr::Constant(*a);
  } else if (auto e = SingleElement(ctx, 1)) {
    k = e->value;
    k_origin = e->origin;
  }
  if (ConstantBelow(k, 0)) return;  // invalid
  if (!k) {
    k = ctx.FreshSymbol("k");
  } else if (FailsForCertain(Relation::kEqual, k, sym::Min(k, (*x.shape)[*axis]))) {
    k = std::nullopt;  // k larger than the axis fails at run time
  } else {
    ctx.Require(RequirementKind::kIndexBound, Relation::kAtLeast, (*x.shape)[*axis], k,
                absl::StrCat("TopK k on axis ", *axis), k_origin, *axis);
  }
  Dims out = *x.shape;
  out[*axis] = k;
  for (size_t i = 0; i < ctx.num_outputs() && i < 2; ++i) ctx.out(i).shape = out;
}

namespace {

// Unique's four outputs over constant values: Y, indices (of the first occurrences),
// inverse_indices and counts.
struct UniqueOf {
  std::vector<Element> ys;
  std::vector<int64_t> first, inverse, counts;
};

// Unique values in order of first occurrence; `sorted` (the attribute's default) sorts them
// ascending. Every element of `values` is a constant.
UniqueOf ConstantUnique(const std::vector<Element>& values, bool sorted) {
  UniqueOf u;
  std::vector<int64_t> keys, first;
  for (size_t i = 0; i < values.size(); ++i) {
    const int64_t v = *values[i].value->AsConstant();
    if (std::find(keys.begin(), keys.end(), v) == keys.end()) {
      keys.push_back(v);
      first.push_back(static_cast<int64_t>(i));
    }
  }
  std::vector<size_t> order(keys.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  if (sorted) {
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return keys[a] < keys[b]; });
  }
  u.counts.assign(keys.size(), 0);
  for (size_t j : order) {
    u.ys.push_back(values[first[j]]);
    u.first.push_back(first[j]);
  }
  for (const Element& e : values) {
    const int64_t v = *e.value->AsConstant();
    for (size_t j = 0; j < order.size(); ++j) {
      if (keys[order[j]] == v) {
        u.inverse.push_back(static_cast<int64_t>(j));
        ++u.counts[j];
        break;
      }
    }
  }
  return u;
}

std::vector<Element> ConstantElements(const std::vector<int64_t>& v) {
  std::vector<Element> out;
  out.reserve(v.size());
  for (int64_t i : v) out.push_back({Expr::Constant(i), kNoOrigin});
  return out;
}

}  // namespace

void InferUnique(OpContext& ctx) {
  const TensorFact& x = ctx.in(0);
  const size_t n_out = ctx.num_outputs();
  if (n_out == 0) return;
  ctx.out(0).elem_type = x.elem_type;
  for (size_t i = 1; i < n_out; ++i) ctx.out(i).elem_type = TensorProto::INT64;
  auto attr_axis = ctx.AttrInt("axis");
  std::optional<int64_t> axis;
  if (attr_axis) {
    if (!x.shape) return;
    axis = NormalizeAxis(*attr_axis, x.rank());
    if (!axis) return;
  }
  // Y, indices, inverse_indices, counts. The number of unique values (or slices) is exact for
  // constant input without an axis, a fresh symbol otherwise.
  auto dense = Dense(x);
  bool all_const = dense.has_value() && !axis;
  if (all_const) {
    for (const Element& e : *dense->values) {
      all_const = all_const && e.value && e.value->IsConstant();
    }
  }
  std::optional<UniqueOf> known;
  if (all_const) known = ConstantUnique(*dense->values, ctx.AttrInt("sorted", 1) != 0);
  const MaybeExpr unique =
      known ? Expr::Constant(static_cast<int64_t>(known->ys.size())) : ctx.FreshSymbol("unique");
  if (axis) {
    Dims out = *x.shape;
    out[*axis] = unique;
    ctx.out(0).shape = std::move(out);
  } else {
    ctx.out(0).shape = Dims{unique};
  }
  // inverse_indices has one entry per input element (or per slice along the axis).
  MaybeExpr inverse_len = axis ? (*x.shape)[*axis] : (x.shape ? Product(*x.shape) : MaybeExpr());
  if (n_out > 1) ctx.out(1).shape = Dims{unique};
  if (n_out > 2) ctx.out(2).shape = Dims{inverse_len};
  if (n_out > 3) ctx.out(3).shape = Dims{unique};
  if (!known) return;
  ctx.out(0).values = std::move(known->ys);
  if (n_out > 1) ctx.out(1).values = ConstantElements(known->first);
  if (n_out > 2) ctx.out(2).values = ConstantElements(known->inverse);
  if (n_out > 3) ctx.out(3).values = ConstantElements(known->counts);
}

}  // namespace shapelint::infer
