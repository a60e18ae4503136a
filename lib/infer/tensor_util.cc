#include "infer/tensor_util.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "absl/strings/str_cat.h"
#include "shapelint/ir/model.h"

namespace shapelint::infer {
namespace {

using ONNX_NAMESPACE::AttributeProto;
using ONNX_NAMESPACE::TensorProto;
using sym::Expr;
using sym::MaybeExpr;

// The element count of `t` from its dims; nullopt when a dim is negative, the product
// overflows, or it is past kMaxTrackedElements.
std::optional<int64_t> TrackedCount(const TensorProto& t) {
  int64_t count = 1;
  for (int64_t d : t.dims()) {
    if (d < 0 || __builtin_mul_overflow(count, d, &count)) return std::nullopt;
  }
  if (count > kMaxTrackedElements) return std::nullopt;
  return count;
}

template <typename T, typename Repeated>
std::optional<std::vector<double>> ReadReal(const TensorProto& t, const Repeated& typed) {
  const std::optional<int64_t> tracked = TrackedCount(t);
  if (!tracked) return std::nullopt;
  const int64_t count = *tracked;
  std::vector<double> out;
  if (t.has_raw_data()) {
    const std::string& raw = t.raw_data();
    if (raw.size() != static_cast<size_t>(count) * sizeof(T)) return std::nullopt;
    for (int64_t i = 0; i < count; ++i) {
      T v;
      std::memcpy(&v, raw.data() + i * sizeof(T), sizeof(T));  // raw_data is little-endian
      out.push_back(static_cast<double>(v));
    }
    return out;
  }
  if (typed.size() != count) return std::nullopt;
  for (auto v : typed) out.push_back(static_cast<double>(v));
  return out;
}

// IEEE binary16 and bfloat16, from their bits: every value of either is a double exactly.
double HalfToDouble(uint16_t bits) {
  const int sign = (bits >> 15) != 0 ? -1 : 1;
  const int exponent = (bits >> 10) & 0x1f;
  const int mantissa = bits & 0x3ff;
  if (exponent == 0) return sign * std::ldexp(mantissa, -24);  // zero and subnormals
  if (exponent == 0x1f) {
    return mantissa == 0 ? sign * std::numeric_limits<double>::infinity()
                         : std::numeric_limits<double>::quiet_NaN();
  }
  return sign * std::ldexp(mantissa + 1024, exponent - 25);
}

double BFloat16ToDouble(uint16_t bits) {
  const uint32_t wide = static_cast<uint32_t>(bits) << 16;
  float f;
  std::memcpy(&f, &wide, sizeof(f));
  return f;
}

// A 16-bit float tensor: raw_data (2 bytes an element, little-endian) or int32_data, which holds
// each element's bits.
std::optional<std::vector<double>> ReadReal16(const TensorProto& t, double (*convert)(uint16_t)) {
  const std::optional<int64_t> tracked = TrackedCount(t);
  if (!tracked) return std::nullopt;
  const int64_t count = *tracked;
  std::vector<double> out;
  if (t.has_raw_data()) {
    const std::string& raw = t.raw_data();
    if (raw.size() != static_cast<size_t>(count) * 2) return std::nullopt;
    for (int64_t i = 0; i < count; ++i) {
      const auto lo = static_cast<uint8_t>(raw[2 * i]);
      const auto hi = static_cast<uint8_t>(raw[2 * i + 1]);
      out.push_back(convert(static_cast<uint16_t>(lo | (hi << 8))));
    }
    return out;
  }
  if (t.int32_data_size() != count) return std::nullopt;
  for (int32_t v : t.int32_data()) {
    if (v < 0 || v > 0xffff) return std::nullopt;
    out.push_back(convert(static_cast<uint16_t>(v)));
  }
  return out;
}

std::optional<std::vector<double>> ReadFloatTensor(const TensorProto& t) {
  if (t.data_location() == TensorProto::EXTERNAL) return std::nullopt;  // never opened
  switch (t.data_type()) {
    case TensorProto::FLOAT:
      return ReadReal<float>(t, t.float_data());
    case TensorProto::DOUBLE:
      return ReadReal<double>(t, t.double_data());
    case TensorProto::FLOAT16:
      return ReadReal16(t, HalfToDouble);
    case TensorProto::BFLOAT16:
      return ReadReal16(t, BFloat16ToDouble);
    default:
      return std::nullopt;
  }
}

}  // namespace

Dims WithoutNegative(Dims dims) {
  for (MaybeExpr& d : dims) {
    if (ConstantBelow(d, 0)) d = std::nullopt;
  }
  return dims;
}

std::optional<std::vector<int64_t>> ConstDims(const Dims& dims) {
  std::vector<int64_t> out;
  out.reserve(dims.size());
  for (const MaybeExpr& d : dims) {
    auto c = d ? d->AsConstant() : std::nullopt;
    if (!c || *c < 0) return std::nullopt;
    out.push_back(*c);
  }
  return out;
}

std::optional<std::vector<int64_t>> ConstDims(const TensorFact& fact) {
  if (!fact.shape) return std::nullopt;
  return ConstDims(*fact.shape);
}

std::optional<DenseValues> Dense(const TensorFact& fact) {
  if (!fact.values) return std::nullopt;
  auto dims = ConstDims(fact);
  if (!dims) return std::nullopt;
  auto count = ConstantElementCount(*fact.shape);
  if (!count || *count != static_cast<int64_t>(fact.values->size())) return std::nullopt;
  return DenseValues{*dims, &*fact.values};
}

std::vector<int64_t> Strides(const std::vector<int64_t>& dims) {
  std::vector<int64_t> s(dims.size(), 1);
  for (size_t k = dims.size(); k-- > 1;) s[k - 1] = s[k] * dims[k];
  return s;
}

std::vector<int64_t> Unravel(int64_t flat, const std::vector<int64_t>& dims) {
  std::vector<int64_t> c(dims.size(), 0);
  for (size_t k = dims.size(); k-- > 0;) {
    if (dims[k] == 0) return c;
    c[k] = flat % dims[k];
    flat /= dims[k];
  }
  return c;
}

int64_t Ravel(const std::vector<int64_t>& coords, const std::vector<int64_t>& strides) {
  int64_t flat = 0;
  for (size_t k = 0; k < coords.size(); ++k) flat += coords[k] * strides[k];
  return flat;
}

std::optional<std::vector<MaybeExpr>> ElementValues(const OpContext& ctx, size_t i) {
  if (!ctx.has_input(i) || !ctx.in(i).values) return std::nullopt;
  std::vector<MaybeExpr> out;
  for (const Element& e : *ctx.in(i).values) out.push_back(e.value);
  return out;
}

bool SameKnownShape(const TensorFact& a, const TensorFact& b) {
  if (!a.shape || !b.shape || a.shape->size() != b.shape->size()) return false;
  for (size_t i = 0; i < a.shape->size(); ++i) {
    const MaybeExpr& x = (*a.shape)[i];
    const MaybeExpr& y = (*b.shape)[i];
    if (!x || !y || *x != *y) return false;
  }
  return true;
}

std::optional<Element> SingleElement(const OpContext& ctx, size_t i) {
  if (!ctx.has_input(i) || !ctx.in(i).values || ctx.in(i).values->size() != 1) {
    return std::nullopt;
  }
  return (*ctx.in(i).values)[0];
}

bool KnownEmpty(const OpContext& ctx, size_t i) {
  if (!ctx.has_input(i)) return false;
  const TensorFact& f = ctx.in(i);
  if (f.values) return f.values->empty() && f.shape && !f.shape->empty();
  if (!f.shape) return false;
  for (const MaybeExpr& d : *f.shape) {
    if (d && d->AsConstant() == 0) return true;
  }
  return false;
}

std::optional<int64_t> ConstLength(const OpContext& ctx, size_t i) {
  if (!ctx.has_input(i)) return std::nullopt;
  const TensorFact& f = ctx.in(i);
  if (!f.shape || f.shape->size() != 1 || !(*f.shape)[0]) return std::nullopt;
  return (*f.shape)[0]->AsConstant();
}

bool RequireVector(OpContext& ctx, size_t i, std::string_view what) {
  if (!ctx.has_input(i) || !ctx.in(i).shape) return true;
  const TensorFact& operand = ctx.in(i);
  const int64_t rank = static_cast<int64_t>(operand.shape->size());
  if (rank == 1) return true;
  // ONNX Runtime reads a literal operand of any rank flat, and runs; one the graph computes it
  // refuses when it loads the model, its shape inference knowing the rank ("shape input must be
  // 1D tensor"). Only the second is a model that cannot run.
  if (operand.values && !operand.values->empty() &&
      std::all_of(operand.values->begin(), operand.values->end(), [&](const Element& e) {
        const Origin* o = ctx.origin(e.origin);
        return o != nullptr && o->IsLiteral();
      })) {
    return true;
  }
  return ctx.Require(RequirementKind::kOperandRank, Relation::kEqual, sym::Expr::Constant(rank),
                     sym::Expr::Constant(1),
                     absl::StrCat("the rank of ", ctx.node().op_type(), "'s ", std::string(what),
                                  ", which the op takes 1-D"));
}

std::optional<std::vector<int64_t>> StaticDims(const Dims& dims) {
  std::vector<int64_t> out;
  int64_t count = 1;
  for (const auto& d : dims) {
    auto c = d ? d->AsConstant() : std::nullopt;
    if (!c || *c < 0) return std::nullopt;
    out.push_back(*c);
    count *= std::min<int64_t>(*c, kMaxTrackedElements + 1);
    if (count > kMaxTrackedElements) return std::nullopt;
  }
  return out;
}

std::optional<std::vector<int64_t>> StaticDimsWithValues(const TensorFact& fact) {
  if (!fact.shape || !fact.values) return std::nullopt;
  auto dims = StaticDims(*fact.shape);
  if (!dims) return std::nullopt;
  int64_t count = 1;
  for (int64_t d : *dims) count *= d;
  if (count != static_cast<int64_t>(fact.values->size())) return std::nullopt;
  return dims;
}

std::vector<Element> GatherIndices(const std::vector<Element>& values,
                                   const std::vector<int64_t>& dims,
                                   const std::vector<std::vector<int64_t>>& kept) {
  std::vector<int64_t> strides(dims.size(), 1);
  for (int64_t a = static_cast<int64_t>(dims.size()) - 2; a >= 0; --a) {
    strides[a] = strides[a + 1] * dims[a + 1];
  }
  std::vector<Element> out;
  for (const auto& k : kept) {
    if (k.empty()) return out;
  }
  std::vector<size_t> pos(kept.size(), 0);
  while (true) {
    int64_t source = 0;
    for (size_t a = 0; a < kept.size(); ++a) source += kept[a][pos[a]] * strides[a];
    out.push_back(values[source]);
    int64_t a = static_cast<int64_t>(kept.size()) - 1;
    for (; a >= 0; --a) {
      if (++pos[a] < kept[a].size()) break;
      pos[a] = 0;
    }
    if (a < 0) return out;
  }
}

std::optional<std::vector<double>> ConstantFloats(const ir::Graph& graph, std::string_view name) {
  for (const ir::Graph* g = &graph; g != nullptr; g = g->parent()) {
    if (const TensorProto* t = g->Initializer(name)) return ReadFloatTensor(*t);
    int p = g->Producer(name);
    if (p < 0) continue;
    const auto& node = g->node(p);
    if (node.op_type() != "Constant" || !(node.domain().empty() || node.domain() == "ai.onnx")) {
      return std::nullopt;
    }
    for (int k = 0; k < node.attribute_size(); ++k) {
      const ir::AttributeRef ref = node.attribute(k);
      const AttributeProto& a = *ref;
      if (a.name() == "value" && a.type() == AttributeProto::TENSOR) return ReadFloatTensor(a.t());
      if (a.name() == "value_float" && a.type() == AttributeProto::FLOAT) {
        return std::vector<double>{a.f()};
      }
      if (a.name() == "value_floats" && a.type() == AttributeProto::FLOATS) {
        return std::vector<double>(a.floats().begin(), a.floats().end());
      }
    }
    return std::nullopt;
  }
  return std::nullopt;
}

std::optional<std::vector<double>> ConstFloats(const OpContext& ctx, size_t i) {
  if (!ctx.has_input(i)) return std::nullopt;
  if (auto ints = ctx.ConstInts(i)) {
    return std::vector<double>(ints->begin(), ints->end());
  }
  return ConstantFloats(ctx.graph(), ctx.node().input(static_cast<int>(i)));
}

std::optional<std::vector<int64_t>> NormalizeAxes(const std::vector<int64_t>& axes, int64_t rank) {
  std::vector<int64_t> out;
  for (int64_t a : axes) {
    auto n = NormalizeAxis(a, rank);
    if (!n || std::find(out.begin(), out.end(), *n) != out.end()) return std::nullopt;
    out.push_back(*n);
  }
  return out;
}

MaybeExpr BroadcastDim(OpContext& ctx, const std::vector<BroadcastOperand>& operands,
                       RequirementKind kind, absl::FunctionRef<std::string()> what, int64_t axis) {
  std::vector<BroadcastOperand> non_one;
  bool unknown = false;
  for (const BroadcastOperand& op : operands) {
    if (!op.dim) {
      unknown = true;
      continue;
    }
    if (op.dim->AsConstant() == 1) continue;
    bool seen = false;
    for (const BroadcastOperand& n : non_one) seen = seen || *n.dim == *op.dim;
    if (!seen) non_one.push_back(op);
  }
  std::string text;
  for (size_t i = 1; i < non_one.size(); ++i) {
    if (i == 1) text = what();
    // The literal side, if any, goes on the right so that blame can follow its origin.
    const BroadcastOperand* lhs = &non_one[0];
    const BroadcastOperand* rhs = &non_one[i];
    if (lhs->origin != kNoOrigin && rhs->origin == kNoOrigin) std::swap(lhs, rhs);
    ctx.Require(kind, Relation::kBroadcastable, lhs->dim, rhs->dim, text, rhs->origin, axis);
  }
  if (unknown) return std::nullopt;  // an unknown dim may be 1 or not
  if (non_one.empty()) return Expr::Constant(1);
  // Valid broadcasting leaves each dim equal to the others or 1: a constant other than 1
  // decides the result, otherwise the largest operand does. Two different constants other
  // than 1 cannot broadcast: the op fails, no dim.
  MaybeExpr constant;
  for (const BroadcastOperand& n : non_one) {
    if (!n.dim->IsConstant()) continue;
    if (constant) return std::nullopt;
    constant = n.dim;
  }
  if (constant) return constant;
  MaybeExpr result = non_one[0].dim;
  for (size_t i = 1; i < non_one.size(); ++i) result = sym::Max(result, non_one[i].dim);
  return result;
}

int64_t BroadcastSource(int64_t flat, const std::vector<int64_t>& out_shape,
                        const std::vector<int64_t>& shape) {
  int64_t index = 0, stride = 1;
  const size_t offset = out_shape.size() - shape.size();
  for (size_t k = out_shape.size(); k-- > 0;) {
    int64_t coord = out_shape[k] == 0 ? 0 : flat % out_shape[k];
    if (out_shape[k] != 0) flat /= out_shape[k];
    if (k < offset) continue;
    int64_t dim = shape[k - offset];
    if (dim != 1) index += coord * stride;
    stride *= dim;
  }
  return index;
}

OriginId AttributeOrigin(OpContext& ctx, std::string_view name) {
  return ctx.AddOrigin(
      {Origin::Kind::kAttribute, &ctx.graph(), ctx.node_index(), std::string(name)});
}

Element Computed(const MaybeExpr& value, const std::vector<const Element*>& args) {
  Element e{value, kNoOrigin};
  if (!value || !value->IsConstant()) return e;
  for (const Element* a : args) {
    if (a->origin != kNoOrigin) {
      e.origin = a->origin;
      break;
    }
  }
  return e;
}

MaybeExpr LargestOf(const TensorFact& f) { return f.forms ? f.forms->largest : std::nullopt; }

MaybeExpr DominantNonNegative(const TensorFact& f) {
  if (!f.values || f.values->empty()) return std::nullopt;
  const MaybeExpr* top = nullptr;
  for (const Element& e : *f.values) {
    if (!e.value) return std::nullopt;
    if (top == nullptr) {
      top = &e.value;
      continue;
    }
    // Keep the larger of the two where their difference has a sign at every size (>= 1: an
    // empty axis has no index to address).
    const MaybeExpr up = sym::Sub(e.value, *top);
    const MaybeExpr down = sym::Neg(up);
    if (!up || !down) return std::nullopt;
    if (sym::NeverPositive(*down)) {
      top = &e.value;
    } else if (!sym::NeverPositive(*up)) {
      return std::nullopt;
    }
  }
  if (!sym::KnownNonNegative(**top)) return std::nullopt;
  return *top;
}

void SetLargest(TensorFact& f, const MaybeExpr& largest) {
  if (!largest) return;
  ValueForms forms = f.forms ? *f.forms : ValueForms{};
  forms.largest = largest;
  f.forms = std::make_shared<const ValueForms>(std::move(forms));
}

void TruncateQuotients(const TensorFact& x, TensorFact& y) {
  if (!x.forms || x.forms->numerators.empty()) return;
  const Expr divisor = Expr::Constant(x.forms->divisor);
  std::vector<Element> vals;
  for (const MaybeExpr& n : x.forms->numerators) {
    vals.push_back(
        {n && sym::KnownNonNegative(*n) ? sym::FloorDiv(n, divisor) : std::nullopt, kNoOrigin});
  }
  y.values = std::move(vals);
  y.forms.reset();
  SetLargest(y, LargestOf(x));
}

MaybeExpr NonNegative(const MaybeExpr& len) {
  if (len && sym::KnownNonNegative(*len)) return len;
  return sym::Max(len, Expr::Constant(0));
}

void RequireIndexExtremes(OpContext& ctx, const std::vector<int64_t>& idx, size_t first,
                          size_t step, const sym::MaybeExpr& dim, int64_t axis, const char* op) {
  const TensorFact& indices = ctx.in(1);
  if (step == 0 || !indices.values || indices.values->size() != idx.size()) return;
  const auto& elements = *indices.values;
  size_t high = idx.size(), low = idx.size();  // positions of the largest and most negative
  for (size_t i = first; i < idx.size(); i += step) {
    const int64_t v = idx[i];
    if (v >= 0 && (high == idx.size() || v > idx[high])) high = i;
    if (v < 0 && (low == idx.size() || v < idx[low])) low = i;
  }
  if (high < idx.size() && idx[high] >= 1 && idx[high] < INT64_MAX) {
    ctx.Require(
        RequirementKind::kIndexBound, Relation::kAtLeast, dim, Expr::Constant(idx[high] + 1),
        absl::StrCat(op, " index ", idx[high], " on axis ", axis), elements[high].origin, axis);
  }
  if (low < idx.size() && idx[low] <= -2 && idx[low] > INT64_MIN) {
    ctx.Require(RequirementKind::kIndexBound, Relation::kAtLeast, dim, Expr::Constant(-idx[low]),
                absl::StrCat(op, " index ", idx[low], " on axis ", axis), elements[low].origin,
                axis);
  }
}

}  // namespace shapelint::infer
