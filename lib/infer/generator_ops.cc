// Ops that generate a tensor from sizes: Range, ConstantOfShape, Size, EyeLike, OneHot. Their
// output shape is read from the values of their inputs, which is where a size computed from
// Shape stays symbolic and a literal one shows up baked in.
#include <cmath>
#include <limits>

#include "absl/strings/str_cat.h"
#include "infer/op_context.h"
#include "infer/ops.h"
#include "infer/tensor_util.h"

namespace shapelint::infer {
namespace {

using ONNX_NAMESPACE::TensorProto;
using sym::Expr;
using sym::MaybeExpr;

}  // namespace

void InferRange(OpContext& ctx) {
  TensorFact& y = ctx.out(0);
  y.elem_type = ctx.in(0).elem_type;
  y.shape = Dims{std::nullopt};  // always 1-D
  // Operands as tracked values, or float literals that hold integers (1.0 as a step).
  auto operand = [&](size_t i) -> std::optional<Element> {
    if (auto e = SingleElement(ctx, i)) return e;
    auto f = ConstFloats(ctx, i);
    if (!f || f->size() != 1 || (*f)[0] != std::floor((*f)[0]) || std::fabs((*f)[0]) > 0x1p53) {
      return std::nullopt;
    }
    return Element{Expr::Constant(static_cast<int64_t>((*f)[0])), kNoOrigin};
  };
  auto start = operand(0);
  auto limit = operand(1);
  auto delta = operand(2);
  if (!start || !limit || !delta) {
    // Float operands (a literal 0.5, not tracked as values): the count of a constant range.
    // onnxruntime computes ceil(double(limit - start) / delta) with the subtraction in the
    // operand type, numpy (ONNX's reference) all in double; taken only when both agree.
    auto s = ConstFloats(ctx, 0), l = ConstFloats(ctx, 1), d = ConstFloats(ctx, 2);
    if (!s || !l || !d || s->size() != 1 || l->size() != 1 || d->size() != 1) return;
    if (y.elem_type != TensorProto::FLOAT && y.elem_type != TensorProto::DOUBLE) return;
    double diff = (*l)[0] - (*s)[0];
    if (y.elem_type == TensorProto::FLOAT) {
      diff = static_cast<double>(static_cast<float>((*l)[0]) - static_cast<float>((*s)[0]));
    }
    const double n = std::ceil(diff / (*d)[0]);
    if (n != std::ceil(((*l)[0] - (*s)[0]) / (*d)[0]) || !std::isfinite(n) || n > 0x1p62) return;
    y.shape = Dims{Expr::Constant(n > 0 ? static_cast<int64_t>(n) : 0)};
    return;
  }
  auto d = delta->value ? delta->value->AsConstant() : std::nullopt;
  // A delta of INT64_MIN has no negation (-*d below): unknown, as no range steps that far.
  if (!d || *d == 0 || *d == std::numeric_limits<int64_t>::min()) return;
  // number_of_elements = max(ceil((limit - start) / delta), 0).
  MaybeExpr count = *d > 0
                        ? sym::CeilDiv(sym::Sub(limit->value, start->value), Expr::Constant(*d))
                        : sym::CeilDiv(sym::Sub(start->value, limit->value), Expr::Constant(-*d));
  // The last value, start + (count - 1) * delta, is the largest of an increasing range; taken
  // only where the count cannot be clamped at 0 (an empty range indexes nothing).
  if (*d > 0 && count && sym::KnownNonNegative(*count)) {
    SetLargest(y, sym::Add(start->value,
                           sym::Mul(sym::Sub(count, Expr::Constant(1)), Expr::Constant(*d))));
  }
  count = NonNegative(count);
  y.shape = Dims{count};
  // Values: output[i] = start + i * delta.
  auto n = count ? count->AsConstant() : std::nullopt;
  if (!n || *n > kMaxTrackedElements) return;
  std::vector<Element> vals;
  for (int64_t i = 0; i < *n; ++i) {
    if (i == 0) {
      vals.push_back(*start);
      continue;
    }
    MaybeExpr v = sym::Add(start->value, sym::Mul(Expr::Constant(i), delta->value));
    vals.push_back(Computed(v, {&*start, &*delta}));
  }
  y.values = std::move(vals);
}

void InferConstantOfShape(OpContext& ctx) {
  TensorFact& y = ctx.out(0);
  // The `value` attribute (one element) gives type and fill; without it, float32 zeros.
  const TensorProto* value = ctx.AttrTensor("value");
  y.elem_type = value != nullptr ? value->data_type() : TensorProto::FLOAT;
  if (!RequireVector(ctx, 0, "shape")) return;
  const TensorFact& shape = ctx.in(0);
  if (!shape.values) {
    auto len = ConstLength(ctx, 0);
    if (len && *len >= 0 && *len <= kMaxTrackedElements) y.shape = Dims(*len);
    return;
  }
  Dims out;
  for (const Element& e : *shape.values) {
    // A negative dim fails at run time; leave it unknown.
    out.push_back(ConstantBelow(e.value, 0) ? std::nullopt : e.value);
  }
  y.shape = out;
  if (value == nullptr || !IsIntegerType(value->data_type())) return;
  auto count = ConstantElementCount(out);
  if (!count || *count > kMaxTrackedElements) return;
  auto fill = ReadSmallValues(*value, AttributeOrigin(ctx, "value"));
  if (!fill || fill->size() != 1) return;
  y.values = std::vector<Element>(*count, (*fill)[0]);
}

void InferSize(OpContext& ctx) {
  const TensorFact& x = ctx.in(0);
  TensorFact& y = ctx.out(0);
  y.elem_type = TensorProto::INT64;
  y.shape = Dims{};  // a scalar
  if (!x.shape) return;
  MaybeExpr n = Product(*x.shape);
  Element e{n, kNoOrigin};
  if (n && n->IsConstant()) {
    // Like a static dim read by Shape: derived from the graph, not a literal.
    e.origin = ctx.AddOrigin({Origin::Kind::kShapeOf, &ctx.graph(), ctx.node_index(), ""});
  }
  y.values = std::vector<Element>{e};
}

void InferEyeLike(OpContext& ctx) {
  const TensorFact& x = ctx.in(0);
  TensorFact& y = ctx.out(0);
  // `dtype` when given, else the input's type; the shape is the input's (2-D).
  y.elem_type = static_cast<int32_t>(ctx.AttrInt("dtype", x.elem_type));
  y.shape = x.shape;
  auto dims = ConstDims(x);
  if (!dims || dims->size() != 2 || !IsIntegerType(y.elem_type)) return;
  auto count = ConstantElementCount(*x.shape);
  if (!count || *count > kMaxTrackedElements) return;
  // Ones on the diagonal shifted by k: y[i][j] = (j - i == k).
  const int64_t k = ctx.AttrInt("k", 0);
  std::vector<Element> vals;
  for (int64_t i = 0; i < (*dims)[0]; ++i) {
    for (int64_t j = 0; j < (*dims)[1]; ++j) {
      vals.push_back({Expr::Constant(j - i == k ? 1 : 0), kNoOrigin});
    }
  }
  y.values = std::move(vals);
}

void InferOneHot(OpContext& ctx) {
  const TensorFact& indices = ctx.in(0);
  TensorFact& y = ctx.out(0);
  y.elem_type = ctx.in(2).elem_type;  // the type of `values`
  if (!indices.shape) return;
  // depth: "Scalar or rank 1 tensor containing exactly one element"; a non-integer depth is
  // cast to int64 (truncation) before use.
  MaybeExpr depth;
  if (auto e = SingleElement(ctx, 1)) {
    depth = e->value;
  } else if (auto f = ConstFloats(ctx, 1); f && f->size() == 1 && std::fabs((*f)[0]) < 0x1p62) {
    depth = Expr::Constant(static_cast<int64_t>((*f)[0]));
  }
  if (ConstantBelow(depth, 1)) depth = std::nullopt;  // invalid: depth must be > 0
  // The new axis goes at `axis` (default -1: last) of the rank + 1 output.
  const int64_t out_rank = indices.rank() + 1;
  auto axis = NormalizeAxis(ctx.AttrInt("axis", -1), out_rank);
  if (!axis) return;
  Dims out = *indices.shape;
  out.insert(out.begin() + *axis, depth);
  y.shape = std::move(out);
}

}  // namespace shapelint::infer
