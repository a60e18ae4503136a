// SL007 example-size-literal: a literal that equals a size derived from the export sizes sits
// where such a size belongs — a Slice bound of W // 2, a Gather of row T - 1, TopK's k of D // 2,
// Resize sizes of 2 * H, a pooling window as large as the example map, a pad up to the next
// multiple of 4, a Reshape to sqrt(T) x sqrt(T). The exporter evaluated int(x.size(...)) in
// Python and wrote the number; at other sizes the graph keeps computing with it, usually
// without any error.
//
// Without the export sizes (--export-dims) such a literal cannot be told from a deliberate
// x[..., :5], so the rule is silent then. With them it warns, and it is an error when a nearby
// size makes the graph fail at the node or downstream of it.
#include "example_size_literal.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "lint/rule.h"

namespace shapelint::lint {
namespace example_size_literal {
namespace {

using infer::Element;
using infer::TensorFact;

// Sentinels exporters use for "to the end" and "from the start".
constexpr int64_t kHugeBound = int64_t{1} << 31;

}  // namespace

std::vector<int64_t> RoundUpMultiples(int64_t v, int64_t d) {
  std::vector<int64_t> multiples;
  for (int64_t k = 4; k <= 64; k *= 2) {
    // v < k, so d + v overflows only where d is within k of INT64_MAX: no multiple there.
    if (v < k && d % k != 0 && d <= INT64_MAX - v && (d + v) % k == 0) multiples.push_back(k);
  }
  return multiples;
}

std::optional<Form> FormOf(const Slot& slot, int64_t d) {
  // |INT64_MIN| is no int64: such a literal is no size derived from an example.
  if (slot.literal == INT64_MIN) return std::nullopt;
  const int64_t v = std::llabs(slot.literal);
  if (v < 2 || d < 2) return std::nullopt;
  if ((slot.forms & kWhole) && v == d) return kWhole;
  if ((slot.forms & kMinusOne) && v == d - 1) return kMinusOne;
  if ((slot.forms & kHalf) && d >= 4 && (v == d / 2 || v == d / 2 + d % 2)) return kHalf;
  int64_t product = 0;
  if ((slot.forms & kDouble) && !__builtin_mul_overflow(d, 2, &product) && v == product) {
    return kDouble;
  }
  // A side of 2 (a 2 x 2 grid) is as likely a group or head count: only 3 and up.
  if ((slot.forms & kSqrt) && v >= 3 && !__builtin_mul_overflow(v, v, &product) && product == d)
    return kSqrt;
  if ((slot.forms & kRoundUp) && !RoundUpMultiples(v, d).empty()) return kRoundUp;
  return std::nullopt;
}

std::string DimText(const sym::Expr& dim) { return dim.ToString(kMaxExprText); }

std::optional<std::string> Derivation(const Slot& slot, int64_t d) {
  const int64_t v = std::llabs(slot.literal);
  const std::optional<Form> form = FormOf(slot, d);
  if (!form) return std::nullopt;
  const std::string name = DimText(slot.dim);
  const std::string term = slot.dim.AsSymbol() ? name : absl::StrCat("(", name, ")");
  switch (*form) {
    case kWhole:
      return name;
    case kMinusOne:
      return absl::StrCat(term, " - 1");
    case kHalf:
      return v == d / 2 ? absl::StrCat(term, " // 2") : absl::StrCat("ceil(", name, " / 2)");
    case kDouble:
      return absl::StrCat("2 * ", term);
    case kSqrt:
      return absl::StrCat("sqrt(", name, ")");
    case kRoundUp:
      return absl::StrCat("the pad from ", name, " up to a multiple of ",
                          RoundUpMultiples(v, d).front());
  }
  return std::nullopt;
}

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

// A literal `v` addressing `axis` of `data`, when that dim is dynamic.
void AddOne(const TensorFact* data, const std::string& operand, int64_t v, int64_t axis,
            unsigned forms, infer::OriginId origin, Place place, std::vector<Slot>& out) {
  const sym::MaybeExpr* dim = DimOf(data, axis);
  // Only dims that are input dims or polynomials in them: past a floor or a min (windows,
  // strides, padding arithmetic) a match with the example is more likely a coincidence.
  // (Slice writes INT64_MIN and INT64_MAX for "to the end": no size, and -INT64_MIN overflows.)
  if (v <= -kHugeBound || v >= kHugeBound || dim == nullptr || !*dim || (*dim)->IsConstant() ||
      !(*dim)->IsPolynomial()) {
    return;
  }
  out.push_back({operand, v, **dim, forms, origin, place.input, place.element});
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
      AddOne(data, operand, attr_values[i], axes[i], forms, infer::kNoOrigin, {}, out);
      continue;
    }
    const Element& e = (*elements)[i];
    auto v = ConstantOf(e);
    if (v && IsLiteral(analysis, e)) {
      AddOne(data, operand, *v, axes[i], forms, e.origin, {input, i}, out);
    }
  }
}

std::vector<int64_t> Iota(size_t n) {
  std::vector<int64_t> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<int64_t>(i);
  return v;
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
    AddOne(at.data, "indices", *ConstantOf(*last), axis, kMinusOne, last->origin, {1, place},
           slots);
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

// Resize's sizes, when every one of them derives from its dim: int(H) * 2, int(W) * 2 bakes
// every resized axis, and one matching size out of several is a coincidence with a constant
// output size.
std::vector<Slot> ResizeSlots(const NodeSite& at) {
  std::vector<Slot> slots;
  const auto* sizes = at.n.op_type() == "Resize" ? ValuesOf(at.analysis, at.n, 3) : nullptr;
  if (sizes == nullptr) return slots;
  AddPerAxis(at.analysis, at.data, "sizes", 3, sizes, {}, Iota(sizes->size()),
             kWhole | kHalf | kDouble, slots);
  for (const Slot& slot : slots) {
    auto d = slot.dim.Evaluate(at.analysis.example());
    if (!d || !FormOf(slot, *d)) return {};
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
    AddOne(at.data, "pads", *begin + *end, static_cast<int64_t>(a), kRoundUp,
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

// A token count folded back into a square grid: reshape(b, c, int(sqrt(T)), int(sqrt(T))). Not
// where the target's literals only regroup the input's static dims: an attention's
// [B, -1, 4, 8] splits a hidden size of 32 into heads, whatever sqrt(T) was at export.
std::vector<Slot> ReshapeSlots(const NodeSite& at) {
  std::vector<Slot> slots;
  const auto* target = ValuesOf(at.analysis, at.n, 1);
  if (target == nullptr || at.data == nullptr || !at.data->shape) return slots;
  int64_t static_elements = 1, literal_elements = 1;
  for (const auto& d : *at.data->shape) {
    const std::optional<int64_t> c = d ? d->AsConstant() : std::nullopt;
    if (c && (*c < 0 || __builtin_mul_overflow(static_elements, *c, &static_elements)))
      return slots;
  }
  for (const Element& e : *target) {
    const std::optional<int64_t> v = ConstantOf(e);
    if (v && *v >= 2 && __builtin_mul_overflow(literal_elements, *v, &literal_elements)) {
      return slots;
    }
  }
  if (literal_elements == static_elements) return slots;
  for (size_t i = 0; i < target->size(); ++i) {
    const Element& e = (*target)[i];
    auto v = ConstantOf(e);
    if (!v || *v < 2 || !IsLiteral(at.analysis, e)) continue;
    for (const auto& d : *at.data->shape) {
      if (!d || d->IsConstant() || !d->IsPolynomial()) continue;
      slots.push_back({"shape", *v, *d, kSqrt, e.origin, 1, i});
    }
  }
  return slots;
}

}  // namespace

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
  return {};
}

namespace {

// Sizes of the slot's dim (when it is one symbol) at which the literal's derivation is exact
// and eager PyTorch's own value of it would fit: the neighbouring perfect squares for sqrt(T),
// the neighbouring even sizes and k - 1 for D // 2 (TopK's k then exceeds the dim).
std::vector<SizeProbe> ExactProbes(const Slot& slot, Form form, int64_t d) {
  const auto symbol = slot.dim.AsSymbol();
  if (!symbol) return {};
  const int64_t v = std::llabs(slot.literal);
  std::vector<SizeProbe> probes;
  auto add = [&](int64_t size) {
    if (size >= 1 && size != d) probes.push_back({std::string(*symbol), size});
  };
  switch (form) {
    case kSqrt:
      add((v - 1) * (v - 1));
      add((v + 1) * (v + 1));
      break;
    case kHalf:
      add(d - 2);
      add(d + 2);
      add(v - 1);
      break;
    default:
      break;
  }
  return probes;
}

// True when a weight fixes one of the dim's symbols: a literal derived from it is then a
// property of the model (a head size, half the channels), not of the example.
bool FixedByWeight(const Analysis& analysis, const sym::Expr& dim) {
  for (const auto& s : dim.Symbols()) {
    if (analysis.FixedByWeight(s)) return true;
  }
  return false;
}

// The literal's value had the exporter traced at `size` of its dim (magnitude), where the
// derivation has one.
std::optional<int64_t> DerivedAt(const Derived& l, int64_t size) {
  const int64_t v = std::llabs(l.slot.literal);
  switch (l.form) {
    case kWhole:
      return size;
    case kMinusOne:
      return size - 1;
    case kHalf:
      return v == l.d / 2 ? size / 2 : (size + 1) / 2;
    case kDouble:
      return size <= (int64_t{1} << 61) ? std::optional<int64_t>(2 * size) : std::nullopt;
    case kSqrt: {
      for (int64_t r = 1; r <= size / r; ++r) {
        if (r * r == size) return r;
      }
      return std::nullopt;
    }
    case kRoundUp: {
      const int64_t k = RoundUpMultiples(v, l.d).front();
      return (k - size % k) % k;
    }
  }
  return std::nullopt;
}

// True when torch.export specialized every one of `symbols` to its export size: the exporter's
// own record that the trace computed with that size as a Python number.
bool AllSpecialized(const Analysis& analysis, const std::vector<std::string>& symbols) {
  if (symbols.empty()) return false;
  for (const std::string& s : symbols) {
    auto it = analysis.specialized().find(s);
    if (it == analysis.specialized().end() || analysis.example().Get(s) != it->second) {
      return false;
    }
  }
  return true;
}

// Where the graph keeps a literal that the trace would have computed otherwise: one of
// `symbols` moved from its export size (to twice it first, where a window, a half or a double
// visibly changes the output; then to the next sizes and the next perfect square), with the
// ONNX model evaluated there. Nullopt when no such size changes any literal.
std::optional<Counterexample> ChangeAwayFromExample(const Analysis& analysis, const ir::Graph& g,
                                                    int index,
                                                    const std::vector<std::string>& symbols,
                                                    const std::vector<Derived>& literals) {
  const sym::Binding base = analysis.ExampleOverWitness();
  for (const std::string& s : symbols) {
    const std::optional<int64_t> at = base.Get(s);
    if (!at || *at < 1 || *at > (int64_t{1} << 40)) continue;
    int64_t root = 1;
    while ((root + 1) * (root + 1) <= *at) ++root;
    for (int64_t size : {2 * *at, *at + 1, *at + 2, *at + 3, (root + 1) * (root + 1)}) {
      sym::Binding moved = base;
      moved.Set(s, size);
      for (const Derived& l : literals) {
        const std::optional<int64_t> d = l.slot.dim.Evaluate(moved);
        const std::optional<int64_t> traced = d ? DerivedAt(l, *d) : std::nullopt;
        if (!traced || *traced == std::llabs(l.slot.literal)) continue;
        Counterexample c = analysis.Evaluate(moved);
        if (c.failure.empty()) {
          c.failing_node = analysis.Ref(g, index);
          c.node_fails = false;
          c.failure = absl::StrCat(l.slot.operand, " is still ", l.slot.literal, " here, where ",
                                   *Derivation(l.slot, l.d), " is ",
                                   l.slot.literal < 0 ? -*traced : *traced);
        }
        return c;
      }
    }
  }
  return std::nullopt;
}

class ExampleSizeLiteral : public Rule {
 public:
  using Rule::Rule;

  void Check(const Analysis& analysis, std::vector<Finding>& out) const override {
    if (!analysis.has_example()) return;
    const ir::Graph& g = analysis.model().graph();
    for (int index : g.topological_order()) {
      // Another rule that runs reports it, with more proof.
      if (analysis.Claimed(g, index)) continue;
      std::vector<std::string> parts, symbols;
      std::vector<SizeProbe> probes;
      std::string operand;
      infer::OriginId origin = infer::kNoOrigin;
      std::vector<Derived> literals;
      for (const Slot& slot : SlotsOf(analysis, g, index)) {
        auto d = slot.dim.Evaluate(analysis.example());
        if (!d || FixedByWeight(analysis, slot.dim)) continue;
        const std::optional<Form> form = FormOf(slot, *d);
        auto how = Derivation(slot, *d);
        if (!form || !how) continue;
        // A literal counts once; one that derives from two dims is ambiguous.
        auto same = std::find_if(literals.begin(), literals.end(), [&](const Derived& l) {
          return l.slot.input == slot.input && l.slot.element == slot.element &&
                 l.slot.operand == slot.operand;
        });
        if (same == literals.end()) {
          literals.push_back({slot, *form, *d, std::nullopt});
        } else if (same->slot.dim != slot.dim) {
          same->also = slot.dim;
        }
        for (auto& p : ExactProbes(slot, *form, *d)) probes.push_back(std::move(p));
        // A negative bound counts from the end: x[..., -5:] is -(W // 2).
        std::string part = slot.literal < 0
                               ? absl::StrCat(slot.operand, " ", slot.literal, " = -(", *how, ")")
                               : absl::StrCat(slot.operand, " ", slot.literal, " = ", *how);
        absl::StrAppend(&part, " with ", DimText(slot.dim), " = ", *d, " at export");
        if (std::find(parts.begin(), parts.end(), part) != parts.end()) continue;
        parts.push_back(std::move(part));
        for (auto& s : slot.dim.Symbols()) {
          if (std::find(symbols.begin(), symbols.end(), s) == symbols.end()) symbols.push_back(s);
        }
        if (operand.empty()) operand = slot.operand;
        if (origin == infer::kNoOrigin) origin = slot.origin;
      }
      if (parts.empty()) continue;
      std::sort(symbols.begin(), symbols.end());
      const auto& node = g.node(index);
      auto counterexample = analysis.FailureNearExample(symbols, g, index, probes);
      // Without a failure, the exporter's record that every size the literal derives from was
      // a Python number in the trace is evidence of its own, shown where the literal stays.
      const bool recorded = AllSpecialized(analysis, symbols);
      Evidence evidence = Evidence::kContradiction;
      if (!counterexample && recorded) {
        counterexample = ChangeAwayFromExample(analysis, g, index, symbols, literals);
        evidence = Evidence::kExporterRecord;
      }
      Finding f = FindingAt(analysis, g, index, evidence,
                            absl::StrCat(node.op_type(), " ", absl::StrJoin(parts, "; "),
                                         ": a size computed once from the example input and "
                                         "written as a literal; at other sizes of ",
                                         absl::StrJoin(symbols, ", "), " the node still uses it"));
      f.counterexample = std::move(counterexample);
      f.attribute = operand;
      f.symbols = symbols;
      if (const infer::Origin* o = analysis.inference().OriginOf(origin);
          o != nullptr && o->kind == infer::Origin::Kind::kConstantNode && o->graph == &g &&
          o->node != index) {
        f.notes.push_back({absl::StrCat("the literal is Constant '", g.NodeLabel(o->node), "'"),
                           analysis.Ref(g, o->node)});
      } else if (o != nullptr && o->kind == infer::Origin::Kind::kInitializer) {
        f.notes.push_back(
            {absl::StrCat("the literal is initializer '", o->name, "'"), std::nullopt});
      }
      if (recorded) {
        f.notes.push_back(
            {absl::StrCat("torch.export specialized ", absl::StrJoin(symbols, ", "),
                          " to the export size (range_constraints): forward either computed "
                          "this value with int() or Python arithmetic on the size (then compute "
                          "it from the tensor's shape, as the help says), or checks the size "
                          "and accepts only this one (then declare the axis static)"),
             std::nullopt});
      }
      f.fix =
          "compute the size from the tensor inside the model (x.shape[-1] // 2 rather than "
          "int(x.size(-1)) // 2; x[:, -1] for the last row; adaptive or global pooling for a "
          "whole-map window) so that the exporter keeps it dynamic";
      if (analysis.fixes_wanted()) AttachFix(analysis, index, literals, f);
      out.push_back(std::move(f));
    }
  }

 private:
  // A failure near the example shows the literal is the example's: the fix computes it as the
  // finding says (safe). A warning has none, and the literal may be the module's own number
  // that happens to match: the same fix, but unsafe.
  static void AttachFix(const Analysis& analysis, int node, const std::vector<Derived>& literals,
                        Finding& f) {
    // The exporter's record alone does not tell an int() from a check that accepts one size,
    // whose repair is a static axis: unsafe then too.
    const Applicability applicability = f.counterexample && f.evidence == Evidence::kContradiction
                                            ? Applicability::kSafe
                                            : Applicability::kUnsafe;
    absl::StatusOr<FixIt> fix = RepairLiterals(analysis, node, applicability, literals);
    if (fix.ok()) {
      f.fix_it = *std::move(fix);
      // Both reasons for unsafe (a number of the module's own; a check that takes one size) are
      // gone where eager PyTorch ran other sizes and computed another value.
      f.fix_it->unsafe_as_hypothesis = applicability == Applicability::kUnsafe;
    } else {
      f.unfixable = std::string(fix.status().message());
    }
  }
};

}  // namespace
}  // namespace example_size_literal

std::unique_ptr<Rule> MakeExampleSizeLiteral(const RuleInfo& info) {
  return std::make_unique<example_size_literal::ExampleSizeLiteral>(info);
}

}  // namespace shapelint::lint
