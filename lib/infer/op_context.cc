#include "infer/op_context.h"

#include <cstring>

#include "absl/strings/str_cat.h"
#include "shapelint/ir/model.h"

namespace shapelint::infer {
namespace {

using ONNX_NAMESPACE::AttributeProto;
using ONNX_NAMESPACE::TensorProto;

template <typename T>
std::optional<std::vector<Element>> FromRaw(const std::string& raw, int64_t count,
                                            OriginId origin) {
  if (raw.size() != static_cast<size_t>(count) * sizeof(T)) return std::nullopt;
  std::vector<Element> out;
  out.reserve(count);
  for (int64_t i = 0; i < count; ++i) {
    T v;
    std::memcpy(&v, raw.data() + i * sizeof(T), sizeof(T));  // raw_data is little-endian
    out.push_back({sym::Expr::Constant(static_cast<int64_t>(v)), origin});
  }
  return out;
}

// Sizes computed in floating point (TorchScript's math.ceil(h / s) for 'same' padding divides
// the size by a float constant 2.0): a float that holds a whole number, within the range where
// every integer is exact in a float, is that integer; anything else is not a size.
std::optional<sym::Expr> WholeNumber(double v) {
  constexpr double kExact = 16777216.0;  // 2^24: every integer up to it is exact in a float
  if (!(v >= -kExact && v <= kExact) || v != static_cast<double>(static_cast<int64_t>(v))) {
    return std::nullopt;
  }
  return sym::Expr::Constant(static_cast<int64_t>(v));
}

template <typename T, typename Values>
std::optional<std::vector<Element>> WholeNumbers(const Values& values, OriginId origin) {
  std::vector<Element> out;
  out.reserve(values.size());
  for (T v : values) {
    std::optional<sym::Expr> e = WholeNumber(static_cast<double>(v));
    if (!e) return std::nullopt;
    out.push_back({*e, origin});
  }
  return out;
}

// A float or double tensor every element of which is a whole number (WholeNumber); nullopt
// otherwise, and for other types.
std::optional<std::vector<Element>> ReadWholeFloatTensor(const TensorProto& t, int64_t count,
                                                         OriginId origin) {
  const bool is_float = t.data_type() == TensorProto::FLOAT;
  if (!is_float && t.data_type() != TensorProto::DOUBLE) return std::nullopt;
  if (t.has_raw_data()) {
    const size_t width = is_float ? sizeof(float) : sizeof(double);
    if (t.raw_data().size() != static_cast<size_t>(count) * width) return std::nullopt;
    std::vector<double> values(count);
    for (int64_t i = 0; i < count; ++i) {
      if (is_float) {
        float v;
        std::memcpy(&v, t.raw_data().data() + i * width, width);  // little-endian
        values[i] = v;
      } else {
        std::memcpy(&values[i], t.raw_data().data() + i * width, width);
      }
    }
    return WholeNumbers<double>(values, origin);
  }
  if (is_float) {
    if (t.float_data_size() != count) return std::nullopt;
    return WholeNumbers<float>(t.float_data(), origin);
  }
  if (t.double_data_size() != count) return std::nullopt;
  return WholeNumbers<double>(t.double_data(), origin);
}

}  // namespace

bool Holds(Relation relation, int64_t lhs, int64_t rhs) {
  switch (relation) {
    case Relation::kEqual:
      return lhs == rhs;
    case Relation::kBroadcastable:
      return lhs == rhs || lhs == 1 || rhs == 1;
    case Relation::kDivisible:
      return rhs != 0 && lhs % rhs == 0;
    case Relation::kAtLeast:
      return lhs >= rhs;
  }
  return false;
}

const TensorFact& OpContext::in(size_t i) const {
  static const TensorFact kUnknown;
  return has_input(i) ? *inputs_[i] : kUnknown;
}

AttributeProto* AttributeScratch::Take(size_t serialized_size) {
  // A message keeps the capacity of the largest value parsed into it until it is freed.
  constexpr size_t kKeptBytes = 64 * 1024;
  if (used_ == messages_.size()) messages_.push_back({std::make_unique<AttributeProto>()});
  Message& m = messages_[used_++];
  m.large = m.large || serialized_size > kKeptBytes;
  return m.proto.get();
}

void AttributeScratch::GiveBack(size_t used) {
  for (; used_ > used; --used_) {
    Message& m = messages_[used_ - 1];
    if (m.large) m = {std::make_unique<AttributeProto>()};
  }
}

const AttributeProto* OpContext::AttrAt(int k) const {
  const ir::Node n = node();
  // An attribute the model holds parsed (text models, subgraphs) needs no message.
  const size_t size = n.attribute_serialized_size(k);
  ir::AttributeRef a =
      n.attribute(k, scratch_ != nullptr && size > 0 ? scratch_->Take(size) : nullptr);
  if (!a) return nullptr;
  held_.push_back(std::move(a));
  return held_.back().get();
}

const AttributeProto* OpContext::Attr(std::string_view name) const {
  for (const ir::AttributeRef& a : held_) {
    if (a->name() == name) return a.get();
  }
  const ir::Node n = node();
  for (int k = 0; k < n.attribute_size(); ++k) {
    if (n.attribute_name(k) == name) return AttrAt(k);
  }
  return nullptr;
}

template <typename T>
std::optional<T> OpContext::Checked(ir::AttributeValue<T> read, std::string_view name,
                                    AttributeProto::AttributeType expected) const {
  if (read.has_other_type() && bad_attribute_.empty()) {
    bad_attribute_ =
        absl::StrCat("attribute '", std::string(name), "' is ",
                     AttributeProto::AttributeType_Name(read.other_type()), " where ",
                     node().op_type(), " expects ", AttributeProto::AttributeType_Name(expected));
  }
  return std::move(read).ToOptional();
}

std::optional<int64_t> OpContext::AttrInt(std::string_view name) const {
  return Checked(node().IntAttribute(name), name, AttributeProto::INT);
}

int64_t OpContext::AttrInt(std::string_view name, int64_t fallback) const {
  return AttrInt(name).value_or(fallback);
}

std::optional<std::vector<int64_t>> OpContext::AttrInts(std::string_view name) const {
  return Checked(node().IntsAttribute(name), name, AttributeProto::INTS);
}

std::optional<std::string> OpContext::AttrString(std::string_view name) const {
  std::optional<std::string_view> s =
      Checked(node().StringAttribute(name), name, AttributeProto::STRING);
  if (!s) return std::nullopt;
  return std::string(*s);
}

std::optional<float> OpContext::AttrFloat(std::string_view name) const {
  return Checked(node().FloatAttribute(name), name, AttributeProto::FLOAT);
}

const TensorProto* OpContext::AttrTensor(std::string_view name) const {
  // Parsed, when the model keeps it serialized, into a message that lives as long as the
  // context: one of the scratch stack's, as AttrAt takes them, or one of its own.
  std::unique_ptr<AttributeProto> owned;
  AttributeProto* parsed = nullptr;
  auto parse_into = [&](size_t size) {
    if (scratch_ != nullptr) {
      parsed = scratch_->Take(size);
    } else {
      owned = std::make_unique<AttributeProto>();
      parsed = owned.get();
    }
    return parsed;
  };
  auto tensor = Checked(node().TensorAttribute(name, parse_into), name, AttributeProto::TENSOR);
  if (parsed != nullptr && tensor) {
    // Held with the other attributes parsed for this op, where Attr() finds it again.
    held_.push_back(owned != nullptr
                        ? ir::AttributeRef(std::move(owned))
                        : ir::AttributeRef(static_cast<const AttributeProto*>(parsed)));
  }
  return tensor.value_or(nullptr);
}

sym::Expr OpContext::FreshSymbol(std::string_view what) {
  // Quoted when printed if the node name is not an identifier; unique per node and output.
  std::string where = graph_.parent() == nullptr ? "" : graph_.path() + "/";
  return sym::Expr::Symbol(
      absl::StrCat(where, graph_.NodeLabel(node_index_), ":", std::string(what)));
}

std::optional<std::vector<int64_t>> OpContext::ConstInts(size_t i) const {
  const TensorFact& f = in(i);
  if (!f.values) return std::nullopt;
  std::vector<int64_t> out;
  out.reserve(f.values->size());
  for (const Element& e : *f.values) {
    auto c = e.value ? e.value->AsConstant() : std::nullopt;
    if (!c) return std::nullopt;
    out.push_back(*c);
  }
  return out;
}

OriginId OpContext::AddOrigin(Origin origin) {
  inference_.origins.push_back(std::move(origin));
  return static_cast<OriginId>(inference_.origins.size() - 1);
}

bool OpContext::Require(RequirementKind kind, Relation relation, const sym::MaybeExpr& lhs,
                        const sym::MaybeExpr& rhs, std::string what, OriginId origin,
                        int64_t axis) {
  if (!lhs || !rhs) return true;  // unknown: nothing to check, nothing to claim
  // An operand's rank is checked when ONNX Runtime loads the model, in every branch of an If
  // whichever runs: a wrong one refuses the whole file.
  if (!record_requirements_ && kind != RequirementKind::kOperandRank) return true;
  if (*lhs == *rhs) return true;
  auto l = lhs->AsConstant();
  auto r = rhs->AsConstant();
  if (relation == Relation::kBroadcastable && (l == 1 || r == 1)) return true;
  if (relation == Relation::kDivisible && r == 1) return true;
  bool holds = true;
  if (l && r) {
    holds = Holds(relation, *l, *r);
    if (holds) return true;
  }
  Requirement req;
  req.kind = kind;
  req.relation = relation;
  req.graph = &graph_;
  req.node = node_index_;
  req.value = node().output_size() > 0 ? node().output(0) : "";
  req.axis = axis;
  req.lhs = *lhs;
  req.rhs = *rhs;
  req.origin = origin;
  req.what = std::move(what);
  inference_.requirements.push_back(std::move(req));
  return holds;
}

void OpContext::Unsupported(std::string_view reason) {
  for (const EngineNote& n : inference_.notes) {
    if (n.node >= 0 && n.graph != nullptr && n.graph->node(n.node).op_type() == node().op_type()) {
      return;
    }
  }
  AddEngineNote(inference_, {&graph_, node_index_, std::string(reason)});
}

void OpContext::Note(std::string message) {
  AddEngineNote(inference_, {&graph_, node_index_, std::move(message)});
}

bool IsIntegerType(int32_t t) {
  switch (t) {
    case TensorProto::INT8:
    case TensorProto::INT16:
    case TensorProto::INT32:
    case TensorProto::INT64:
    case TensorProto::UINT8:
    case TensorProto::UINT16:
    case TensorProto::UINT32:
    case TensorProto::UINT64:
    case TensorProto::BOOL:
      return true;
    default:
      return false;
  }
}

sym::MaybeExpr Product(const Dims& dims, size_t begin, size_t end) {
  sym::MaybeExpr p = sym::Expr::Constant(1);
  for (size_t i = begin; i < dims.size() && i < end; ++i) p = sym::Mul(p, dims[i]);
  return p;
}

std::optional<int64_t> NormalizeAxis(int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= rank) return std::nullopt;
  return axis < 0 ? axis + rank : axis;
}

std::optional<int64_t> ConstantElementCount(const Dims& dims) {
  int64_t n = 1;
  for (const auto& d : dims) {
    auto c = d ? d->AsConstant() : std::nullopt;
    if (!c || *c < 0 || __builtin_mul_overflow(n, *c, &n)) return std::nullopt;
  }
  return n;
}

std::optional<std::vector<Element>> ReadSmallValues(const TensorProto& t, OriginId origin) {
  if (t.data_location() == TensorProto::EXTERNAL) return std::nullopt;  // never opened
  int64_t count = 1;
  for (int64_t d : t.dims()) {
    if (d < 0 || __builtin_mul_overflow(count, d, &count)) return std::nullopt;
  }
  if (count > kMaxTrackedElements) return std::nullopt;
  if (!IsIntegerType(t.data_type())) return ReadWholeFloatTensor(t, count, origin);
  const bool raw = t.has_raw_data();
  std::vector<Element> out;
  switch (t.data_type()) {
    case TensorProto::INT64:
      if (raw) return FromRaw<int64_t>(t.raw_data(), count, origin);
      if (t.int64_data_size() != count) return std::nullopt;
      for (int64_t v : t.int64_data()) out.push_back({sym::Expr::Constant(v), origin});
      return out;
    case TensorProto::INT32:
      if (raw) return FromRaw<int32_t>(t.raw_data(), count, origin);
      break;
    case TensorProto::INT16:
      if (raw) return FromRaw<int16_t>(t.raw_data(), count, origin);
      break;
    case TensorProto::INT8:
      if (raw) return FromRaw<int8_t>(t.raw_data(), count, origin);
      break;
    case TensorProto::UINT8:
    case TensorProto::BOOL:
      if (raw) return FromRaw<uint8_t>(t.raw_data(), count, origin);
      break;
    case TensorProto::UINT16:
      if (raw) return FromRaw<uint16_t>(t.raw_data(), count, origin);
      break;
    case TensorProto::UINT32:
      if (raw) return FromRaw<uint32_t>(t.raw_data(), count, origin);
      if (t.uint64_data_size() != count) return std::nullopt;
      for (uint64_t v : t.uint64_data()) {
        out.push_back({sym::Expr::Constant(static_cast<int64_t>(v)), origin});
      }
      return out;
    default:
      return std::nullopt;
  }
  // Small integer types other than int64 share int32_data when not raw.
  if (t.int32_data_size() != count) return std::nullopt;
  for (int32_t v : t.int32_data()) out.push_back({sym::Expr::Constant(v), origin});
  return out;
}

std::optional<std::string> TensorDefect(const TensorProto& t) {
  int64_t count = 1;
  for (int64_t d : t.dims()) {
    if (d < 0) return absl::StrCat("has the negative dim ", d);
    if (__builtin_mul_overflow(count, d, &count)) return "has more elements than int64 counts";
  }
  if (!t.has_raw_data() || t.data_location() == TensorProto::EXTERNAL) return std::nullopt;
  int64_t size = 0;
  switch (t.data_type()) {
    case TensorProto::BOOL:
    case TensorProto::INT8:
    case TensorProto::UINT8:
      size = 1;
      break;
    case TensorProto::INT16:
    case TensorProto::UINT16:
    case TensorProto::FLOAT16:
    case TensorProto::BFLOAT16:
      size = 2;
      break;
    case TensorProto::INT32:
    case TensorProto::UINT32:
    case TensorProto::FLOAT:
      size = 4;
      break;
    case TensorProto::INT64:
    case TensorProto::UINT64:
    case TensorProto::DOUBLE:
    case TensorProto::COMPLEX64:
      size = 8;
      break;
    case TensorProto::COMPLEX128:
      size = 16;
      break;
    default:
      return std::nullopt;  // packed 4-bit and 8-bit float types: not checked
  }
  int64_t bytes = 0;
  if (__builtin_mul_overflow(count, size, &bytes) ||
      static_cast<uint64_t>(bytes) != t.raw_data().size()) {
    return absl::StrCat("holds ", t.raw_data().size(), " bytes of raw data where its dims ask for ",
                        count, " elements of ", size, " bytes");
  }
  return std::nullopt;
}

TensorFact FactFromTensor(const TensorProto& t, OriginId origin) {
  TensorFact f;
  f.elem_type = t.data_type();
  Dims dims;
  for (int64_t d : t.dims()) {
    if (d < 0) {
      dims.push_back(std::nullopt);
    } else {
      dims.push_back(sym::Expr::Constant(d));
    }
  }
  f.shape = std::move(dims);
  // Integers, and floats that hold whole numbers (sizes computed in floating point).
  f.values = ReadSmallValues(t, origin);
  return f;
}

}  // namespace shapelint::infer
