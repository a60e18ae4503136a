// SL011 specialized-dim: the exporter specialized a dim the ONNX input declares dynamic.
//
// torch.export traces with symbolic sizes and records, per symbol, the range of sizes its
// guards allow (the graph's metadata pkg.torch.export.ExportedProgram.range_constraints). Code
// that turns a size into a Python int (int(x.size(-1)) // 2, a shape used in Python arithmetic)
// makes the trace specialize that symbol to the example's size: the range becomes one value,
// say s0: VR[10, 10]. With Dim.AUTO the ONNX input still declares the axis dynamic (s0), and
// every constant the trace computed from it is baked into the graph. The exporter's own record
// says the graph is valid at that size only.
//
// torch 2.15 records a size of 1 that the code read as a Python int as VR[1, 2], not as one
// size: the same specialization, at the one size where a literal 1 in the graph says nothing by
// itself. It counts where the recorded line that read that axis wrote the 1 into a shape
// (x.view(int(x.size(0)), -1) at batch 1 leaves the Reshape target [1, -1]).
//
// A symbol that a trained weight fixes anyway (the channels of a first Conv) is specialized for
// a reason eager PyTorch shares: SL004 says the declaration is wrong, and this rule keeps
// silent. So it does where another rule already reports a failure over the symbol.
//
// Claims: nothing; it reads the exporter's record in Check.
#include "specialized_dim.h"

#include <algorithm>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "baked_literal.h"
#include "lint/export_ranges.h"
#include "lint/fix_builder.h"
#include "lint/literals.h"
#include "lint/provenance.h"
#include "lint/rule.h"

namespace shapelint::lint {
namespace {

class SpecializedDim : public Rule {
 public:
  using Rule::Rule;

  void Check(const Analysis& analysis, std::vector<Finding>& out) const override {
    const ir::Graph& graph = analysis.model().graph();
    const std::vector<std::string> followed = FollowedByFix(analysis.model());
    // The nodes where a rule that ran before states a baked literal (`out` holds their findings).
    const absl::flat_hash_set<int> stated = NodesStatingBakedLiterals(out);
    std::vector<std::string> reported;
    // In input order, each symbol at the first input dim it names.
    for (const infer::InputDim& d : analysis.inference().input_dims) {
      const std::optional<std::string_view> name = d.dim ? d.dim->AsSymbol() : std::nullopt;
      if (!name) continue;
      const std::string symbol(*name);
      if (std::find(reported.begin(), reported.end(), symbol) != reported.end()) continue;
      const bool repaired = std::binary_search(followed.begin(), followed.end(), symbol);
      if (auto it = analysis.specialized().find(symbol); it != analysis.specialized().end()) {
        reported.push_back(symbol);
        if (analysis.FixedByWeight(symbol) || ReportedElsewhere(analysis, symbol)) continue;
        out.push_back(Report(analysis, graph, d, symbol, {it->second, it->second},
                             GraphRequires(analysis, symbol, it->second), repaired, stated));
        continue;
      }
      auto it = analysis.recorded_bounds().find(symbol);
      if (it == analysis.recorded_bounds().end() || !ReadAtOne(it->second) ||
          (analysis.has_example() && analysis.example().Get(symbol) != 1)) {
        continue;
      }
      reported.push_back(symbol);
      if (analysis.FixedByWeight(symbol) || ReportedElsewhere(analysis, symbol) || repaired) {
        continue;
      }
      const std::optional<std::pair<int, std::string>> one = OneOnIntLine(analysis, graph, d);
      if (!one || stated.contains(one->first)) continue;
      out.push_back(Report(analysis, graph, d, symbol, {1, 2}, false, false, stated, one));
    }
  }

 private:
  // True when a rule claimed a failure over `symbol`, or a declaration over it is contradicted
  // (SL003): the finding is there already, with its own culprit.
  static bool ReportedElsewhere(const Analysis& analysis, const std::string& symbol) {
    for (const Cause& cause : analysis.causes()) {
      const bool involves = std::binary_search(cause.symbols.begin(), cause.symbols.end(), symbol);
      if (!involves) continue;
      if (cause.owner != nullptr) return true;
      for (const Pin* pin : cause.pins) {
        if (pin->requirement->kind == infer::RequirementKind::kDeclaredShape) return true;
      }
    }
    return false;
  }

  // True when the graph itself allows `symbol` only at `size` (a requirement of a node fails
  // elsewhere) and no rule recognised where the size entered: the module may hold that size in
  // its own code (a table of 8 features built in forward, which eager PyTorch shares), or may
  // have computed it from the example (a Resize to int(h) * 2); nothing in the graph tells the
  // two apart.
  static bool GraphRequires(const Analysis& analysis, const std::string& symbol, int64_t size) {
    for (const SymbolRange& r : analysis.WitnessFor({symbol}).ranges) {
      if (r.symbol == symbol && r.min == size && r.max == size) return true;
    }
    return false;
  }

  // True when every input of `concat` reaches scalar literals of its own within a few nodes,
  // each input's in another order or others than every other input's: the same computation
  // with another constant, as a loop traced once per iteration leaves it (the index i folded
  // into each piece), not a few different pieces a module stacks (sin and cos of a grid).
  static bool EachPieceItsOwnLiterals(const ir::Graph& graph, const ir::Node& concat) {
    constexpr int kMaxHops = 4;
    absl::flat_hash_set<std::string> trails;
    for (const auto& piece : concat.input()) {
      std::string trail;
      std::vector<std::pair<std::string, int>> queue;
      queue.emplace_back(std::string(piece), 0);
      absl::flat_hash_set<std::string> seen;
      for (size_t q = 0; q < queue.size(); ++q) {
        const auto [value, hops] = queue[q];
        if (value.empty() || !seen.insert(value).second) continue;
        const auto* t = graph.Initializer(value);
        const int p = graph.Producer(value);
        const bool constant_node = p >= 0 && graph.node(p).op_type() == "Constant";
        if ((t != nullptr && t->dims_size() <= 1) || constant_node) {
          absl::StrAppend(&trail, value, ";");
          continue;
        }
        if (p < 0 || hops >= kMaxHops) continue;
        for (const auto& in : graph.node(p).input()) queue.emplace_back(in, hops + 1);
      }
      if (trail.empty() || !trails.insert(trail).second) return false;
    }
    return true;
  }

  // Calls `visit` with each node upstream of the operands of `c`'s failing node, nearest first,
  // until it returns true; through the ops of `followed` only (a few layout and elementwise
  // ops), at most kMaxHops of them. Nothing where `c` names no failing node of the main graph.
  template <size_t kCount, typename Visit>
  static void WalkUpFromFailure(const Analysis& analysis, const Counterexample& c,
                                const std::string_view (&followed)[kCount], Visit visit) {
    constexpr int kMaxHops = 6;
    const ir::Graph& graph = analysis.model().graph();
    if (!c.node_fails || c.failing_node.graph != "main" || c.failing_node.index < 0) return;
    std::vector<std::pair<std::string, int>> queue;  // value, hops
    for (const auto& in : graph.node(c.failing_node.index).input()) queue.emplace_back(in, 0);
    absl::flat_hash_set<std::string> seen;
    for (size_t q = 0; q < queue.size(); ++q) {
      const auto [value, hops] = queue[q];
      if (value.empty() || !seen.insert(value).second) continue;
      const int p = graph.Producer(value);
      if (p < 0) continue;
      const ir::Node n = graph.node(p);
      if (visit(p, n)) return;
      if (hops >= kMaxHops ||
          std::find(std::begin(followed), std::end(followed), n.op_type()) == std::end(followed)) {
        continue;
      }
      for (const auto& in : n.input()) queue.emplace_back(in, hops + 1);
    }
  }

  // The count of single-element pieces that a Concat upstream of an operand of `c`'s failing
  // node joins on an axis, where that count is a product of the sizes torch.export specialized
  // `symbol` among (80 = 8 x 10): the trace ran a Python loop over the sizes once per element,
  // `[... for i in range(h) for j in range(w)]`, and the graph holds one piece per iteration.
  // Only a few layout and scaling ops are followed back from the operand. Nullopt when none.
  static std::optional<int64_t> UnrolledCount(const Analysis& analysis, const Counterexample& c,
                                              const std::string& symbol) {
    const ir::Graph& graph = analysis.model().graph();
    // The products of the specialized sizes over the subsets that hold `symbol`.
    std::vector<std::pair<std::string, int64_t>> sizes(analysis.specialized().begin(),
                                                       analysis.specialized().end());
    constexpr size_t kMaxSymbols = 8;
    if (sizes.size() > kMaxSymbols) return std::nullopt;
    std::vector<int64_t> counts;
    for (uint32_t subset = 1; subset < (1U << sizes.size()); ++subset) {
      int64_t product = 1;
      bool holds = false, overflow = false;
      for (size_t i = 0; i < sizes.size(); ++i) {
        if ((subset & (1U << i)) == 0) continue;
        holds = holds || sizes[i].first == symbol;
        overflow = overflow || __builtin_mul_overflow(product, sizes[i].second, &product);
      }
      if (holds && !overflow && product >= 2) counts.push_back(product);
    }
    static constexpr std::string_view kFollowed[] = {
        "Unsqueeze", "Squeeze", "Slice", "Reshape", "Transpose", "Identity", "Cast",
        "Mul",       "Div",     "Add",   "Sub",     "Expand",    "Neg",      "Exp"};
    std::optional<int64_t> unrolled;
    WalkUpFromFailure(analysis, c, kFollowed, [&](int, const ir::Node& n) {
      if (n.op_type() != "Concat" || n.input_size() < 2) return false;
      const int64_t axis = n.IntAttribute("axis").value_or(0);
      bool single = true;
      for (const auto& piece : n.input()) {
        const infer::TensorFact* f = analysis.inference().Find(piece);
        const int64_t rank = f != nullptr && f->shape ? static_cast<int64_t>(f->shape->size()) : 0;
        const int64_t a = axis < 0 ? axis + rank : axis;
        single = single && f != nullptr && f->shape && a >= 0 && a < rank && (*f->shape)[a] &&
                 (*f->shape)[a]->AsConstant() == 1;
      }
      const int64_t count = n.input_size();
      if (single && std::find(counts.begin(), counts.end(), count) != counts.end() &&
          EachPieceItsOwnLiterals(graph, n)) {
        unrolled = count;
        return true;
      }
      return false;
    });
    return unrolled;
  }

  // A literal the trace wrote where the specialized size entered: an integer constant of at most
  // a few elements holding `size`, read by a node whose recorded line takes int() of a size and
  // does not write the number itself (torch.zeros(x.size(0), int(x.size(1))) leaves [6] in the
  // zeros' shape). The node and the literal's name; nullopt when there is none. The record
  // says the trace turned a size into a number on that line, and the number is there: the
  // specialization reached the graph, even where no op fails for it.
  static std::optional<std::pair<int, std::string>> LiteralOnIntLine(const Analysis& analysis,
                                                                     const ir::Graph& graph,
                                                                     int64_t size) {
    if (size < 2) return std::nullopt;
    return FirstLiteralHolding(
        analysis, graph, size, [&](const ir::Node&, int, std::string_view in, const auto& line) {
          // The optimizer's record that the trace made the constant to a size (offsets folded
          // from torch.arange(0, B * T, T)) says the same as the line would.
          if (graph.Initializer(in) != nullptr &&
              ReadFoldedSources(graph, std::string(in), analysis.signature()).sized_factory) {
            return true;
          }
          return line() && TakesIntOfSize(line()->code) && !WritesNumber(line()->code, size);
        });
  }

  // The first input, in topological order, that is a literal integer tensor of a few elements
  // holding `value` and that `accept(node, input index, name, line)` takes, with its node's
  // index; `line()` reads the node's recorded source once, when asked.
  template <typename Accept>
  static std::optional<std::pair<int, std::string>> FirstLiteralHolding(const Analysis& analysis,
                                                                        const ir::Graph& graph,
                                                                        int64_t value,
                                                                        Accept accept) {
    for (int index : graph.topological_order()) {
      const ir::Node n = graph.node(index);
      std::optional<std::optional<SourceLocation>> source;
      const auto line = [&]() -> const std::optional<SourceLocation>& {
        if (!source) source = SourceOf(n);
        return *source;
      };
      for (int i = 0; i < n.input_size(); ++i) {
        const std::string_view in = n.input(i);
        const std::vector<infer::Element>* values =
            specialized_dim::LiteralElements(analysis, graph, in);
        if (values == nullptr || std::none_of(values->begin(), values->end(), [&](const auto& e) {
              return e.value && e.value->AsConstant() == value;
            })) {
          continue;
        }
        if (accept(n, i, in, line)) return std::make_pair(index, std::string(in));
      }
    }
    return std::nullopt;
  }

  // Whether `node` reads its input `index` as a shape: a Reshape target, Expand's or
  // ConstantOfShape's shape, Tile's repeats, or a Concat that builds only such shapes.
  static bool ReadsAsShape(const ir::Graph& graph, const ir::Node& node, int index) {
    const std::string& op = node.op_type();
    if (op == "Reshape" || op == "Expand" || op == "Tile") return index == 1;
    if (op == "ConstantOfShape") return index == 0;
    if (op != "Concat" || node.output_size() != 1) return false;
    const absl::Span<const int> readers = graph.Consumers(node.output(0));
    return !readers.empty() && std::all_of(readers.begin(), readers.end(), [&](int r) {
      const ir::Node reader = graph.node(r);
      for (int i = 0; i < reader.input_size(); ++i) {
        if (reader.input(i) == node.output(0) && reader.op_type() != "Concat" &&
            !ReadsAsShape(graph, reader, i)) {
          return false;
        }
      }
      return reader.op_type() != "Concat";
    });
  }

  // For a size of 1 recorded as VR[1, 2]: a literal 1 of a few elements that a node reads as a
  // shape, where the node's recorded line takes int() of `d`'s axis and writes no 1 itself. The
  // node and the literal's name; nullopt when there is none.
  static std::optional<std::pair<int, std::string>> OneOnIntLine(const Analysis& analysis,
                                                                 const ir::Graph& graph,
                                                                 const infer::InputDim& d) {
    const infer::TensorFact* input = analysis.inference().Find(d.input);
    if (input == nullptr || !input->shape) return std::nullopt;
    const auto rank = static_cast<int64_t>(input->shape->size());
    return FirstLiteralHolding(
        analysis, graph, 1, [&](const ir::Node& n, int i, std::string_view, const auto& line) {
          return ReadsAsShape(graph, n, i) && line() &&
                 TakesIntOfAxis(line()->code, d.axis, rank) && !WritesOne(line()->code);
        });
  }

  // A crop of a tensor that follows the inputs, on the way to the node where `c` fails, to a
  // literal length equal to the specialized `size`: H = int(lat.size(2)); up[:, :, :H] +
  // lateral(lat) holds the 7 of the example in the Slice's end, and past 7 rows the Add fails. The
  // Slice and its literal's name; nullopt when none. Only layout and elementwise ops are followed
  // back from the failing node's operands.
  static std::optional<std::pair<int, std::string>> CropToSize(const Analysis& analysis,
                                                               const Counterexample& c,
                                                               int64_t size) {
    const ir::Graph& graph = analysis.model().graph();
    static constexpr std::string_view kFollowed[] = {
        "Unsqueeze", "Squeeze", "Slice", "Reshape", "Transpose", "Identity", "Cast",  "Mul",
        "Div",       "Add",     "Sub",   "Relu",    "Sigmoid",   "Neg",      "Concat"};
    std::optional<std::pair<int, std::string>> crop;
    WalkUpFromFailure(analysis, c, kFollowed, [&](int p, const ir::Node& n) {
      if (n.op_type() != "Slice") return false;
      // A crop of a tensor that follows the inputs; a table of the module cut to a length of
      // its own (self.pos[:, :7]) is the module's, whatever it meets.
      const infer::TensorFact* cropped = analysis.inference().FindIn(graph, n.input(0));
      const bool follows = cropped != nullptr && cropped->shape &&
                           std::any_of(cropped->shape->begin(), cropped->shape->end(),
                                       [](const auto& d) { return d && !d->IsConstant(); });
      if (!follows) return false;
      if (auto src = SliceLengthLiteral(analysis.inference(), graph, p, size)) {
        crop = std::make_pair(p, src->name);
        return true;
      }
      return false;
    });
    return crop;
  }

  // `repaired`: `onnx-shapelint fix` made the graph follow `symbol` where the trace had baked
  // its size, and said so in the model's metadata (kFixFollowedKey). The record is then of the
  // graph before the fix, an annotation that no longer describes it: a note, without the
  // declaration fix that would undo the repair; a failure the graph still shows keeps its
  // counterexample for the reader.
  // `recorded`: the range torch.export gave `symbol`, one size or, for a size of 1 read as an int,
  // [1, 2] (recorded_bounds() keeps no lower bound of 1), whose literal `one` (OneOnIntLine) is
  // what shows the read reached the graph.
  Finding Report(const Analysis& analysis, const ir::Graph& graph, const infer::InputDim& d,
                 const std::string& symbol, const ExportRange& recorded, bool graph_requires,
                 bool repaired, const absl::flat_hash_set<int>& stated,
                 const std::optional<std::pair<int, std::string>>& one = std::nullopt) const {
    const int64_t size = recorded.min.value_or(0);
    const bool narrowed = recorded.max != recorded.min;
    const int reader = ReaderToShow(graph, d.input);
    sym::Binding moved = analysis.ExampleOverWitness();
    moved.Set(symbol, size + 1);
    Counterexample c = analysis.Evaluate(moved);
    // A count the trace unrolled (sum(x.unbind(1)): one Gather per channel of the example)
    // keeps running on more and fails on fewer.
    if (c.failure.empty() && size > 1) {
      sym::Binding below = analysis.ExampleOverWitness();
      below.Set(symbol, size - 1);
      if (Counterexample b = analysis.Evaluate(below); !b.failure.empty()) c = std::move(b);
    }
    // An error where the graph breaks past the size; else what the trace baked in is values
    // (a scale, a slice end), which only the literals derived from the size show (SL007 finds
    // them from the recorded size): a warning.
    // Where the graph itself requires the size and no rule recognised how it entered, the
    // limit may be the module's own: a warning that still shows where the graph breaks.
    // A graph that requires the size because it built a tensor of one piece per iteration of a
    // loop over the specialized sizes shows how the size entered: the exporter's record.
    const std::optional<int64_t> unrolled =
        graph_requires && !c.failure.empty() ? UnrolledCount(analysis, c, symbol) : std::nullopt;
    const std::optional<std::pair<int, std::string>> crop =
        graph_requires && !c.failure.empty() && !unrolled ? CropToSize(analysis, c, size)
                                                          : std::nullopt;
    Evidence evidence = c.failure.empty() || (graph_requires && !unrolled && !crop)
                            ? Evidence::kHypothesis
                            : Evidence::kExporterRecord;
    // Nothing fails past the size, but the trace's number is in the graph: shown where the
    // literal stays.
    std::optional<std::pair<int, std::string>> written;
    if (c.failure.empty() && !repaired) {
      written = one ? one : LiteralOnIntLine(analysis, graph, size);
    }
    // One literal, one finding: where a rule that ran before states the literal (SL002's
    // literal batch of a Reshape target), the record stays this rule's warning.
    if (written && !stated.contains(written->first)) {
      evidence = Evidence::kExporterRecord;
      c.failing_node = analysis.Ref(graph, written->first);
      c.node_fails = false;
      c.failure = absl::StrCat("'", written->second, "' still holds ", size, ", the size ", symbol,
                               " had at export, where ", symbol, " is ", size + 1, " here");
    } else if (c.failure.empty() && !repaired && size > 1) {
      // A number computed from the size rather than the size itself: shown at twice the size,
      // where a Python function of the size (a floor division, the next power of two) more
      // likely gives another number than one size further.
      if (const auto computed = specialized_dim::ComputedBesideSize(analysis, graph, symbol);
          computed && !stated.contains(computed->node)) {
        written = std::make_pair(computed->node, computed->name);
        evidence = Evidence::kExporterRecord;
        int64_t twice = 0;
        if (__builtin_mul_overflow(size, 2, &twice)) twice = size + 1;  // the record caps sizes
        sym::Binding doubled = analysis.ExampleOverWitness();
        doubled.Set(symbol, twice);
        c = analysis.Evaluate(doubled);
        if (c.failure.empty()) {
          c.failing_node = analysis.Ref(graph, computed->node);
          c.node_fails = false;
          c.failure = absl::StrCat("'", computed->name, "' still holds ", computed->value,
                                   ", the number forward computed from ", symbol, " = ", size,
                                   " (its line names a Python value there), where ", symbol, " is ",
                                   twice, " here");
        }
      }
    }
    if (repaired) evidence = Evidence::kWrongAnnotation;
    // At the line that wrote the number, where there is one: the user's, not the input's first
    // reader (often a Shape of torch's own runtime asserts).
    Finding f = FindingAt(
        analysis, graph, written && !stated.contains(written->first) ? written->first : reader,
        evidence,
        absl::StrCat("input '", d.input, "' declares axis ", d.axis, " dynamic as ", symbol,
                     narrowed ? absl::StrCat(", but the trace read ", symbol, " as the Python int ",
                                             size, " (range_constraints: ", symbol, " in [", size,
                                             ", ", recorded.max.value_or(size),
                                             "], torch.export's record of such a read at 1, and "
                                             "the line that read it wrote the 1 into a shape): ")
                              : absl::StrCat(", but torch.export specialized ", symbol, " to ",
                                             size, " while tracing (range_constraints: ", symbol,
                                             " in [", size, ", ", size, "]): "),
                     repaired ? "a record of the graph before onnx-shapelint fix"
                              : absl::StrCat("the graph holds what the trace computed at ", symbol,
                                             " = ", size)));
    f.attribute = absl::StrCat("input '", d.input, "' axis ", d.axis);
    f.symbols = {symbol};
    Witness w;
    w.ranges.push_back(SymbolRange::Between(symbol, size, size, size));
    w.summary =
        narrowed ? absl::StrCat("valid only for ", symbol, " = ", size, ", the size the trace read")
                 : absl::StrCat("valid, by the exporter's record, only for ", symbol, " = ", size);
    f.witness = std::move(w);
    if (!c.failure.empty()) f.counterexample = std::move(c);
    if (repaired) {
      f.notes.push_back(
          {absl::StrCat("onnx-shapelint fix has made the graph follow ", symbol,
                        " where the trace had baked its size (metadata '",
                        std::string(kFixFollowedKey),
                        "'): the record is of the graph before the fix; values that no op shows "
                        "may still hold the old size, which a run of the module at other sizes "
                        "settles (onnx-shapelint confirm)"),
           std::nullopt});
    }
    if (unrolled) {
      f.notes.push_back(
          {absl::StrCat("the graph joins ", *unrolled,
                        " single pieces into the tensor that fails here, as many as the sizes "
                        "torch.export specialized make: forward looped over the size in Python "
                        "(a list comprehension over range(h), a loop of torch.cat), once per "
                        "element at the example, and the graph keeps that count"),
           std::nullopt});
    } else if (crop) {
      f.notes.push_back(
          {absl::StrCat("the graph crops to ", size, " at Slice '", graph.NodeLabel(crop->first),
                        "' ('", crop->second, "' holds the ", size,
                        "), on the way to the node that fails: the size the trace specialized ",
                        symbol, " to entered there"),
           analysis.Ref(graph, crop->first)});
    } else if (graph_requires) {
      f.notes.push_back(
          {absl::StrCat(
               "the graph itself runs only at ", symbol, " = ", size,
               ", and no op of it shows how the size entered: the module may hold it in "
               "its own code (eager PyTorch then fails at other sizes too), or computed it "
               "from the example input"),
           std::nullopt});
    }
    f.notes.push_back({absl::StrCat("torch.export recorded the range in the model's metadata (",
                                    std::string(kRangeConstraintsKey),
                                    "); a trace that keeps the size symbolic records [0, int_oo] "
                                    "or [2, int_oo]"),
                       std::nullopt});
    f.fix = absl::StrCat(
        "keep the size a tensor in forward (x.size(i) or x.shape[i], not int(...) or Python "
        "arithmetic on it); export with Dim.DYNAMIC for this axis to make torch name the line "
        "that specializes ",
        symbol);
    // Unsafe: the declaration then says what the graph computes, but gives up the dynamic axis
    // asked for, which eager PyTorch may well run at.
    if (analysis.fixes_wanted() && !repaired) {
      f.fix_it =
          DeclarationFix(analysis, Applicability::kUnsafe, {{symbol, size}},
                         absl::StrCat("declare ", symbol, " = ", size,
                                      narrowed ? ", the size the trace read"
                                               : ", the size torch.export specialized it to"));
    }
    return f;
  }
};

}  // namespace

std::unique_ptr<Rule> MakeSpecializedDim(const RuleInfo& info) {
  return std::make_unique<SpecializedDim>(info);
}

}  // namespace shapelint::lint
