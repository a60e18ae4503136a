// SL007 example-size-literal: a literal that equals a size derived from the export sizes sits
// where such a size belongs — a Slice bound of W // 2, a Gather of row T - 1, TopK's k of D // 2,
// Resize sizes of 2 * H, a pooling window as large as the example map, a pad up to the next
// multiple of 4, a Reshape to sqrt(T) x sqrt(T). The exporter evaluated int(x.size(...)) in
// Python and wrote the number; at other sizes the graph keeps computing with it, usually
// without any error.
//
// Without the export sizes (--export-dims) such a literal cannot be told from a deliberate
// x[..., :5], so the rule is silent then, except where the node's recorded line takes int() of a
// size (a hypothesis: UnrecordedOnLine). With them it warns, and it is an error when a nearby
// size makes the graph fail at the node or downstream of it.
#include "example_size_literal.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <map>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "baked_literal.h"
#include "lint/literals.h"
#include "lint/provenance.h"
#include "lint/rule.h"

namespace shapelint::lint {
namespace example_size_literal {
namespace {

using infer::Element;

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
    case kRecordedLine:
    case kSpecializedSize:
    case kInputSize:
      return std::nullopt;  // no formula: the finding names the record or the size instead
  }
  return std::nullopt;
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
    case kRecordedLine:     // what the line computes is not read
    case kSpecializedSize:  // the symbol's size, not the dim's (ChangeAwayFromExample)
    case kInputSize:
      return std::nullopt;
  }
  return std::nullopt;
}

// True when `node` is a layer's contraction with a trained weight: a MatMul, Gemm or Conv whose
// second input is a float initializer, or its transpose.
bool ContractsWithWeight(const ir::Graph& g, int node) {
  if (node < 0 || node >= g.num_nodes()) return false;
  const ir::Node n = g.node(node);
  static constexpr std::string_view kLayers[] = {"MatMul", "Gemm", "Conv", "ConvTranspose"};
  if (std::find(std::begin(kLayers), std::end(kLayers), n.op_type()) == std::end(kLayers) ||
      n.input_size() < 2) {
    return false;
  }
  std::string weight(n.input(1));
  if (const int p = g.Producer(weight); p >= 0 && g.node(p).op_type() == "Transpose") {
    weight = g.node(p).input(0);
  }
  const auto* t = g.Initializer(weight);
  return t != nullptr && IsFloating(t->data_type());
}

// True when the graph fails only below the export size at a layer that contracts with a trained
// weight: `c` moves every symbol down from it,
// and at each of `symbols` moved up (one, two, twice and four times the size, the others at the
// export size) the graph runs and agrees with its output declarations. A literal sized for the
// weight it feeds, that the graph needs at least and runs past, is a fixed width of the
// module's own (x[..., 4:8] for a head of 4 features), which eager PyTorch shares. A bake of
// the size a layer contracts over breaks above the example as below; an index or a k (the last
// row, TopK of half) may run past it, with wrong values, and is not read this way.
constexpr int64_t kLargestProbe = int64_t{1} << 40;

bool FailsOnlyBelow(const Analysis& analysis, const std::vector<std::string>& symbols,
                    const Counterexample& c) {
  if (!c.node_fails || c.failing_node.graph != "main" ||
      !ContractsWithWeight(analysis.model().graph(), c.failing_node.index)) {
    return false;
  }
  const sym::Binding& example = analysis.example();
  bool moved = false;
  for (const auto& [symbol, size] : c.binding) {
    const std::optional<int64_t> d = example.Get(symbol);
    if (!d || size == *d) continue;
    if (size > *d) return false;
    moved = true;
  }
  if (!moved) return false;
  const sym::Binding base = analysis.ExampleOverWitness();
  for (const std::string& symbol : symbols) {
    const std::optional<int64_t> d = example.Get(symbol);
    if (!d) return false;
    for (int64_t factor : {1, 2}) {
      for (int64_t v : {*d + factor, *d * 2 * factor}) {
        if (v > kLargestProbe) continue;
        sym::Binding at = base;
        at.Set(symbol, v);
        const Counterexample there = analysis.Evaluate(at);
        if (!there.failure.empty() && !there.hint_only) return false;
      }
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
        // The size of a specialized input symbol: the trace's int() of it is the moved size.
        if (l.form == kSpecializedSize) {
          const std::vector<std::string> own = l.slot.dim.Symbols();
          if (own.size() != 1 || own[0] != s || size == l.d) continue;
          Counterexample c = analysis.Evaluate(moved);
          if (c.failure.empty()) {
            c.failing_node = analysis.Ref(g, index);
            c.node_fails = false;
            c.failure = absl::StrCat(l.slot.operand, " is still ", l.slot.literal, ", the size ", s,
                                     " had at export, where ", s, " is ", size, " here");
          }
          return c;
        }
        // A literal of the recorded line: the line computes it from the moved size, to what
        // value is not read; only that the graph keeps the old one.
        if (l.form == kRecordedLine) {
          if (!d || *d == l.d) continue;
          Counterexample c = analysis.Evaluate(moved);
          if (c.failure.empty()) {
            c.failing_node = analysis.Ref(g, index);
            c.node_fails = false;
            c.failure = absl::StrCat(l.slot.operand, " is still ", l.slot.literal,
                                     " here, which the recorded line computed from ",
                                     DimText(l.slot.dim), " = ", l.d, "; it is ", *d, " here");
          }
          return c;
        }
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
    // Without the export sizes only the exporter's record of a line can say that a literal was
    // computed from a size (UnrecordedOnLine).
    const bool example = analysis.has_example();
    const ir::Graph& g = analysis.model().graph();
    // `out` holds the findings of the rules that ran before this one.
    const absl::flat_hash_set<int> reported_before = NodesStatingBakedLiterals(out);
    for (int index : g.topological_order()) {
      // Another rule that runs reports it, with more proof: a cause it claimed, or a finding of
      // its own on the node (SL002's literal batch of a Reshape target, [2, -1]).
      if (analysis.Claimed(g, index) || reported_before.contains(index)) continue;
      std::vector<std::string> parts, symbols;
      std::vector<SizeProbe> probes;
      std::string operand;
      infer::OriginId origin = infer::kNoOrigin;
      std::vector<Derived> literals;
      // The exporter's record of the line, for literals that no form derives: read once per
      // node, and only for a node that has such a literal (most nodes have no slot at all).
      std::optional<bool> int_of_size;
      std::optional<std::optional<SourceLocation>> line;
      auto recorded_line = [&]() -> const std::optional<SourceLocation>& {
        if (!line) line = SourceOf(g.node(index));
        return *line;
      };
      auto line_takes_int_of_size = [&] {
        if (!int_of_size) int_of_size = recorded_line() && TakesIntOfSize(recorded_line()->code);
        return *int_of_size;
      };
      // An operand's literal that the node's recorded line spells out (x[..., :4]) is the
      // module's own number, whatever size it happens to equal: eager PyTorch has it too. An
      // attribute is the exporter's (a decomposed pool's window), whatever the line says.
      auto written_on_line = [&](const Slot& slot) {
        return slot.input >= 0 && std::llabs(slot.literal) >= 2 && recorded_line() &&
               WritesNumber(recorded_line()->code, slot.literal);
      };
      const std::vector<Slot> slots = SlotsOf(analysis, g, index);
      const bool resized_back = ResizedBackToInput(analysis, g.node(index), slots);
      for (const Slot& slot : slots) {
        if (!example) break;
        auto d = slot.dim.Evaluate(analysis.example());
        if (!d || FixedByWeight(analysis, slot.dim) || written_on_line(slot)) continue;
        std::optional<Form> form = FormOf(slot, *d);
        auto how = Derivation(slot, *d);
        // Any literal in the size's place, where torch.export specialized every symbol of the
        // dim and the node's recorded line takes int() of a size: the record says the line
        // computed with the example's size, whatever arithmetic it did. Not a negative bound
        // or index (counted from the end) and not 0 or 1, which no size needs to explain.
        if (!form && slot.literal >= 2 && analysis.AllSpecialized(slot.dim.Symbols()) &&
            line_takes_int_of_size()) {
          form = kRecordedLine;
          how = absl::StrCat("computed from ", DimText(slot.dim), " on the recorded line");
        }
        // A dim past a floor of one specialized symbol (the map after a strided conv) holding
        // a literal of that symbol's own export size: the trace's int(x.size(2)) reached the
        // node (F.interpolate(self.head(x), size=(H, W))). A literal equal to a size the dim
        // is not is no coincidence with the record where the dim follows that one symbol.
        if (!form && !slot.polynomial && slot.literal >= 2) {
          const std::vector<std::string> own = slot.dim.Symbols();
          const std::optional<int64_t> size =
              own.size() == 1 ? analysis.example().Get(own[0]) : std::nullopt;
          if (size && *size == slot.literal && analysis.AllSpecialized(own)) {
            form = kSpecializedSize;
            how = absl::StrCat("the size torch.export specialized ", own[0], " to");
            d = size;
          } else if (size && resized_back) {
            form = kInputSize;
            how = absl::StrCat("the size ", own[0], " had at export");
            d = size;
          }
        }
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
        // A literal of the exporter's record has no formula: the record is named instead.
        const bool from_record =
            *form == kRecordedLine || *form == kSpecializedSize || *form == kInputSize;
        std::string part = from_record ? absl::StrCat(slot.operand, " ", slot.literal, ", ", *how)
                           : slot.literal < 0
                               ? absl::StrCat(slot.operand, " ", slot.literal, " = -(", *how, ")")
                               : absl::StrCat(slot.operand, " ", slot.literal, " = ", *how);
        // The specialized size is stated already; a dim's is not.
        if (*form != kSpecializedSize && *form != kInputSize) {
          absl::StrAppend(&part, from_record ? "," : "", " with ", DimText(slot.dim), " = ", *d,
                          " at export");
        }
        if (std::find(parts.begin(), parts.end(), part) != parts.end()) continue;
        parts.push_back(std::move(part));
        for (auto& s : slot.dim.Symbols()) {
          if (std::find(symbols.begin(), symbols.end(), s) == symbols.end()) symbols.push_back(s);
        }
        if (operand.empty()) operand = slot.operand;
        if (origin == infer::kNoOrigin) origin = slot.origin;
      }
      if (parts.empty()) {
        if (!slots.empty() && line_takes_int_of_size()) {
          if (auto f = UnrecordedOnLine(analysis, g, index, slots, *recorded_line())) {
            out.push_back(*std::move(f));
          }
        }
        continue;
      }
      std::sort(symbols.begin(), symbols.end());
      const auto& node = g.node(index);
      auto counterexample = analysis.FailureNearExample(symbols, g, index, probes);
      // Without a failure, the exporter's record that every size the literal derives from was
      // a Python number in the trace is evidence of its own, shown where the literal stays.
      const bool recorded = analysis.AllSpecialized(symbols) || line_takes_int_of_size();
      Evidence evidence = Evidence::kContradiction;
      if (!counterexample && recorded) {
        counterexample = ChangeAwayFromExample(analysis, g, index, symbols, literals);
        evidence = Evidence::kExporterRecord;
      }
      const bool least_size = evidence == Evidence::kContradiction && counterexample &&
                              counterexample->node_fails &&
                              FailsOnlyBelow(analysis, symbols, *counterexample);
      if (least_size) evidence = Evidence::kHypothesis;
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
      if (std::any_of(literals.begin(), literals.end(),
                      [](const Derived& l) { return l.form == kInputSize; })) {
        f.notes.push_back(
            {"every size is the input's own size at export, on axes that follow it through "
             "strided layers: the map resized back to the input (F.interpolate(y, size=(int(H), "
             "int(W)))); a module that resizes to a fixed size the export happened to equal "
             "leaves the same graph",
             std::nullopt});
      }
      if (least_size) {
        f.notes.push_back(
            {absl::StrCat("the graph fails below the export size and runs at every larger size "
                          "tried: the least size the node needs, which a fixed width of the "
                          "module's own (x[..., 4:8] for a head of 4 features) has as well as a "
                          "bake; a bake breaks above the export size too"),
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
  // Literals in a size's place on a node whose recorded line takes int() of arithmetic on a
  // size, where torch.export recorded no specialization (int(x.shape[2] * 1.5) leaves none):
  // the trace evaluated the line at the example, and the record says neither the size nor what
  // the line computes elsewhere. With the export sizes given, moving them shows the literal
  // staying (the exporter's record, an error); without them, a hypothesis. Only a literal with
  // one dim in its place (a Resize size, a Slice bound on one axis; not a Reshape target's
  // number, which could stand for any dim), not written on the line, and not one a weight
  // fixes.
  std::optional<Finding> UnrecordedOnLine(const Analysis& analysis, const ir::Graph& g, int index,
                                          const std::vector<Slot>& slots,
                                          const SourceLocation& line) const {
    std::vector<std::string> parts, symbols;
    std::vector<const Slot*> held;
    std::string operand;
    for (const Slot& slot : slots) {
      const auto same_place = [&](const Slot& other) {
        return other.input == slot.input && other.element == slot.element &&
               other.operand == slot.operand;
      };
      if (slot.literal < 2 || !slot.polynomial || slot.dim.IsConstant() ||
          FixedByWeight(analysis, slot.dim) || analysis.AllSpecialized(slot.dim.Symbols()) ||
          WritesNumber(line.code, slot.literal) ||
          std::count_if(slots.begin(), slots.end(), same_place) != 1) {
        continue;
      }
      parts.push_back(
          absl::StrCat(slot.operand, " ", slot.literal, " in the place of ", DimText(slot.dim)));
      held.push_back(&slot);
      for (auto& s : slot.dim.Symbols()) {
        if (std::find(symbols.begin(), symbols.end(), s) == symbols.end()) symbols.push_back(s);
      }
      if (operand.empty()) operand = slot.operand;
    }
    if (parts.empty()) return std::nullopt;
    std::sort(symbols.begin(), symbols.end());
    // Moved from the export sizes, the literal staying is the line computing another number
    // there. Without them, the sizes moved from could be the export sizes themselves (or give
    // the dim its export value), where eager computes the same number: no counterexample.
    const bool from_export = std::all_of(symbols.begin(), symbols.end(), [&](const auto& s) {
      return analysis.example().Get(s).has_value();
    });
    std::optional<Counterexample> kept =
        from_export ? LiteralKept(analysis, g, index, held, symbols) : std::nullopt;
    Finding f =
        FindingAt(analysis, g, index, kept ? Evidence::kExporterRecord : Evidence::kHypothesis,
                  absl::StrCat(g.node(index).op_type(), " ", absl::StrJoin(parts, "; "),
                               ", on a recorded line that takes int() of a size: the "
                               "trace computed it once, from the example input, and "
                               "the graph keeps the number at other sizes of ",
                               absl::StrJoin(symbols, ", ")));
    f.attribute = operand;
    f.symbols = symbols;
    f.counterexample = std::move(kept);
    f.notes.push_back(
        {f.counterexample
             ? "torch.export keeps int() of float arithmetic on a size (int(x.shape[2] * 1.5)) "
               "without recording the size as specialized; the counterexample moves the export "
               "sizes and shows the literal staying, where the line computes it from the new "
               "size (to what number is not read; a run of the module shows it: "
               "onnx_shapelint.torch.export runs the module)"
             : "torch.export keeps int() of float arithmetic on a size (int(x.shape[2] * 1.5)) "
               "without recording the size as specialized, so its record gives no export size "
               "to move from and no counterexample; --export-dims gives them, or a run of the "
               "module settles it (onnx_shapelint.torch.export runs the module)",
         std::nullopt});
    f.fix =
        "compute the size from the tensor inside the model (F.interpolate(x, scale_factor=1.5) "
        "rather than a size computed in Python; x.shape[-1] // 2 rather than "
        "int(x.size(-1)) // 2) so that the exporter keeps it dynamic";
    return f;
  }

  // The graph with every symbol of the literals' dims moved together from the export sizes (to
  // twice, then one, two, three more), where it runs and every literal's dim has moved: what
  // the exporter's record of the line says breaks there. The line computes each number from its
  // size; to what number is not read, only that the graph no longer follows the sizes, so every
  // literal is stated.
  static std::optional<Counterexample> LiteralKept(const Analysis& analysis, const ir::Graph& g,
                                                   int index, const std::vector<const Slot*>& held,
                                                   const std::vector<std::string>& symbols) {
    const sym::Binding base = analysis.ExampleOverWitness();
    for (int64_t step : {0, 1, 2, 3}) {
      sym::Binding moved = base;
      bool ok = true;
      for (const std::string& s : symbols) {
        const std::optional<int64_t> at = base.Get(s);
        ok = ok && at && *at >= 1 && *at <= (int64_t{1} << 40);
        if (ok) moved.Set(s, step == 0 ? 2 * *at : *at + step);
      }
      std::vector<std::string> kept;
      for (const Slot* slot : held) {
        const std::optional<int64_t> was = slot->dim.Evaluate(base);
        const std::optional<int64_t> now = slot->dim.Evaluate(moved);
        ok = ok && was && now && *was != *now;
        if (ok) {
          kept.push_back(absl::StrCat(DimText(slot->dim), " is ", *now, " and ", slot->operand,
                                      " is still ", slot->literal));
        }
      }
      if (!ok) continue;
      Counterexample c = analysis.Evaluate(moved);
      if (!c.failure.empty()) continue;
      c.failing_node = analysis.Ref(g, index);
      c.node_fails = false;
      c.failure = absl::StrCat("here ", absl::StrJoin(kept, "; "),
                               ", which the recorded line computes from the size");
      return c;
    }
    return std::nullopt;
  }

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
