// SL007's slot readers: for each op, the literals a node holds where a size belongs and the dims
// they address (a Slice's bounds, a Gather's last index, TopK's k, Resize's sizes, one-sided
// pads, a whole-map window, a Reshape to a square grid, a sampling grid's sides). Private to the
// rule (example_size_literal.h).
#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "example_size_literal.h"
#include "lint/provenance.h"

namespace shapelint::lint {
namespace example_size_literal {
namespace {

using infer::Element;
using infer::TensorFact;

// Sentinels exporters use for "to the end" and "from the start".
constexpr int64_t kHugeBound = int64_t{1} << 31;

}  // namespace

const std::vector<Element>* ValuesOf(const Analysis& analysis, ir::Node n, int input) {
  if (input >= n.input_size() || n.input(input).empty()) return nullptr;
  const TensorFact* f = analysis.inference().Find(n.input(input));
  return f != nullptr && f->values ? &*f->values : nullptr;
}

std::optional<int64_t> ConstantOf(const Element& e) {
  return e.value ? e.value->AsConstant() : std::nullopt;
}

std::vector<int64_t> IntsAttr(ir::Node n, std::string_view name) {
  return n.IntsAttribute(name).value_or({});
}

std::optional<int64_t> IntAttr(ir::Node n, std::string_view name) {
  return n.IntAttribute(name).ToOptional();
}

namespace {

bool IsLiteral(const Analysis& analysis, const Element& e) {
  const infer::Origin* o = analysis.inference().OriginOf(e.origin);
  return o != nullptr && o->IsLiteral();
}

const sym::MaybeExpr* DimOf(const TensorFact* data, int64_t axis) {
  if (data == nullptr || !data->shape) return nullptr;
  const int64_t rank = data->rank();
  if (axis < 0) axis += rank;
  if (axis < 0 || axis >= rank) return nullptr;
  return &(*data->shape)[axis];
}

// Where a literal sits: input `input` of the node (-1: an attribute), at `element`.
struct Place {
  int input = -1;
  size_t element = 0;
};

// A dim that is the max of polynomials equal at the example: the broadcast of two sizes the
// engine cannot prove equal (a batch doubled on each side of an Add, max(2*e, 2*x)), which is
// either size wherever the operands agree, as they do where the graph runs. nullopt otherwise.
std::optional<sym::Expr> EqualBroadcast(const sym::Expr& dim, const sym::Binding& example) {
  const sym::PolynomialParts p = sym::Decompose(dim);
  if (p.constant != 0 || p.terms.size() != 1 || p.terms[0].coeff != 1 ||
      p.terms[0].factors.size() != 1 || p.terms[0].factors[0].second != 1) {
    return std::nullopt;
  }
  const sym::AtomParts& atom = p.terms[0].factors[0].first;
  if (atom.kind != sym::AtomParts::Kind::kMax || atom.args.empty()) return std::nullopt;
  std::optional<int64_t> value;
  for (const sym::Expr& a : atom.args) {
    if (!a.IsPolynomial() || a.IsConstant()) return std::nullopt;
    const std::optional<int64_t> v = a.Evaluate(example);
    if (!v || (value && *v != *value)) return std::nullopt;
    value = v;
  }
  return atom.args[0];
}

// A literal `v` addressing `axis` of `data`, when that dim is dynamic.
void AddOne(const Analysis& analysis, const TensorFact* data, const std::string& operand, int64_t v,
            int64_t axis, unsigned forms, infer::OriginId origin, Place place,
            std::vector<Slot>& out) {
  const sym::MaybeExpr* dim = DimOf(data, axis);
  // Past a floor or a min (windows, strides, padding arithmetic) a match with the example is
  // more likely a coincidence: such a slot is marked, and only torch.export's record derives it.
  // (Slice writes INT64_MIN and INT64_MAX for "to the end": no size, and -INT64_MIN overflows.)
  if (v <= -kHugeBound || v >= kHugeBound || dim == nullptr || !*dim || (*dim)->IsConstant()) {
    return;
  }
  sym::Expr d = **dim;
  if (!d.IsPolynomial()) {
    if (std::optional<sym::Expr> one = EqualBroadcast(d, analysis.example())) d = *one;
  }
  const bool polynomial = d.IsPolynomial();
  out.push_back(
      {operand, v, d, polynomial ? forms : 0u, origin, place.input, place.element, polynomial});
}

// The literals of input `input` of the node, `elements` (or of an attribute's `attr_values`
// when `elements` is null), the i-th addressing axis `axes[i]` of `data`.
void AddPerAxis(const Analysis& analysis, const TensorFact* data, const std::string& operand,
                int input, const std::vector<Element>* elements,
                const std::vector<int64_t>& attr_values, const std::vector<int64_t>& axes,
                unsigned forms, std::vector<Slot>& out) {
  const size_t n = elements != nullptr ? elements->size() : attr_values.size();
  for (size_t i = 0; i < n && i < axes.size(); ++i) {
    if (elements == nullptr) {
      AddOne(analysis, data, operand, attr_values[i], axes[i], forms, infer::kNoOrigin, {}, out);
      continue;
    }
    const Element& e = (*elements)[i];
    auto v = ConstantOf(e);
    if (v && IsLiteral(analysis, e)) {
      AddOne(analysis, data, operand, *v, axes[i], forms, e.origin, {input, i}, out);
    }
  }
}

std::vector<int64_t> Iota(size_t n) {
  std::vector<int64_t> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<int64_t>(i);
  return v;
}

// True when every slot's literal derives from its dim's export size: a literal that must come
// with the others (Resize's sizes, a grid's sides), where one match of several is a
// coincidence with a constant.
bool AllDerive(const Analysis& analysis, const std::vector<Slot>& slots) {
  return std::all_of(slots.begin(), slots.end(), [&](const Slot& slot) {
    const std::optional<int64_t> d = slot.dim.Evaluate(analysis.example());
    return d && FormOf(slot, *d);
  });
}

// What the slot readers of one node share.
struct NodeSite {
  const Analysis& analysis;
  ir::Node n;
  const TensorFact* data;  // the node's first input, which the literals address
  int64_t opset;
};

// The bounds of a Slice. A negative bound counts from the end, which adapts to the size: only
// its magnitude can be a frozen size (x[..., -5:] for the last W // 2).
std::vector<Slot> SliceSlots(const NodeSite& at) {
  constexpr unsigned kForms = kWhole | kMinusOne | kHalf;
  std::vector<Slot> slots;
  if (at.opset < 10) {
    const auto starts = IntsAttr(at.n, "starts");
    std::vector<int64_t> axes = IntsAttr(at.n, "axes");
    if (axes.empty()) axes = Iota(starts.size());
    AddPerAxis(at.analysis, at.data, "starts", -1, nullptr, starts, axes, kForms, slots);
    AddPerAxis(at.analysis, at.data, "ends", -1, nullptr, IntsAttr(at.n, "ends"), axes, kForms,
               slots);
    return slots;
  }
  const auto* starts = ValuesOf(at.analysis, at.n, 1);
  const auto* ends = ValuesOf(at.analysis, at.n, 2);
  const auto* axes_v = ValuesOf(at.analysis, at.n, 3);
  std::vector<int64_t> axes;
  if (axes_v != nullptr) {
    for (const auto& e : *axes_v) {
      auto a = ConstantOf(e);
      if (!a) return slots;
      axes.push_back(*a);
    }
  } else {
    axes = Iota(starts != nullptr ? starts->size() : 0);
  }
  AddPerAxis(at.analysis, at.data, "starts", 1, starts, {}, axes, kForms, slots);
  AddPerAxis(at.analysis, at.data, "ends", 2, ends, {}, axes, kForms, slots);
  return slots;
}

// The largest index of a Gather only: arange(0, T, 2) folded to [0, 2, 4] ends at T - 1.
std::vector<Slot> GatherSlots(const NodeSite& at) {
  std::vector<Slot> slots;
  const auto* indices = ValuesOf(at.analysis, at.n, 1);
  if (indices == nullptr) return slots;
  const int64_t axis = IntAttr(at.n, "axis").value_or(0);
  const Element* last = nullptr;
  size_t place = 0;
  for (size_t i = 0; i < indices->size(); ++i) {
    auto v = ConstantOf((*indices)[i]);
    if (v && *v >= 0 && (last == nullptr || *v > *ConstantOf(*last))) {
      last = &(*indices)[i];
      place = i;
    }
  }
  if (last != nullptr && IsLiteral(at.analysis, *last)) {
    AddOne(at.analysis, at.data, "indices", *ConstantOf(*last), axis, kMinusOne, last->origin,
           {1, place}, slots);
  }
  return slots;
}

std::vector<Slot> TopKSlots(const NodeSite& at) {
  constexpr unsigned kForms = kWhole | kMinusOne | kHalf;
  std::vector<Slot> slots;
  const int64_t axis = IntAttr(at.n, "axis").value_or(-1);
  if (at.opset >= 10) {
    AddPerAxis(at.analysis, at.data, "k", 1, ValuesOf(at.analysis, at.n, 1), {}, {axis}, kForms,
               slots);
  } else if (auto k = IntAttr(at.n, "k")) {
    AddPerAxis(at.analysis, at.data, "k", -1, nullptr, {*k}, {axis}, kForms, slots);
  }
  return slots;
}

// Resize's sizes, derived only when every one of them derives from its dim: int(H) * 2,
// int(W) * 2 bakes every resized axis, and one matching size out of several is a coincidence
// with a constant output size.
std::vector<Slot> ResizeSlots(const NodeSite& at) {
  std::vector<Slot> slots;
  const auto* sizes = at.n.op_type() == "Resize" ? ValuesOf(at.analysis, at.n, 3) : nullptr;
  if (sizes == nullptr) return slots;
  AddPerAxis(at.analysis, at.data, "sizes", 3, sizes, {}, Iota(sizes->size()),
             kWhole | kHalf | kDouble, slots);
  // Where they do not all derive, only the node's recorded line can say they were computed
  // from sizes (int(x.shape[2] * 1.5)): no form applies.
  if (!AllDerive(at.analysis, slots)) {
    for (Slot& slot : slots) slot.forms = 0;
  }
  return slots;
}

// One-sided padding: F.pad(x, (0, p)) to reach a multiple of a window size.
std::vector<Slot> PadSlots(const NodeSite& at) {
  constexpr int64_t kPadsInput = 11;  // the opset from which pads are an input
  std::vector<Slot> slots;
  const auto* pads = at.opset >= kPadsInput ? ValuesOf(at.analysis, at.n, 1) : nullptr;
  const std::vector<int64_t> attr =
      at.opset < kPadsInput ? IntsAttr(at.n, "pads") : std::vector<int64_t>{};
  const size_t count = pads != nullptr ? pads->size() : attr.size();
  if (at.data == nullptr || !at.data->shape || count != 2 * at.data->shape->size()) return slots;
  const size_t rank = at.data->shape->size();
  auto pad = [&](size_t i) -> std::optional<int64_t> {
    if (pads == nullptr) return attr[i];
    return IsLiteral(at.analysis, (*pads)[i]) ? ConstantOf((*pads)[i]) : std::nullopt;
  };
  for (size_t a = 0; a < rank; ++a) {
    auto begin = pad(a), end = pad(a + rank);
    if (!begin || !end || (*begin != 0) == (*end != 0)) continue;
    const size_t side = *begin != 0 ? a : a + rank;
    AddOne(at.analysis, at.data, "pads", *begin + *end, static_cast<int64_t>(a), kRoundUp,
           pads != nullptr ? (*pads)[side].origin : infer::kNoOrigin,
           pads != nullptr ? Place{1, side} : Place{}, slots);
  }
  return slots;
}

// A window as large as the whole example map: F.avg_pool2d(x, (int(H), int(W))), when every
// spatial dim is dynamic.
std::vector<Slot> PoolSlots(const NodeSite& at) {
  constexpr size_t kSpatialBegin = 2;  // batch and channels come first
  const auto kernel = IntsAttr(at.n, "kernel_shape");
  if (at.data == nullptr || !at.data->shape ||
      kernel.size() + kSpatialBegin != at.data->shape->size()) {
    return {};
  }
  std::vector<Slot> window;
  std::vector<int64_t> spatial;
  for (size_t i = 0; i < kernel.size(); ++i) {
    spatial.push_back(static_cast<int64_t>(i + kSpatialBegin));
  }
  AddPerAxis(at.analysis, at.data, "kernel_shape", -1, nullptr, kernel, spatial, kWhole, window);
  if (window.size() != kernel.size()) return {};
  return window;
}

// A sampling grid as large as the whole input map: F.grid_sample over a grid built from
// torch.linspace(-1, 1, int(h)) is folded into a constant of the example's height and width,
// so the output keeps that size at every input size. The literals are the grid's dims (its
// shape, not its values), when every spatial dim of the input is dynamic and matches.
std::vector<Slot> GridSampleSlots(const NodeSite& at) {
  constexpr size_t kSpatialBegin = 2;  // data: batch and channels first; grid: batch first
  const TensorFact* grid =
      at.n.input_size() > 1 ? at.analysis.inference().Find(at.n.input(1)) : nullptr;
  if (at.data == nullptr || !at.data->shape || grid == nullptr || !grid->shape ||
      at.data->shape->size() != grid->shape->size() || grid->shape->size() <= kSpatialBegin) {
    return {};
  }
  const size_t spatial = grid->shape->size() - kSpatialBegin;
  std::vector<Slot> sides;
  for (size_t i = 0; i < spatial; ++i) {
    const sym::MaybeExpr& side = (*grid->shape)[i + 1];
    const std::optional<int64_t> v = side ? side->AsConstant() : std::nullopt;
    if (!v) return {};
    AddOne(at.analysis, at.data, "grid", *v, static_cast<int64_t>(i + kSpatialBegin), kWhole,
           infer::kNoOrigin, {1, i}, sides);
  }
  if (sides.size() != spatial || !AllDerive(at.analysis, sides)) return {};
  return sides;
}

// A token count folded back into a square grid: reshape(b, c, int(sqrt(T)), int(sqrt(T))). Not
// where the target's literals only regroup the input's static content: an attention's
// [B, -1, 4, 8] splits a hidden size of 32 into heads, whatever sqrt(T) was at export, and so
// do DeBERTa's [B, T, 4, -1] of [B, T, 32] and [-1, 4, T, T] of [4 * B, T, T] (4 heads at 16
// tokens): the input's element count divided by the target's dims from the input's shape and
// its literals is a polynomial, which the -1 takes (32 * B * T / (4 * B * T) = 8). A literal
// that stands for sqrt(T) leaves T / 4 there, no polynomial.
// On a recorded line that takes int() of a size, the literal may be any size the line computed
// from the example (d.view(b, int(d.size(1) / 2), -1) holds T / 2), not only a square root: the
// record says the line turned a size into a number (one the line writes is the module's, which
// the rule leaves out for every slot).
std::vector<Slot> ReshapeSlots(const NodeSite& at) {
  std::vector<Slot> slots;
  const auto* target = ValuesOf(at.analysis, at.n, 1);
  if (target == nullptr || at.data == nullptr || !at.data->shape) return slots;
  int64_t static_elements = 1, literal_elements = 1;
  sym::MaybeExpr count = sym::Expr::Constant(1), taken = sym::Expr::Constant(1);
  bool infers = false;
  for (const auto& d : *at.data->shape) {
    const std::optional<int64_t> c = d ? d->AsConstant() : std::nullopt;
    if (c && (*c < 0 || __builtin_mul_overflow(static_elements, *c, &static_elements)))
      return slots;
    count = sym::Mul(count, d);
  }
  // A 0 copies the input's dim in its place (Reshape without allowzero, as exporters write it).
  const bool zero_copies = at.n.IntAttribute("allowzero").value_or(0) == 0;
  for (size_t i = 0; i < target->size(); ++i) {
    const Element& e = (*target)[i];
    const std::optional<int64_t> v = ConstantOf(e);
    if (v && *v >= 2 && __builtin_mul_overflow(literal_elements, *v, &literal_elements)) {
      return slots;
    }
    if (v == -1) {
      infers = true;
    } else if (v == 0) {
      taken = zero_copies && i < at.data->shape->size() ? sym::Mul(taken, (*at.data->shape)[i])
                                                        : std::nullopt;
    } else {
      taken = sym::Mul(taken, e.value);
    }
  }
  if (literal_elements == static_elements) return slots;
  if (infers && sym::ExactDiv(count, taken)) return slots;
  const std::optional<SourceLocation> line = SourceOf(at.n);
  const bool int_line = line && TakesIntOfSize(line->code);
  for (size_t i = 0; i < target->size(); ++i) {
    const Element& e = (*target)[i];
    auto v = ConstantOf(e);
    if (!v || *v < 2 || !IsLiteral(at.analysis, e)) continue;
    const unsigned forms = kSqrt | (int_line ? kWhole | kHalf | kDouble : 0U);
    for (const auto& d : *at.data->shape) {
      if (!d || d->IsConstant() || !d->IsPolynomial()) continue;
      slots.push_back({"shape", *v, *d, forms, e.origin, 1, i});
    }
  }
  return slots;
}

}  // namespace

// The map resized back to the input's own size after strided layers (F.interpolate(head(x),
// size=(int(H), int(W)))). One axis alone could be any constant.
bool ResizedBackToInput(const Analysis& analysis, ir::Node node, const std::vector<Slot>& slots) {
  if ((node.op_type() != "Resize" && node.op_type() != "Upsample") || slots.size() < 2) {
    return false;
  }
  return std::all_of(slots.begin(), slots.end(), [&](const Slot& slot) {
    if (slot.polynomial || slot.operand != "sizes") return false;
    const std::vector<std::string> own = slot.dim.Symbols();
    if (own.size() != 1) return false;
    const std::optional<int64_t> size = analysis.example().Get(own[0]);
    return size && *size == slot.literal;
  });
}

std::vector<Slot> SlotsOf(const Analysis& analysis, const ir::Graph& g, int index) {
  const ir::Node n = g.node(index);
  if (!n.domain().empty() && n.domain() != "ai.onnx") return {};
  const NodeSite at{analysis, n,
                    n.input_size() > 0 ? analysis.inference().Find(n.input(0)) : nullptr,
                    analysis.model().OpsetVersion("")};
  const std::string& op = n.op_type();
  if (op == "Slice") return SliceSlots(at);
  if (op == "Gather") return GatherSlots(at);
  if (op == "TopK") return TopKSlots(at);
  if (op == "Resize" || op == "Upsample") return ResizeSlots(at);
  if (op == "Pad") return PadSlots(at);
  if (op == "AveragePool" || op == "MaxPool" || op == "LpPool") return PoolSlots(at);
  if (op == "Reshape") return ReshapeSlots(at);
  if (op == "GridSample") return GridSampleSlots(at);
  return {};
}

}  // namespace example_size_literal
}  // namespace shapelint::lint
