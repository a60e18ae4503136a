// SL010 design-range: a dynamic dim works only within a range the model's design sets: up to
// the length of a table or buffer sliced by it, or from the literal count or index it must hold.
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
#include <set>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "baked_literal.h"
#include "design_range_class.h"
#include "lint/export_ranges.h"
#include "lint/literals.h"
#include "lint/padding.h"
#include "lint/provenance.h"
#include "lint/requirements.h"
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
      if (RestatesBake(analysis, out, *pin)) continue;
      out.push_back(ReportTraced(analysis, *pin));
    }
    ReportMinimums(analysis, out);
    ReportNarrowing(analysis, out);
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
      w.ranges.push_back(SymbolRange::Between(
          s, std::min(analysis.witness().Get(s).value_or(1), bound.max), 1, bound.max));
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
         "too, so this is the model's range, not a size of the example; unless forward takes "
         "another path for longer inputs that the trace did not record (a cache rebuilt past "
         "its length), which a run of the module there settles",
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

  // True when a rule that ran before reports a baked size whose counterexample fails at `pin`'s
  // node (SL001's decomposed pool, whose window the exporter set from the example, breaks the
  // Linear after it; `out` holds the findings): the restriction there restates that bake rather
  // than a size of the module's own.
  static bool RestatesBake(const Analysis& analysis, const std::vector<Finding>& out,
                           const Pin& pin) {
    const infer::Requirement& r = *pin.requirement;
    if (r.graph != &analysis.model().graph() || r.node < 0) return false;
    return std::any_of(out.begin(), out.end(), [&](const Finding& f) {
      return StatesBakedLiteral(f) && f.severity == Severity::kError && f.counterexample &&
             f.counterexample->node_fails && f.counterexample->failing_node.graph == "main" &&
             f.counterexample->failing_node.index == r.node;
    });
  }

  // A restriction over sizes the exporter kept symbolic, at a node whose recorded line takes no
  // int(): it comes from the module, since no constant of the graph can hold those sizes'
  // example values (lint/export_ranges.h; Analysis sorts the int() lines out, AtIntLine).
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
    const LiteralSource literal =
        LiteralSideOf(analysis.inference(), r, analysis.specialized(), analysis.signature());
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
                      " more than one size), so a constant of the graph holds ",
                      pin.symbols.size() > 1 ? "their" : "its",
                      " example size only through a Python int the record does not show (int() "
                      "of float arithmetic, int(x.size(1) * 0.5), or of a product of sizes, "
                      "int(h * w)), and the node's recorded line takes no int(): the limit is "
                      "most likely a buffer, a parameter or a size written in the model's code, "
                      "and eager PyTorch fails past it too"),
         std::nullopt});
    f.fix = absl::StrCat("serve and profile ", names,
                         " where the witness says, or change the module that fixes the size");
    return f;
  }

  // A count, an index or a kernel window that needs a dim to be at least a size.
  static bool IsMinimum(const infer::Requirement& r) {
    return (r.kind == infer::RequirementKind::kIndexBound ||
            r.kind == infer::RequirementKind::kWindow) &&
           r.relation == infer::Relation::kAtLeast;
  }

  // A literal count or index that needs a dynamic dim to be at least its value (TopK's k, a
  // Gather's index) holds from some size on, so the analysis keeps it among the constraints the
  // model shares with eager PyTorch (a kernel larger than its input). Eager may clamp where the
  // graph cannot: YOLO26's min(max_det, anchors) traced at 640 is TopK k = 300, and below 128 x
  // 128 ONNX Runtime fails where eager returns every anchor. Statically the two read alike: a
  // note with the smallest size and the failure below it, so that lint is never silent where
  // the graph fails at sizes its inputs declare valid. (Another rule may name the same literal,
  // SL007 a T - 1 index: rules do not read each other's findings, so each says its part.)
  void ReportMinimums(const Analysis& analysis, std::vector<Finding>& out) const {
    const absl::flat_hash_set<const infer::Requirement*>& claimed =
        analysis.ReportedThroughCauses();
    // The largest minimum of each set of symbols.
    std::map<std::vector<std::string>, std::pair<const infer::Requirement*, int64_t>> tightest;
    for (const infer::Requirement& r : analysis.inference().requirements) {
      if (!IsMinimum(r) || claimed.contains(&r)) {
        continue;
      }
      const std::optional<int64_t> count = r.rhs.AsConstant();
      const std::vector<std::string> symbols = r.lhs.Symbols();
      if (!count || *count < 2 || symbols.empty()) continue;
      const std::optional<int64_t> from = SmallestSize(analysis, r, symbols);
      if (!from || *from <= 1) continue;
      auto& best = tightest[symbols];
      if (best.first == nullptr || *from > best.second) best = {&r, *from};
    }
    for (const auto& [symbols, minimum] : tightest) {
      const infer::Requirement& r = *minimum.first;
      out.push_back(ReportMinimum(analysis, r, symbols, minimum.second));
    }
  }

  // Any other requirement of a node that the analysis kept as a constraint eager PyTorch shares
  // (a divisibility: GLU's even channels, a Reshape to a multiple) and that fails next to the
  // witness, one symbol moved (by up to kNearby, by a stride's 8 to 32, or halved or doubled): the
  // sizes it rules out are declared valid, so a
  // note states the relation and where it fails. A module's own constraint (eager fails there
  // too) or one the example baked in (a grid of 4 x 4 at T = 16, which SL007 finds told the
  // export sizes): either way the model does not run there.
  void ReportNarrowing(const Analysis& analysis, std::vector<Finding>& out) const {
    constexpr int64_t kNearby = 4;
    absl::flat_hash_set<const infer::Requirement*> claimed = analysis.ReportedThroughCauses();
    // Sizes whose range is stated already (a bound, a module's own size) need no second note.
    std::set<std::vector<std::string>> stated;
    for (const Bound& b : analysis.bounds()) {
      claimed.insert(b.requirement);
      stated.insert(b.symbols);
    }
    for (const Pin& p : analysis.design_pins()) {
      claimed.insert(p.requirement);
      stated.insert(p.symbols);
    }
    // One finding per node: a broadcast over many independent dims narrows each of them, and
    // one note per relation would repeat the node (and a counterexample as long as the inputs'
    // rank) as often as the rank: output quadratic in it.
    std::map<std::pair<const ir::Graph*, int>, Narrowed> by_node;
    std::vector<std::pair<const ir::Graph*, int>> order;
    sym::Binding moved = analysis.witness();  // each try sets one symbol and puts it back
    for (const infer::Requirement& r : analysis.inference().requirements) {
      // Counts, indices and windows that need a dim at least a literal are ReportMinimums'; an
      // index computed from sizes (DLRM's pairs i * F + j against F * F rows) relates two sizes.
      if (r.kind == infer::RequirementKind::kDeclaredShape ||
          (IsMinimum(r) && r.rhs.AsConstant()) || r.graph == nullptr || r.node < 0 ||
          claimed.contains(&r)) {
        continue;
      }
      const std::vector<std::string> symbols = SymbolsOf(r);
      if (symbols.empty() || stated.contains(symbols)) continue;
      const auto node = std::make_pair(r.graph, r.node);
      Narrowed& n = by_node[node];
      // The node's first narrowing relation gets the counterexample: the graph evaluated there
      // must fail at this node, or the relation is another node's consequence. The node's other
      // relations need only fail themselves.
      const bool first = !n.failure;
      // SL013's, where it reports the relation: the graph padded the view's input and did not
      // crop it, and the graph fails at this node there (the same test as SL013's).
      bool padded = false;
      const bool found = FailingNear(
          r, symbols, analysis.witness(), moved, kNearby, [&](const sym::Binding& failing) {
            const bool pad = PadNotCroppedBefore(analysis, r, failing).has_value();
            if (!first && !pad) return true;
            Counterexample c = analysis.Evaluate(failing);
            if (!c.node_fails || c.failing_node.index != r.node) {
              return false;
            }
            padded = pad;
            if (!pad) n.failure = std::move(c);
            return true;
          });
      if (!found || padded) continue;
      if (first) {
        n.first = &r;
        order.push_back(node);
      }
      stated.insert(symbols);
      n.relations.push_back(&r);
      n.symbols.insert(symbols.begin(), symbols.end());
    }
    for (const auto& node : order) out.push_back(NarrowingFinding(analysis, by_node[node]));
  }

  struct Narrowed {
    std::optional<Counterexample> failure;
    const infer::Requirement* first = nullptr;
    std::vector<const infer::Requirement*> relations;  // the first among them
    std::set<std::string> symbols;
  };

  // At most this many relations are spelled out in one finding's message.
  static constexpr size_t kRelationsShown = 3;

  Finding NarrowingFinding(const Analysis& analysis, Narrowed& n) const {
    const infer::Requirement& r = *n.first;
    const std::vector<std::string> first = SymbolsOf(r);
    const std::string names = absl::StrJoin(first, ", ");
    // An index computed from one size (DLRM's pairs, 3F + 2 into F * F rows) needs that size to
    // reach a least value, as a literal count does: say from where the graph runs.
    std::optional<int64_t> from = IsMinimum(r) && first.size() == 1 && n.relations.size() == 1
                                      ? SmallestSize(analysis, r, first)
                                      : std::nullopt;
    // "From there on" only where it keeps holding far past the witness: an index that outgrows
    // the dim (2F into F + 10 rows) holds up to a size, not from one.
    if (from) {
      sym::Binding past = analysis.witness();
      const int64_t w = past.Get(first[0]).value_or(*from);
      for (const int64_t k : {2, 4, 16, 64}) {
        past.Set(first[0], std::max(w, *from) * k);
        if (HoldsUnder(r, past) != true) from.reset();
        if (!from) break;
      }
    }
    // Else a view to a literal multiple (unflatten(1, (-1, 4))) or pairs of frames runs at every
    // fourth or every second size: say which, where the relation alone leaves the user to solve it.
    const std::optional<Witness> congruence =
        from && *from > 1 ? std::nullopt : Congruence(analysis, n);
    // Where the sizes are a residue class, the symbols it restricts are the narrowed ones: a
    // batch and features that cancel out of a view's element count are not (Congruence keeps
    // one at least).
    std::vector<std::string> narrowed = first;
    if (congruence) {
      narrowed.clear();
      for (const SymbolRange& range : congruence->ranges) {
        if (range.congruent_from) narrowed.push_back(range.symbol);
      }
    }
    std::string message =
        absl::StrCat(absl::StrJoin(narrowed, ", "), narrowed.size() > 1 ? " are" : " is",
                     " narrowed by the graph: ", RequirementText(r), " (", r.what,
                     ") fails at some sizes the inputs declare "
                     "valid");
    if (n.relations.size() > 1) {
      std::vector<std::string> more;
      for (size_t i = 1; i < n.relations.size() && i <= kRelationsShown; ++i) {
        more.push_back(RequirementText(*n.relations[i]));
      }
      const size_t unshown = n.relations.size() - 1 - more.size();
      absl::StrAppend(&message, "; so does each of ", n.relations.size() - 1, " more relation",
                      n.relations.size() > 2 ? "s" : "",
                      " of this node: ", absl::StrJoin(more, "; "),
                      unshown > 0 ? absl::StrCat("; and ", unshown, " more") : "");
    }
    // The sizes of the others a class holds at, where moving them moves it ("" where not).
    const std::string others = congruence ? OthersText(analysis, n, *congruence) : "";
    if (from && *from > 1) {
      absl::StrAppend(&message, ", and holds from ", names, " = ", *from, " on");
    } else if (congruence) {
      absl::StrAppend(&message, "; the model ", congruence->summary, others);
    }
    Finding f = FindingAt(analysis, *r.graph, r.node, Evidence::kDesign, std::move(message));
    f.symbols.assign(n.symbols.begin(), n.symbols.end());
    f.counterexample = std::move(n.failure);
    if (from && *from > 1) {
      Witness w;
      w.ranges.push_back(SymbolRange::Between(
          first[0], analysis.witness().Get(first[0]).value_or(*from), *from, std::nullopt));
      w.summary = absl::StrCat("works for ", names, " from ", *from, " on");
      f.witness = std::move(w);
    } else if (congruence) {
      f.witness = *congruence;
    }
    if (congruence &&
        NotePadToClass(analysis, r, *congruence,
                       absl::StrCat(absl::StripPrefix(congruence->summary, kWorksOnlyFor), others),
                       f)) {
      return f;
    }
    f.notes.push_back(
        {"eager PyTorch may share the constraint (an even channel count for a GLU) or not (a "
         "grid the export fixed): the model runs only where it holds",
         std::nullopt});
    f.fix = congruence
                ? absl::StrCat("serve and profile only ",
                               absl::StripPrefix(congruence->summary, kWorksOnlyFor), others,
                               ", or pad the input to such sizes before the model")
                : absl::StrCat("serve and profile ", n.relations.size() > 1 ? "these sizes" : names,
                               " where the relation", n.relations.size() > 1 ? "s hold" : " holds");
    return f;
  }

  static constexpr absl::string_view kWorksOnlyFor = "works only for ";

  // The residue classes the node's relations keep its symbols to, with the others at the
  // witness (design_range_class.h).
  static std::optional<Witness> Congruence(const Analysis& analysis, const Narrowed& n) {
    return RelationClasses(n.relations, {n.symbols.begin(), n.symbols.end()}, analysis.witness());
  }

  static std::string OthersText(const Analysis& analysis, const Narrowed& n, const Witness& w) {
    return ClassOthersText(n.relations, {n.symbols.begin(), n.symbols.end()}, analysis.witness(),
                           w);
  }

  // The smallest size at which `r` holds with each of `symbols` at that size and the others at
  // the witness, where it holds at the witness; a count that grows with the sizes holds from
  // there on (binary search, checked at the answer and below it).
  static std::optional<int64_t> SmallestSize(const Analysis& analysis, const infer::Requirement& r,
                                             const std::vector<std::string>& symbols) {
    sym::Binding at = analysis.witness();
    int64_t top = 1;
    for (const std::string& s : symbols) top = std::max(top, at.Get(s).value_or(1));
    auto holds_at = [&](int64_t size) {
      for (const std::string& s : symbols) at.Set(s, size);
      const std::optional<bool> h = HoldsUnder(r, at);
      return h.has_value() && *h;
    };
    if (!holds_at(top)) return std::nullopt;
    int64_t lo = 1, hi = top;  // holds at hi
    while (lo < hi) {
      const int64_t mid = lo + (hi - lo) / 2;
      if (holds_at(mid)) {
        hi = mid;
      } else {
        lo = mid + 1;
      }
    }
    if (hi > 1 && (holds_at(hi - 1) || !holds_at(hi))) return std::nullopt;
    return hi;
  }

  Finding ReportMinimum(const Analysis& analysis, const infer::Requirement& r,
                        const std::vector<std::string>& symbols, int64_t from) const {
    const ir::Graph& graph = *r.graph;
    const std::string names = absl::StrJoin(symbols, ", ");
    const bool several = symbols.size() > 1;
    const bool window = r.kind == infer::RequirementKind::kWindow;
    const bool mirror = window && graph.node(r.node >= 0 ? r.node : 0).op_type() == "Pad";
    Finding f = FindingAt(
        analysis, graph, r.node >= 0 ? r.node : 0, Evidence::kDesign,
        absl::StrCat(
            names, several ? " work" : " works", " only from ", from, " on: ", r.what, " (",
            r.lhs.ToString(kMaxExprText), " vs ", r.rhs.ToString(kMaxExprText),
            mirror   ? "): the mirrored pad must fit in the input, which it does from "
            : window ? "): the window must fit in the input, which it does from "
                     : absl::StrCat(
                           "): the dim must be at least the literal ", r.rhs.ToString(),
                           several ? ", which it is once they all reach " : ", which it is from "),
            from));
    f.symbols = symbols;
    Witness w;
    for (const std::string& s : symbols) {
      w.ranges.push_back(
          SymbolRange::Between(s, analysis.witness().Get(s).value_or(from), from, std::nullopt));
    }
    w.summary = absl::StrCat("works for ", names, " from ", from, " on",
                             several ? " together (all at that size)" : "");
    f.witness = std::move(w);
    sym::Binding below = analysis.witness();
    for (const std::string& s : symbols) below.Set(s, from - 1);
    f.counterexample = analysis.CounterexampleAt(below);
    if (window) {
      // A kernel or a reflect pad is the module's own: eager PyTorch refuses the same sizes.
      f.notes.push_back({mirror ? "a reflect pad as wide as the input: eager PyTorch fails below "
                                  "the size too"
                                : "a kernel larger than the input: eager PyTorch fails below the "
                                  "size too",
                         std::nullopt});
      f.fix = absl::StrCat("serve and profile ", names, " from ", from, " on");
      return f;
    }
    // A count the module writes (torch.topk(x, 3)) is its own limit, which eager shares: design.
    // One the graph holds with no such record may equally be a min() or a clamp the exporter
    // evaluated at the example (topk(x, min(300, n)) traced at n >= 300): a limit that may be
    // the source's own, which the severity policy makes a hypothesis. The number the node holds
    // is TopK's k, or an index one less than the count (x[:, 4] needs 5 steps).
    const std::string& op = graph.node(r.node >= 0 ? r.node : 0).op_type();
    const bool index = absl::StartsWith(op, "Gather");
    const std::optional<int64_t> held =
        op == "TopK" || index
            ? std::optional<int64_t>(r.rhs.AsConstant().value_or(0) - (index ? 1 : 0))
            : std::nullopt;
    const std::optional<SourceLocation>& line = f.source;
    if (line && held && WritesNumber(line->code, *held)) {
      f.notes.push_back({absl::StrCat("the recorded line writes the number itself (", line->code,
                                      "): the module's own count, and eager PyTorch fails below "
                                      "the size too"),
                         std::nullopt});
    } else {
      f.evidence = Evidence::kHypothesis;
      f.notes.push_back(
          {"a count or index the graph holds as a literal: eager PyTorch fails below the size "
           "too when the module's code holds it, but not when the exporter evaluated a min() or "
           "a clamp of it at the example size",
           std::nullopt});
    }
    f.fix = absl::StrCat("serve and profile ", names, " from ", from,
                         " on, or compute the count from the input's shape in the model "
                         "(torch.minimum of it and the dim) so that it stays dynamic");
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
