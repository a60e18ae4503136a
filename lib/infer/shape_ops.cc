// Ops that compute or rearrange shapes: Shape, Gather, Unsqueeze, Squeeze, Concat, Slice,
// Reshape, Flatten, Transpose. Values of the small integer tensors they carry are propagated
// exactly, which is what tells a Reshape target built from Shape apart from a literal one.
#include <algorithm>
#include <limits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "infer/op_context.h"
#include "infer/ops.h"
#include "infer/tensor_util.h"

namespace shapelint::infer {
namespace {

using sym::Expr;
using sym::MaybeExpr;

// Past this magnitude a Slice bound means "to the end" (exporters write INT64_MAX or 2^31-1).
constexpr int64_t kSliceToEnd = int64_t{1} << 31;

// Axes from an attribute (older opsets) or from input `input` (newer ones).
std::optional<std::vector<int64_t>> AxesOf(OpContext& ctx, int64_t input_since_opset,
                                           size_t input) {
  if (ctx.opset() >= input_since_opset) {
    if (!ctx.has_input(input)) return std::vector<int64_t>{};
    return ctx.ConstInts(input);
  }
  auto axes = ctx.AttrInts("axes");
  return axes ? axes : std::vector<int64_t>{};
}

}  // namespace

void InferShape(OpContext& ctx) {
  const TensorFact& x = ctx.in(0);
  TensorFact& y = ctx.out(0);
  y.elem_type = ONNX_NAMESPACE::TensorProto::INT64;
  if (!x.shape) {
    y.shape = Dims{std::nullopt};
    return;
  }
  const int64_t rank = x.rank();
  int64_t start = ctx.opset() >= 15 ? ctx.AttrInt("start", 0) : 0;
  int64_t end = ctx.opset() >= 15 ? ctx.AttrInt("end", rank) : rank;
  if (start < 0) start += rank;
  if (end < 0) end += rank;
  start = std::clamp<int64_t>(start, 0, rank);
  end = std::clamp<int64_t>(end, start, rank);
  y.shape = Dims{Expr::Constant(end - start)};
  std::vector<Element> vals;
  OriginId origin = kNoOrigin;
  for (int64_t i = start; i < end; ++i) {
    const MaybeExpr& d = (*x.shape)[i];
    Element e{d, kNoOrigin};
    if (d && d->IsConstant()) {
      // A static dim read from the graph is derived, not baked: remember where it was read.
      if (origin == kNoOrigin) {
        origin = ctx.AddOrigin({Origin::Kind::kShapeOf, &ctx.graph(), ctx.node_index(), ""});
      }
      e.origin = origin;
    }
    vals.push_back(e);
  }
  y.values = std::move(vals);
}

void InferGather(OpContext& ctx) {
  const TensorFact& data = ctx.in(0);
  const TensorFact& indices = ctx.in(1);
  TensorFact& y = ctx.out(0);
  y.elem_type = data.elem_type;
  if (!data.shape || !indices.shape) return;
  auto axis = NormalizeAxis(ctx.AttrInt("axis", 0), data.rank());
  if (!axis) return;
  Dims out(data.shape->begin(), data.shape->begin() + *axis);
  out.insert(out.end(), indices.shape->begin(), indices.shape->end());
  out.insert(out.end(), data.shape->begin() + *axis + 1, data.shape->end());
  y.shape = out;
  auto idx = ctx.ConstInts(1);
  // x[:, 4] needs at least 5 rows, x[:, -2] at least 2.
  if (idx) RequireIndexExtremes(ctx, *idx, 0, 1, (*data.shape)[*axis], *axis, "Gather");
  // Indices computed at run time with a known largest value (position ids from a Range): a
  // table needs that many rows (GPT-2's 1024 positions).
  // Indices the graph computes from sizes, their values tracked (a table of pairs i * F + j
  // folded at the example with F read from the shape): the largest needs its row too.
  MaybeExpr largest = idx ? std::nullopt : LargestOf(indices);
  if (!idx && !largest) largest = DominantNonNegative(indices);
  if (largest) {
    ctx.Require(RequirementKind::kIndexBound, Relation::kAtLeast, (*data.shape)[*axis],
                sym::Add(largest, Expr::Constant(1)),
                absl::StrCat("Gather indices up to ", largest->ToString(), " on axis ", *axis),
                kNoOrigin, *axis);
  }
  // Values: gathering from a 1-D tensor (the Shape -> Gather idiom) or a scalar-indexed row.
  if (!data.values || !idx || data.rank() != 1) return;
  const int64_t n = static_cast<int64_t>(data.values->size());
  std::vector<Element> vals;
  for (int64_t i : *idx) {
    if (i < 0) i += n;
    if (i < 0 || i >= n) return;  // out of range: the op fails; leave it unknown
    vals.push_back((*data.values)[i]);
  }
  y.values = std::move(vals);
}

void InferUnsqueeze(OpContext& ctx) {
  const TensorFact& x = ctx.in(0);
  TensorFact& y = ctx.out(0);
  y.elem_type = x.elem_type;
  y.values = x.values;  // same elements, same order
  y.forms = x.forms;    // same elements
  auto axes = AxesOf(ctx, 13, 1);
  if (!x.shape || !axes) return;
  const int64_t out_rank = x.rank() + static_cast<int64_t>(axes->size());
  std::vector<bool> inserted(out_rank, false);
  for (int64_t a : *axes) {
    auto n = NormalizeAxis(a, out_rank);
    if (!n || inserted[*n]) return;
    inserted[*n] = true;
  }
  Dims out;
  size_t next = 0;
  for (int64_t i = 0; i < out_rank; ++i) {
    out.push_back(inserted[i] ? MaybeExpr(Expr::Constant(1)) : (*x.shape)[next++]);
  }
  y.shape = std::move(out);
}

void InferSqueeze(OpContext& ctx) {
  const TensorFact& x = ctx.in(0);
  TensorFact& y = ctx.out(0);
  y.elem_type = x.elem_type;
  y.values = x.values;
  y.forms = x.forms;  // same elements
  auto axes = AxesOf(ctx, 13, 1);
  if (!x.shape || !axes) return;
  std::vector<bool> drop(x.rank(), false);
  if (axes->empty()) {
    // Without axes every dim of size 1 goes; a symbolic dim might be 1, so the rank is unknown.
    for (int64_t i = 0; i < x.rank(); ++i) {
      const MaybeExpr& d = (*x.shape)[i];
      auto c = d ? d->AsConstant() : std::nullopt;
      if (!c) return;
      drop[i] = *c == 1;
    }
  } else {
    for (int64_t a : *axes) {
      auto n = NormalizeAxis(a, x.rank());
      if (!n) return;
      drop[*n] = true;
      ctx.Require(RequirementKind::kSqueezeOne, Relation::kEqual, (*x.shape)[*n], Expr::Constant(1),
                  absl::StrCat("Squeeze removes axis ", *n, ", which must have size 1"), kNoOrigin,
                  *n);
    }
  }
  Dims out;
  for (int64_t i = 0; i < x.rank(); ++i) {
    if (!drop[i]) out.push_back((*x.shape)[i]);
  }
  y.shape = std::move(out);
}

void InferConcat(OpContext& ctx) {
  TensorFact& y = ctx.out(0);
  y.elem_type = ctx.in(0).elem_type;
  int64_t rank = -1;
  for (size_t i = 0; i < ctx.num_inputs(); ++i) {
    if (!ctx.in(i).shape) return;
    if (rank < 0) rank = ctx.in(i).rank();
    if (ctx.in(i).rank() != rank) return;
  }
  if (rank < 0) return;
  auto axis = NormalizeAxis(ctx.AttrInt("axis", 0), rank);
  if (!axis) return;
  Dims out = *ctx.in(0).shape;
  out[*axis] = Expr::Constant(0);
  for (size_t i = 0; i < ctx.num_inputs(); ++i) {
    const Dims& s = *ctx.in(i).shape;
    out[*axis] = sym::Add(out[*axis], s[*axis]);
    for (int64_t k = 0; k < rank; ++k) {
      if (k == *axis || i == 0) continue;
      ctx.Require(RequirementKind::kConcatDim, Relation::kEqual, s[k], (*ctx.in(0).shape)[k],
                  absl::StrCat("Concat input ", i, " axis ", k, " vs input 0"), kNoOrigin, k);
      if (!out[k]) out[k] = s[k];
    }
  }
  y.shape = out;
  if (rank != 1) return;
  // An input whose values are not known but whose length is gives that many unknown elements:
  // TF-style "same" padding concatenates literal zeros for batch and channels with pads
  // computed in float, and the zeros still say those axes keep their size.
  std::vector<Element> vals;
  bool any_known = false;
  for (size_t i = 0; i < ctx.num_inputs(); ++i) {
    const TensorFact& in = ctx.in(i);
    if (in.values) {
      any_known = true;
      vals.insert(vals.end(), in.values->begin(), in.values->end());
      continue;
    }
    const std::optional<int64_t> n = (*in.shape)[0] ? (*in.shape)[0]->AsConstant() : std::nullopt;
    if (!n || *n < 0 || *n > kMaxTrackedElements) return;
    vals.resize(vals.size() + *n);
  }
  if (any_known && static_cast<int64_t>(vals.size()) <= kMaxTrackedElements) {
    y.values = std::move(vals);
  }
}

namespace {

// A symbolic Slice bound `v` on a dim of size `d` as ONNX reads it: v + d where v is negative,
// then clamped to [0, d]. A bound is not always a size: T5 slices its position bias with
// -seq_len. For any integer v this is exactly
//   min(max(v, 0), d) + min(max(-v, 0), 1) * max(v + d, 0)
// (the second factor is 1 where v < 0, else 0), which min and max fold back to min(v, d) where
// v is a size and to max(d - L, 0) where v is -L.
MaybeExpr ClampedBound(const MaybeExpr& v, const MaybeExpr& d) {
  const Expr zero = Expr::Constant(0), one = Expr::Constant(1);
  MaybeExpr as_is = sym::Min(sym::Max(v, zero), d);
  MaybeExpr negative = sym::Min(sym::Max(sym::Neg(v), zero), one);
  MaybeExpr wrapped = sym::Max(sym::Add(v, d), zero);
  return sym::Add(as_is, sym::Mul(negative, wrapped));
}

// Length of x[start:end:step] along a dim of size `d`, with ONNX's clamping.
MaybeExpr SliceLength(const MaybeExpr& d, const MaybeExpr& start, const MaybeExpr& end,
                      int64_t step) {
  // A step of INT64_MIN has no negation (-step below); no slice steps that far.
  if (!d || !start || !end || step == 0 || step == std::numeric_limits<int64_t>::min()) {
    return std::nullopt;
  }
  auto s = start->AsConstant();
  auto e = end->AsConstant();
  if (step > 0) {
    MaybeExpr lo = !s ? ClampedBound(start, d)
                      : (*s < 0 ? sym::Max(sym::Add(d, start), Expr::Constant(0))
                                : (*s == 0 ? MaybeExpr(Expr::Constant(0)) : sym::Min(start, d)));
    MaybeExpr hi = !e ? ClampedBound(end, d)
                      : (*e >= kSliceToEnd ? d
                                           : (*e < 0 ? sym::Max(sym::Add(d, end), Expr::Constant(0))
                                                     : sym::Min(end, d)));
    MaybeExpr diff = sym::Sub(hi, lo);
    return NonNegative(step == 1 ? diff : sym::CeilDiv(diff, Expr::Constant(step)));
  }
  if (!s || !e) return std::nullopt;
  MaybeExpr minus_one = Expr::Constant(-1);
  MaybeExpr hi = *s <= -kSliceToEnd  ? minus_one
                 : *s >= kSliceToEnd ? sym::Sub(d, Expr::Constant(1))
                 : *s < 0            ? sym::Max(sym::Add(d, start), minus_one)
                                     : sym::Min(start, sym::Sub(d, Expr::Constant(1)));
  MaybeExpr lo = *e <= -kSliceToEnd ? minus_one
                 : *e < 0           ? sym::Max(sym::Add(d, end), minus_one)
                                    : sym::Min(end, sym::Sub(d, Expr::Constant(1)));
  return NonNegative(sym::CeilDiv(sym::Sub(hi, lo), Expr::Constant(-step)));
}

std::optional<std::vector<MaybeExpr>> ValuesOrAttr(OpContext& ctx, size_t input,
                                                   std::string_view attr, bool use_inputs) {
  std::vector<MaybeExpr> out;
  if (use_inputs) {
    if (!ctx.has_input(input)) return std::nullopt;
    const TensorFact& f = ctx.in(input);
    if (!f.values) return std::nullopt;
    for (const Element& e : *f.values) out.push_back(e.value);
    return out;
  }
  auto ints = ctx.AttrInts(attr);
  if (!ints) return std::nullopt;
  for (int64_t v : *ints) out.push_back(Expr::Constant(v));
  return out;
}

}  // namespace

void InferSlice(OpContext& ctx) {
  const TensorFact& x = ctx.in(0);
  TensorFact& y = ctx.out(0);
  y.elem_type = x.elem_type;
  if (!x.shape) return;
  // Slice keeps the rank whatever its bounds: dims it cannot work out are unknown, not the rank.
  y.shape = Dims(x.shape->size(), std::nullopt);
  const bool use_inputs = ctx.opset() >= 10;
  auto starts = ValuesOrAttr(ctx, 1, "starts", use_inputs);
  auto ends = ValuesOrAttr(ctx, 2, "ends", use_inputs);
  std::optional<std::vector<int64_t>> axes;
  if (use_inputs ? ctx.has_input(3) : ctx.Attr("axes") != nullptr) {
    axes = use_inputs ? ctx.ConstInts(3) : ctx.AttrInts("axes");
  } else if (starts) {
    axes.emplace();
    for (size_t i = 0; i < starts->size(); ++i) axes->push_back(static_cast<int64_t>(i));
  } else if (auto n = use_inputs ? ConstLength(ctx, 1) : std::nullopt) {
    axes.emplace();  // default axes: the first len(starts)
    for (int64_t i = 0; i < *n; ++i) axes->push_back(i);
  }
  if (!axes) return;
  Dims out = *x.shape;
  std::vector<bool> seen(x.rank(), false);
  for (int64_t a : *axes) {
    auto axis = NormalizeAxis(a, x.rank());
    if (!axis || seen[*axis]) return;
    seen[*axis] = true;
    out[*axis] = std::nullopt;  // until the bounds say otherwise
  }
  std::vector<int64_t> steps(axes->size(), 1);
  if (use_inputs && ctx.has_input(4)) {
    auto s = ctx.ConstInts(4);
    if (s) steps = *s;
    if (!s || steps.size() != axes->size()) {
      y.shape = std::move(out);
      return;
    }
  }
  if (!starts || !ends || starts->size() != axes->size() || ends->size() != axes->size()) {
    y.shape = std::move(out);
    return;
  }
  for (size_t i = 0; i < axes->size(); ++i) {
    const int64_t axis = *NormalizeAxis((*axes)[i], x.rank());
    if (steps[i] == 0) return;
    out[axis] = SliceLength((*x.shape)[axis], (*starts)[i], (*ends)[i], steps[i]);
  }
  y.shape = out;
  // Values of a small tensor with static dims sliced with constant bounds: shape-tensor
  // slicing, and the row reversal torch applies to Pad's pads.
  auto dims = StaticDimsWithValues(x);
  if (!dims) return;
  // The indices each axis keeps, in order.
  std::vector<std::vector<int64_t>> kept(dims->size());
  for (size_t a = 0; a < dims->size(); ++a) {
    for (int64_t i = 0; i < (*dims)[a]; ++i) kept[a].push_back(i);
  }
  for (size_t k = 0; k < axes->size(); ++k) {
    const int64_t axis = *NormalizeAxis((*axes)[k], x.rank());
    const int64_t n = (*dims)[axis];
    auto s = (*starts)[k] ? (*starts)[k]->AsConstant() : std::nullopt;
    auto e = (*ends)[k] ? (*ends)[k]->AsConstant() : std::nullopt;
    if (!s || !e) return;
    const int64_t step = steps[k];
    auto clamp = [&](int64_t v, int64_t lo, int64_t hi) {
      if (v < 0) v = v <= -kSliceToEnd ? lo : v + n;
      return std::clamp<int64_t>(v, lo, hi);
    };
    std::vector<int64_t> idx;
    if (step > 0) {
      for (int64_t i = clamp(*s, 0, n), end = clamp(*e, 0, n); i < end; i += step) idx.push_back(i);
    } else {
      for (int64_t i = clamp(*s, -1, n - 1), end = clamp(*e, -1, n - 1); i > end; i += step) {
        idx.push_back(i);
      }
    }
    kept[axis] = std::move(idx);
  }
  y.values = GatherIndices(*x.values, *dims, kept);
}

void InferReshape(OpContext& ctx) {
  const TensorFact& x = ctx.in(0);
  const TensorFact& target = ctx.in(1);
  TensorFact& y = ctx.out(0);
  y.elem_type = x.elem_type;
  if (!RequireVector(ctx, 1, "shape")) return;
  y.values = x.values;
  y.forms = x.forms;  // same elements
  if (!target.values) {
    // Rank is still known from the target's length.
    if (target.shape && target.shape->size() == 1 && (*target.shape)[0]) {
      if (auto n = (*target.shape)[0]->AsConstant(); n && *n >= 0 && *n <= kMaxTrackedElements) {
        y.shape = Dims(*n);
      }
    }
    return;
  }
  const bool allow_zero = ctx.opset() >= 14 && ctx.AttrInt("allowzero", 0) != 0;
  Dims out;
  int infer_at = -1;
  OriginId literal = kNoOrigin;
  for (size_t i = 0; i < target.values->size(); ++i) {
    const Element& e = (*target.values)[i];
    auto c = e.value ? e.value->AsConstant() : std::nullopt;
    if (c == -1) {
      if (infer_at >= 0) return;  // two -1: invalid
      infer_at = static_cast<int>(i);
      out.push_back(std::nullopt);
      continue;
    }
    if (c == 0 && !allow_zero) {
      // 0 copies the input dim at the same position.
      out.push_back(x.shape && i < x.shape->size() ? (*x.shape)[i] : std::nullopt);
      continue;
    }
    const Origin* origin = ctx.origin(e.origin);
    // A 1 multiplies nothing into the count: the literal that sizes it is another entry (or
    // none, where a table's own element count meets the input's dims: a weight's size).
    if (c && *c != 1 && literal == kNoOrigin && origin != nullptr && origin->IsLiteral()) {
      literal = e.origin;
    }
    out.push_back(e.value);
  }
  if (!x.shape) {
    y.shape = out;
    return;
  }
  MaybeExpr in_count = Product(*x.shape);
  if (infer_at >= 0) {
    Dims others = out;
    others.erase(others.begin() + infer_at);
    MaybeExpr known = Product(others);
    if (known && known->IsConstant()) {
      if (*known->AsConstant() > 0) {
        out[infer_at] = sym::FloorDiv(in_count, known);
        ctx.Require(RequirementKind::kReshapeCount, Relation::kDivisible, in_count, known,
                    "Reshape with -1: the element count must be divisible by the other dims",
                    literal);
      }
    } else if (known) {
      // Symbolic: the quotient is exact wherever the graph runs, and must be. A polynomial when
      // one term divides the count; else the floor atom with a symbolic divisor, as when
      // Attention's expansion reshapes K by Shape(Q)[0], a dim only the graph says is K's own.
      out[infer_at] = sym::FloorDivByTerm(in_count, known);
      if (!out[infer_at]) out[infer_at] = sym::FloorDivExpr(in_count, known);
      ctx.Require(RequirementKind::kReshapeCount, Relation::kDivisible, in_count, known,
                  "Reshape with -1: the element count must be divisible by the other dims",
                  literal);
    }
  } else {
    ctx.Require(RequirementKind::kReshapeCount, Relation::kEqual, in_count, Product(out),
                "Reshape keeps the element count: input elements vs target elements", literal);
  }
  y.shape = std::move(out);
}

void InferFlatten(OpContext& ctx) {
  const TensorFact& x = ctx.in(0);
  TensorFact& y = ctx.out(0);
  y.elem_type = x.elem_type;
  y.values = x.values;
  y.forms = x.forms;  // same elements
  if (!x.shape) return;
  int64_t axis = ctx.AttrInt("axis", 1);
  if (axis < 0) axis += x.rank();
  if (axis < 0 || axis > x.rank()) return;
  y.shape = Dims{Product(*x.shape, 0, axis), Product(*x.shape, axis)};
}

void InferTranspose(OpContext& ctx) {
  const TensorFact& x = ctx.in(0);
  TensorFact& y = ctx.out(0);
  y.elem_type = x.elem_type;
  if (!x.shape) return;
  std::vector<int64_t> perm;
  if (auto p = ctx.AttrInts("perm")) {
    // A perm that is not a permutation of the axes (an axis twice, one out of range, the
    // wrong length) makes the node invalid; its elements below would be read out of bounds.
    auto normalized = static_cast<int64_t>(p->size()) == x.rank()
                          ? NormalizeAxes(*p, x.rank())
                          : std::optional<std::vector<int64_t>>();
    if (!normalized) {
      ctx.Note(absl::StrCat("Transpose's perm [", absl::StrJoin(*p, ", "),
                            "] is not a permutation of the ", x.rank(),
                            " axes of its input; its output is unknown"));
      return;
    }
    perm = *std::move(normalized);
  } else {
    for (int64_t i = x.rank() - 1; i >= 0; --i) perm.push_back(i);
  }
  Dims out;
  for (int64_t p : perm) out.push_back((*x.shape)[p]);
  y.shape = std::move(out);
  if (x.rank() <= 1) {
    y.values = x.values;
    return;
  }
  // Small tensors with static dims (torch transposes Pad's pads): permute the elements.
  auto dims = StaticDimsWithValues(x);
  if (!dims) return;
  std::vector<int64_t> out_dims, strides(dims->size(), 1);
  for (int64_t a = x.rank() - 2; a >= 0; --a) strides[a] = strides[a + 1] * (*dims)[a + 1];
  for (int64_t p : perm) out_dims.push_back((*dims)[p]);
  std::vector<Element> vals;
  vals.reserve(x.values->size());
  std::vector<int64_t> index(out_dims.size(), 0);
  for (size_t flat = 0; flat < x.values->size(); ++flat) {
    int64_t source = 0;
    for (size_t a = 0; a < index.size(); ++a) {
      source += index[a] * strides[perm[a]];
    }
    vals.push_back((*x.values)[source]);
    for (int64_t a = static_cast<int64_t>(index.size()) - 1; a >= 0; --a) {
      if (++index[a] < out_dims[a]) break;
      index[a] = 0;
    }
  }
  y.values = std::move(vals);
}

}  // namespace shapelint::infer
