// Elementwise ops: unary ops keep their input's shape; n-ary ops broadcast multidirectionally
// (numpy rules) and, for small integer tensors, compute values element by element.
#include <algorithm>
#include <cmath>
#include <functional>

#include "absl/strings/str_cat.h"
#include "infer/op_context.h"
#include "infer/ops.h"
#include "infer/tensor_util.h"

namespace shapelint::infer {
namespace {

// Past this a float no longer holds every integer below it exactly (2^24 for float32).
constexpr int64_t kMaxExactDivisor = int64_t{1} << 24;

using sym::Expr;
using sym::MaybeExpr;
using BinaryFn = std::function<MaybeExpr(const MaybeExpr&, const MaybeExpr&)>;

std::optional<Dims> BroadcastShapes(OpContext& ctx, const std::vector<const TensorFact*>& ins) {
  size_t rank = 0;
  for (const TensorFact* f : ins) {
    if (!f->shape) return std::nullopt;
    rank = std::max(rank, f->shape->size());
  }
  Dims out(rank);
  for (size_t axis = 0; axis < rank; ++axis) {
    std::vector<BroadcastOperand> dims;
    for (const TensorFact* f : ins) {
      size_t r = f->shape->size();
      // An operand without this axis counts as 1 and takes no part.
      if (axis + r >= rank) dims.push_back({(*f->shape)[axis + r - rank]});
    }
    out[axis] = BroadcastDim(
        ctx, dims, RequirementKind::kBroadcast,
        [&] {
          return absl::StrCat(ctx.node().op_type(), " operands broadcast at output axis ", axis);
        },
        static_cast<int64_t>(axis));
  }
  return out;
}

std::optional<std::vector<int64_t>> ConstShape(const TensorFact& f) {
  if (!f.shape) return std::nullopt;
  std::vector<int64_t> s;
  for (const auto& d : *f.shape) {
    auto c = d ? d->AsConstant() : std::nullopt;
    if (!c) return std::nullopt;
    s.push_back(*c);
  }
  return s;
}

// Elementwise values over broadcast operands, when every operand's values are tracked.
std::optional<std::vector<Element>> BroadcastValues(
    const std::vector<const TensorFact*>& ins, const Dims& out_dims,
    const std::function<Element(const std::vector<const Element*>&)>& fn) {
  std::vector<std::vector<int64_t>> shapes;
  for (const TensorFact* f : ins) {
    auto s = ConstShape(*f);
    if (!f->values || !s) return std::nullopt;
    shapes.push_back(*s);
  }
  auto out_count = ConstantElementCount(out_dims);
  if (!out_count || *out_count > kMaxTrackedElements) return std::nullopt;
  std::vector<int64_t> out_shape;
  for (const auto& d : out_dims) out_shape.push_back(*d->AsConstant());
  std::vector<Element> out;
  out.reserve(*out_count);
  for (int64_t i = 0; i < *out_count; ++i) {
    std::vector<const Element*> args;
    for (size_t k = 0; k < ins.size(); ++k) {
      int64_t src = BroadcastSource(i, out_shape, shapes[k]);
      if (src >= static_cast<int64_t>(ins[k]->values->size())) return std::nullopt;
      args.push_back(&(*ins[k]->values)[src]);
    }
    out.push_back(fn(args));
  }
  return out;
}

// True when `a` cannot be negative (a size) and `b` is a negative constant (-1, the "keep this
// dim" of torch's expand(-1, ...)).
bool SizeAgainstNegative(const Expr& a, const Expr& b) {
  const std::optional<int64_t> c = b.AsConstant();
  return c && *c < 0 && sym::KnownNonNegative(a);
}

MaybeExpr CompareValues(const std::string& op, const MaybeExpr& a, const MaybeExpr& b) {
  if (!a || !b) return std::nullopt;
  if (op == "Equal" && *a == *b) return Expr::Constant(1);
  // The TorchScript exporter's expand(-1, ...) compares each target size with -1 (Equal, then
  // Where): a size is never -1.
  if (op == "Equal" && (SizeAgainstNegative(*a, *b) || SizeAgainstNegative(*b, *a))) {
    return Expr::Constant(0);
  }
  auto x = a->AsConstant(), y = b->AsConstant();
  if (!x || !y) return std::nullopt;
  bool r = op == "Equal"         ? *x == *y
           : op == "Less"        ? *x < *y
           : op == "Greater"     ? *x > *y
           : op == "LessOrEqual" ? *x <= *y
                                 : *x >= *y;
  return Expr::Constant(r ? 1 : 0);
}

// ONNX's integer Div truncates toward zero (onnx's Div: "truncating division"), which is floor
// only where the quotient is not negative. A negated size (torch's -(-T // 4) ceil idiom, -T in
// the graph) is -floor(T / 4). A sign the algebra cannot show is taken as a size's: the margin
// of a crop, (skip - x) / 2, is not negative wherever the crop runs, and unknown there would
// lose the crop itself (the engine-truth test holds this against ONNX Runtime on every corpus).
MaybeExpr TruncDiv(const MaybeExpr& a, const MaybeExpr& b) {
  if (!a || !b) return std::nullopt;
  const std::optional<int64_t> x = a->AsConstant(), y = b->AsConstant();
  if (x && y) {
    if (*y == 0 || (*x == INT64_MIN && *y == -1)) return std::nullopt;
    return Expr::Constant(*x / *y);
  }
  if (y) {
    if (*y == 0 || *y == INT64_MIN) return std::nullopt;
    if (*y < 0) return sym::Neg(TruncDiv(a, Expr::Constant(-*y)));
    if (sym::NeverPositive(*a)) return sym::Neg(sym::FloorDiv(sym::Neg(a), b));
    return sym::FloorDiv(a, b);
  }
  // A symbolic divisor (the dynamo exporter's -1 of a view, n*c*h*w // (n*c)): the exact
  // quotient where it divides as a polynomial, where truncation and floor agree; floor(a / b)
  // of two sizes, where they agree as well. The divisor is not 0 wherever the Div runs.
  if (MaybeExpr exact = sym::ExactDiv(a, b)) return exact;
  if (sym::KnownNonNegative(*a) && sym::KnownNonNegative(*b)) return sym::FloorDivExpr(a, b);
  return std::nullopt;
}

BinaryFn ValueFunction(const std::string& op, int32_t elem_type) {
  if (op == "Add") return sym::Add;
  if (op == "Sub") return sym::Sub;
  if (op == "Mul") return sym::Mul;
  if (op == "Div" && IsIntegerType(elem_type)) return TruncDiv;
  if (op == "Mod") {
    return [](const MaybeExpr& a, const MaybeExpr& b) { return sym::Mod(a, b); };
  }
  // An integer size raised to a small constant power: torch's (h // 8) ** 2 + 1 token count of
  // a square patch grid. Other exponents (negative, fractional, symbolic, large) stay unknown.
  if (op == "Pow" && IsIntegerType(elem_type)) {
    return [](const MaybeExpr& a, const MaybeExpr& b) -> MaybeExpr {
      constexpr int64_t kMaxExponent = 8;
      const std::optional<int64_t> e = b ? b->AsConstant() : std::nullopt;
      if (!a || !e || *e < 0 || *e > kMaxExponent) return std::nullopt;
      MaybeExpr v = Expr::Constant(1);
      for (int64_t k = 0; k < *e && v; ++k) v = sym::Mul(v, a);
      return v;
    };
  }
  if (op == "Min") return sym::Min;
  if (op == "Max") return sym::Max;
  if (op == "Equal" || op == "Less" || op == "Greater" || op == "LessOrEqual" ||
      op == "GreaterOrEqual") {
    return [op](const MaybeExpr& a, const MaybeExpr& b) { return CompareValues(op, a, b); };
  }
  return nullptr;
}

// a / d in floating point, for a size (or a quotient of one) divided by a positive integer d:
// the integer when d divides a constant a; else the quotient, numerator / divisor.
std::pair<MaybeExpr, int64_t> FloatQuotient(const MaybeExpr& a, int64_t a_divisor, int64_t d) {
  int64_t divisor = 0;
  if (!a || __builtin_mul_overflow(a_divisor, d, &divisor)) return {std::nullopt, 1};
  if (auto n = a->AsConstant(); n && *n % divisor == 0) return {Expr::Constant(*n / divisor), 1};
  return {a, divisor};
}

// The positive integer that a float Div divides by, when its divisor is one (a Constant 2.0,
// or a size cast to float).
std::optional<int64_t> IntegralDivisor(const OpContext& ctx, const TensorFact& b) {
  if (b.values && b.values->size() == 1) {
    const Element& e = b.values->front();
    return e.value ? e.value->AsConstant() : std::nullopt;
  }
  // A 16-bit float holds integers exactly only up to 256 (bfloat16) or 2048 (float16): sizes
  // divided in them are not the fractions this models.
  if (b.elem_type == ONNX_NAMESPACE::TensorProto::FLOAT16 ||
      b.elem_type == ONNX_NAMESPACE::TensorProto::BFLOAT16) {
    return std::nullopt;
  }
  const std::optional<std::vector<double>> floats = ConstFloats(ctx, 1);
  if (!floats || floats->size() != 1) return std::nullopt;
  const double v = floats->front();
  if (!(v >= 1 && v <= static_cast<double>(kMaxExactDivisor)) || v != std::floor(v)) {
    return std::nullopt;
  }
  return static_cast<int64_t>(v);
}

// Div in floating point of sizes by an integer: quotients kept exact for Floor, Ceil and a Cast
// to an integer to round (math.ceil(h / 2) in timm's MobileViT, TF-style "same" padding). The
// dividend's elements are integers (values) or quotients already (forms); the divisor is one
// number, so the output has the dividend's elements.
void InferFloatDiv(const OpContext& ctx, const TensorFact& a, const TensorFact& b, TensorFact& y) {
  const std::optional<int64_t> d = IntegralDivisor(ctx, b);
  if (!d || *d <= 0) return;
  std::vector<MaybeExpr> dividend;
  int64_t a_divisor = 1;
  if (a.forms && !a.forms->numerators.empty()) {
    dividend = a.forms->numerators;
    a_divisor = a.forms->divisor;
  } else if (a.values) {
    for (const Element& e : *a.values) dividend.push_back(e.value);
  } else {
    return;
  }
  std::vector<Element> vals;
  ValueForms forms;
  std::optional<int64_t> common;  // the quotients' one divisor, when they share one
  bool shared = true;
  for (const MaybeExpr& n : dividend) {
    auto [q, divisor] = FloatQuotient(n, a_divisor, *d);
    vals.push_back({divisor == 1 ? q : std::nullopt, kNoOrigin});
    forms.numerators.push_back(q);
    if (divisor == 1) continue;
    shared &= !common || *common == divisor;
    common = divisor;
  }
  y.values = std::move(vals);
  // Quotients that share a divisor are kept for rounding; integers among them as n*d / d.
  if (!common || !shared) return;
  forms.divisor = *common;
  for (size_t i = 0; i < forms.numerators.size(); ++i) {
    if ((*y.values)[i].value)
      forms.numerators[i] = sym::Mul((*y.values)[i].value, Expr::Constant(*common));
  }
  y.forms = std::make_shared<const ValueForms>(std::move(forms));
}

// The largest element of a + b, where one of them has a known largest element and the other
// is one known value: positions past + arange(seq), whose largest is past + seq - 1.
MaybeExpr ShiftedLargest(const TensorFact& a, const TensorFact& b) {
  auto single = [](const TensorFact& f) -> MaybeExpr {
    if (!f.values || f.values->size() != 1) return std::nullopt;
    return f.values->front().value;
  };
  if (const MaybeExpr l = LargestOf(a)) return sym::Add(l, single(b));
  if (const MaybeExpr l = LargestOf(b)) return sym::Add(l, single(a));
  return std::nullopt;
}

// Floor or Ceil of the quotients `x` holds; nothing when it holds none.
std::optional<std::vector<Element>> Rounded(const std::string& op, const TensorFact& x) {
  if ((op != "Floor" && op != "Ceil") || !x.forms || x.forms->numerators.empty()) {
    return std::nullopt;
  }
  const Expr d = Expr::Constant(x.forms->divisor);
  std::vector<Element> vals;
  for (const MaybeExpr& n : x.forms->numerators) {
    vals.push_back({op == "Floor" ? sym::FloorDiv(n, d) : sym::CeilDiv(n, d), kNoOrigin});
  }
  return vals;
}

bool IsComparison(const std::string& op) {
  return op == "Equal" || op == "Less" || op == "Greater" || op == "LessOrEqual" ||
         op == "GreaterOrEqual" || op == "And" || op == "Or" || op == "Xor";
}

}  // namespace

void InferUnary(OpContext& ctx) {
  const TensorFact& x = ctx.in(0);
  TensorFact& y = ctx.out(0);
  y.elem_type = x.elem_type;
  y.shape = x.shape;
  const std::string& op = ctx.node().op_type();
  if (op == "Not" || op == "IsNaN" || op == "IsInf" || op == "RegexFullMatch")
    y.elem_type = ONNX_NAMESPACE::TensorProto::BOOL;
  if (auto rounded = Rounded(op, x)) {
    y.values = std::move(rounded);
    return;
  }
  if (!x.values) return;
  if (op == "Neg" || op == "Abs" || op == "Floor" || op == "Ceil" || op == "Round" || op == "Not") {
    std::vector<Element> vals;
    for (const Element& e : *x.values) {
      MaybeExpr v;
      if (op == "Neg") {
        v = sym::Neg(e.value);
      } else if (auto c = e.value ? e.value->AsConstant() : std::nullopt) {
        if (op == "Abs") v = (*c == INT64_MIN) ? MaybeExpr() : Expr::Constant(*c < 0 ? -*c : *c);
        if (op == "Not") v = Expr::Constant(*c == 0 ? 1 : 0);
        if (op == "Floor" || op == "Ceil" || op == "Round") v = e.value;  // integral already
      } else if (op == "Floor" || op == "Ceil" || op == "Round") {
        v = e.value;
      }
      vals.push_back(Computed(v, {&e}));
    }
    y.values = std::move(vals);
  }
}

void InferElementwise(OpContext& ctx) {
  std::vector<const TensorFact*> ins;
  for (size_t i = 0; i < ctx.num_inputs(); ++i) ins.push_back(&ctx.in(i));
  if (ins.empty()) return;
  const std::string& op = ctx.node().op_type();
  TensorFact& y = ctx.out(0);
  y.elem_type = IsComparison(op) ? ONNX_NAMESPACE::TensorProto::BOOL : ins[0]->elem_type;
  if (op == "Pow" || op == "BitShift") y.elem_type = ins[0]->elem_type;
  // Before numpy broadcasting (opset 7; 8 for the variadic ops), operands either had equal
  // shapes or B was broadcast onto A with `broadcast=1, axis=k`: the output is A's shape, and
  // trailing-axis alignment would be wrong.
  const bool variadic = op == "Min" || op == "Max" || op == "Sum" || op == "Mean";
  if (ctx.opset() < (variadic ? 8 : 7)) {
    y.shape = ins[0]->shape;
    return;
  }
  auto shape = BroadcastShapes(ctx, ins);
  if (!shape) return;
  y.shape = *shape;
  if (op == "Add" && ins.size() == 2) SetLargest(y, ShiftedLargest(*ins[0], *ins[1]));
  if (op == "Div" && ins.size() == 2 && !IsIntegerType(ins[0]->elem_type)) {
    InferFloatDiv(ctx, *ins[0], *ins[1], y);
    return;
  }
  BinaryFn fn = ValueFunction(op, ins[0]->elem_type);
  if (!fn) return;
  y.values = BroadcastValues(ins, *shape, [&](const std::vector<const Element*>& args) {
    MaybeExpr v = args[0]->value;
    for (size_t k = 1; k < args.size(); ++k) v = fn(v, args[k]->value);
    return Computed(v, args);
  });
}

void InferWhere(OpContext& ctx) {
  std::vector<const TensorFact*> ins = {&ctx.in(0), &ctx.in(1), &ctx.in(2)};
  TensorFact& y = ctx.out(0);
  y.elem_type = ins[1]->elem_type ? ins[1]->elem_type : ins[2]->elem_type;
  auto shape = BroadcastShapes(ctx, ins);
  if (!shape) return;
  y.shape = *shape;
  y.values = BroadcastValues(ins, *shape, [](const std::vector<const Element*>& args) {
    auto c = args[0]->value ? args[0]->value->AsConstant() : std::nullopt;
    if (!c) return Element{};
    return *c != 0 ? *args[1] : *args[2];
  });
}

}  // namespace shapelint::infer
