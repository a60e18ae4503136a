// SL010 design-range: a dynamic dim works only up to a size the model's design sets (a table or
// buffer sliced by it).
//
// A causal mask registered as a 16 x 16 buffer and sliced by the sequence length
// (mask[:T, :T]), position ids sliced from a 512-long buffer, a position table indexed by
// arange(seq): each clamps at the table's length, in ONNX (Slice clamps its ends) as in eager
// PyTorch (slicing clamps too), and the next broadcast fails past it in both. That is not a
// baked size, since eager shares it, but it is the range a server must keep to and a TensorRT
// optimisation profile must not exceed: a note with the range, where the limit comes from, and
// the first failure past it.
//
// Claims: nothing. The analysis sorts such requirements out of the pins (lint/pins.h, Bound);
// this rule reports them.
#include <algorithm>
#include <deque>
#include <map>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "lint/export_ranges.h"
#include "lint/literals.h"
#include "lint/rule.h"

namespace shapelint::lint {
namespace {

// How far upstream of the failing node the limit's Slice is looked for.
constexpr int kMaxNodesWalked = 64;

class DesignRange : public Rule {
 public:
  using Rule::Rule;

  void Check(const Analysis& analysis, std::vector<Finding>& out) const override {
    // The tightest bound of each set of symbols; a requirement on the graph's ops before one on
    // a declaration, which only repeats it.
    std::map<std::vector<std::string>, const Bound*> tightest;
    for (const Bound& b : analysis.bounds()) {
      const Bound*& best = tightest[b.symbols];
      if (best == nullptr || b.max < best->max ||
          (b.max == best->max && IsDeclaration(*best) && !IsDeclaration(b))) {
        best = &b;
      }
    }
    for (const auto& [symbols, bound] : tightest) {
      if (bound->on_sum) {
        out.push_back(ReportSum(analysis, *bound));
      } else if (!AtTheExampleSize(analysis, *bound)) {
        out.push_back(Report(analysis, *bound));
      }
    }
    for (const Pin* pin : OneForEachSet(analysis.design_pins())) {
      out.push_back(ReportTraced(analysis, *pin));
    }
  }

 private:
  // The first restriction, in the graph's order, of each set of symbols, leaving out a set that
  // holds one already reported: [h, w] and [batch, h, w] are one restriction of h and w.
  static std::vector<const Pin*> OneForEachSet(const std::vector<Pin>& pins) {
    std::vector<const Pin*> by_size;
    by_size.reserve(pins.size());
    for (const Pin& p : pins) by_size.push_back(&p);
    std::stable_sort(by_size.begin(), by_size.end(), [](const Pin* a, const Pin* b) {
      return a->symbols.size() < b->symbols.size();
    });
    std::vector<const Pin*> kept;
    for (const Pin* p : by_size) {
      const bool covered = std::any_of(kept.begin(), kept.end(), [&](const Pin* k) {
        return std::includes(p->symbols.begin(), p->symbols.end(), k->symbols.begin(),
                             k->symbols.end());
      });
      if (!covered) kept.push_back(p);
    }
    return kept;
  }

  // True when the bound is the size the model was exported at (given, or recorded by the
  // exporter): x[:, :10] at an example length of 10 is the example's length, not a table's, and
  // the rules for baked sizes report it (SL007, SL011).
  static bool AtTheExampleSize(const Analysis& analysis, const Bound& b) {
    return std::any_of(b.symbols.begin(), b.symbols.end(),
                       [&](const std::string& s) { return analysis.example().Get(s) == b.max; });
  }

  static bool IsDeclaration(const Bound& b) {
    return b.requirement->kind == infer::RequirementKind::kDeclaredShape;
  }

  Finding Report(const Analysis& analysis, const Bound& bound) const {
    const infer::Requirement& r = *bound.requirement;
    const ir::Graph& graph = *r.graph;
    const int node = r.node >= 0 ? r.node : 0;
    const std::string names = absl::StrJoin(bound.symbols, ", ");
    Finding f = FindingAt(
        analysis, graph, node, Evidence::kDesign,
        absl::StrCat(names, " works only up to ", bound.max, ": ", r.what, " (",
                     r.lhs.ToString(kMaxExprText), " vs ", r.rhs.ToString(kMaxExprText),
                     ") holds exactly while ", names, bound.symbols.size() > 1 ? " stay" : " stays",
                     " at or below ", bound.max));
    f.symbols = bound.symbols;
    Witness w;
    for (const std::string& s : bound.symbols) {
      w.ranges.push_back(
          {s, std::min(analysis.witness().Get(s).value_or(1), bound.max), 1, bound.max});
    }
    w.summary = absl::StrCat("works for ", names, " in [1, ", bound.max, "]");
    f.witness = std::move(w);
    sym::Binding past = analysis.witness();
    for (const std::string& s : bound.symbols) past.Set(s, bound.max + 1);
    f.counterexample = analysis.CounterexampleAt(past);
    if (const std::optional<Note> limit = WhereTheLimitIs(analysis, graph, node, bound.max)) {
      f.notes.push_back(*limit);
    }
    f.notes.push_back(
        {"eager PyTorch slices, indexes and broadcasts the same way: past the bound it fails "
         "too, so this is the model's range, not a size of the example",
         std::nullopt});
    f.fix = absl::StrCat("serve and profile ", names, " within [1, ", bound.max,
                         "], or enlarge the table or buffer the graph slices");
    return f;
  }

  // A bound on a sum of sizes (past + seq positions into a table of 64 rows): each may grow
  // while the others are small, so the range is the sum's.
  Finding ReportSum(const Analysis& analysis, const Bound& bound) const {
    const infer::Requirement& r = *bound.requirement;
    const ir::Graph& graph = *r.graph;
    const int node = r.node >= 0 ? r.node : 0;
    const std::string names = absl::StrJoin(bound.symbols, ", ");
    Finding f =
        FindingAt(analysis, graph, node, Evidence::kDesign,
                  absl::StrCat(names, " are bounded together: ", r.what, " (",
                               r.lhs.ToString(kMaxExprText), " vs ", r.rhs.ToString(kMaxExprText),
                               ") holds while ", r.rhs.ToString(kMaxExprText),
                               " stays at or below ", r.lhs.ToString(kMaxExprText)));
    f.symbols = bound.symbols;
    f.witness = analysis.WitnessFor(bound.symbols);
    // Past the bound, unless moving there breaks something else first (an input contract).
    std::optional<Counterexample> c = analysis.CounterexampleFor(bound.symbols);
    if (c && c->failing_node.index == node) f.counterexample = std::move(c);
    // The table's length is the constant side (64 rows), not where the symbols stop together.
    const std::optional<int64_t> length = r.lhs.AsConstant();
    if (const std::optional<Note> limit =
            WhereTheLimitIs(analysis, graph, node, length.value_or(bound.max))) {
      f.notes.push_back(*limit);
    }
    f.fix = absl::StrCat("serve and profile ", names,
                         " where the witness says, or enlarge the "
                         "table or buffer");
    return f;
  }

  // A restriction over sizes the exporter kept symbolic: it comes from the module, since no
  // constant of the graph can hold those sizes' example values (lint/export_ranges.h).
  Finding ReportTraced(const Analysis& analysis, const Pin& pin) const {
    const infer::Requirement& r = *pin.requirement;
    const ir::Graph& graph = *r.graph;
    const std::string names = absl::StrJoin(pin.symbols, ", ");
    Witness w = analysis.WitnessFor(pin.symbols);
    Finding f = FindingAt(
        analysis, graph, r.node >= 0 ? r.node : 0, Evidence::kDesign,
        absl::StrCat(names, pin.symbols.size() > 1 ? " are" : " is",
                     " restricted by a size of the model's own: ", r.what, " (",
                     r.lhs.ToString(kMaxExprText), " vs ", r.rhs.ToString(kMaxExprText), ")"));
    f.symbols = pin.symbols;
    f.witness = std::move(w);
    f.counterexample = analysis.CounterexampleFor(pin.symbols);
    const LiteralSource literal = LiteralSideOf(analysis.inference(), r, analysis.specialized());
    if (literal.kind != LiteralSource::Kind::kNone) {
      f.attribute = literal.name;
      f.notes.push_back({absl::StrCat("the fixed side is '", literal.name, "' [",
                                      absl::StrJoin(literal.dims, ", "), "]"),
                         std::nullopt});
    }
    f.notes.push_back(
        {absl::StrCat("torch.export traced ", names, " symbolically (",
                      std::string(kRangeConstraintsKey), " gives ",
                      pin.symbols.size() > 1 ? "them" : "it",
                      " more than one size), so no constant of the graph holds ",
                      pin.symbols.size() > 1 ? "their" : "its",
                      " example size: the limit is a buffer, a parameter or a size written in "
                      "the model's code, and eager PyTorch fails past it too"),
         std::nullopt});
    f.fix = absl::StrCat("serve and profile ", names,
                         " where the witness says, or change the module that fixes the size");
    return f;
  }

  // The nearest Slice or Gather upstream of `node` (or `node` itself) whose data has an axis of
  // `max` elements: the table or buffer the size is clamped to or indexes.
  static std::optional<Note> WhereTheLimitIs(const Analysis& analysis, const ir::Graph& graph,
                                             int node, int64_t max) {
    std::deque<int> queue{node};
    absl::flat_hash_set<int> seen{node};
    for (int walked = 0; !queue.empty() && walked < kMaxNodesWalked; ++walked) {
      const ir::Node n = graph.node(queue.front());
      queue.pop_front();
      const bool slice = n.op_type() == "Slice", gather = n.op_type() == "Gather";
      if ((slice || gather) && n.input_size() > 0 && HasAxisOf(analysis, graph, n, max)) {
        return Note{
            absl::StrCat(
                "the limit is the length of '", Table(graph, n.input(0)), "' (", max, "), ",
                slice ? "sliced by the size here" : "indexed by positions up to the size here"),
            analysis.Ref(graph, n.index())};
      }
      for (int i = 0; i < n.input_size(); ++i) {
        const int producer = graph.Producer(n.input(i));
        if (producer >= 0 && seen.insert(producer).second) queue.push_back(producer);
      }
    }
    return std::nullopt;
  }

  // The tensor `value` was cut or cast from: the buffer or initializer a user would recognise
  // (mask, not the first of the two slices of mask[:T, :T]).
  static std::string Table(const ir::Graph& graph, std::string_view value) {
    for (int steps = 0; steps < kMaxNodesWalked; ++steps) {
      const int producer = graph.Producer(value);
      if (producer < 0) break;
      const ir::Node p = graph.node(producer);
      const std::string& op = p.op_type();
      if (p.input_size() == 0 ||
          (op != "Slice" && op != "Identity" && op != "Cast" && op != "Unsqueeze")) {
        break;
      }
      value = p.input(0);
    }
    return std::string(value);
  }

  static bool HasAxisOf(const Analysis& analysis, const ir::Graph& graph, const ir::Node& slice,
                        int64_t max) {
    const infer::TensorFact* data = analysis.inference().FindIn(graph, slice.input(0));
    if (data == nullptr || !data->shape) return false;
    return std::any_of(data->shape->begin(), data->shape->end(),
                       [&](const sym::MaybeExpr& d) { return d && d->AsConstant() == max; });
  }
};

}  // namespace

std::unique_ptr<Rule> MakeDesignRange(const RuleInfo& info) {
  return std::make_unique<DesignRange>(info);
}

}  // namespace shapelint::lint
