// SL002 baked-reshape-target: a Reshape whose target holds literal sizes while its input's
// dims are dynamic — a traced Python int (x.view(int(x.size(0)), -1)), a decomposition that
// froze its views (torch.kron), or a folded batch*seq.
//
// Claims: a Reshape on the failure's path (the failing node, or one whose output changes with
// the moved size) with a dynamic input and a literal entry other than 0 and -1 in its target,
// unless it only regroups the input's static dims (the head split of attention) or the failing
// node has a literal operand of its own, which explains the failure better (GroupNorm's
// Reshape [0, groups, -1] is not where the channel count was fixed), or the failing view rounds
// a size up to a multiple (Pin::rounds_up: the pad or resize before it is what is missing).
// Also reports, without a failure, a literal first or last entry where the input has a
// declared-dynamic dim and the target has a -1: x.view(int(x.size(0)), -1) mixes samples.
#include "baked_reshape_target.h"

#include <algorithm>
#include <limits>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "lint/fix_builder.h"
#include "lint/requirements.h"
#include "lint/rule.h"

namespace shapelint::lint {
namespace {

// The literals a Reshape target was built from, named: those of its entries that are sizes
// (not 0, 1 or -1, which copy, keep or infer a dim), or of every literal entry when it holds
// none; "Constant 'a' and Constant 'b'" where a Concat joined several.
std::string OriginText(const infer::Inference& inference, const infer::TensorFact& target) {
  constexpr size_t kNamed = 3;
  std::vector<std::string> names;
  for (const bool sizes_only : {true, false}) {
    for (const auto& e : *target.values) {
      const infer::Origin* o = inference.OriginOf(e.origin);
      if (o == nullptr || !o->IsLiteral()) continue;
      const std::optional<int64_t> v = e.value ? e.value->AsConstant() : std::nullopt;
      if (sizes_only && (!v || (*v >= -1 && *v <= 1))) continue;
      std::string name;
      switch (o->kind) {
        case infer::Origin::Kind::kInitializer:
          name = absl::StrCat("initializer '", o->name, "'");
          break;
        case infer::Origin::Kind::kConstantNode:
          name = absl::StrCat("Constant '", o->graph->NodeLabel(o->node), "'");
          break;
        case infer::Origin::Kind::kAttribute:
          name = absl::StrCat("attribute '", o->name, "' of '", o->graph->NodeLabel(o->node), "'");
          break;
        case infer::Origin::Kind::kShapeOf:
          continue;
      }
      if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
    }
    if (!names.empty()) break;
  }
  if (names.empty()) return "a literal";
  if (names.size() > kNamed) {
    const size_t more = names.size() - kNamed;
    names.resize(kNamed);
    return absl::StrCat(absl::StrJoin(names, ", "), " and ", more, " more");
  }
  if (names.size() == 1) return names[0];
  const std::string last = names.back();
  names.pop_back();
  return absl::StrCat(absl::StrJoin(names, ", "), " and ", last);
}

// True when, upstream of the failing node, the Reshape's output changed with the move only where
// its target follows the input (a symbolic entry, or 0 copying the input's dim): the literals of
// the target (a chunk size of 4 in [b, -1, 4, d]) did not take the moved size's place, so the
// size did not enter here. A literal that holds a moved size ([2, -1] at a moved batch) leaves
// the -1 to absorb it, and the -1's dim changes.
bool ChangedOnlyWhereTargetFollows(const BlameSite& site, const ir::Node& n,
                                   const std::vector<infer::Element>& target) {
  if (n.output_size() < 1) return false;
  const auto before = site.DimsAtWitness(n.output(0));
  const auto after = site.DimsAtMoved(n.output(0));
  if (!before || !after || before->size() != after->size() || before->size() != target.size()) {
    return false;
  }
  for (size_t i = 0; i < target.size(); ++i) {
    if ((*before)[i] == (*after)[i]) continue;
    const sym::MaybeExpr& e = target[i].value;
    const std::optional<int64_t> c = e ? e->AsConstant() : std::nullopt;
    if (!e || (c && *c != 0)) return false;  // a literal's or the -1's dim changed
  }
  return true;
}

bool IsLiteralReshape(const BlameSite& site, int node) {
  const ir::Node n = site.graph().node(node);
  if (n.op_type() != "Reshape" || n.input_size() < 2) return false;
  if (node != site.start() && !site.Changed(node)) return false;
  const infer::TensorFact* target = site.inference().Find(n.input(1));
  const infer::TensorFact* input = site.inference().Find(n.input(0));
  if (target == nullptr || !target->values || input == nullptr || !input->shape) return false;
  if (node != site.start() && ChangedOnlyWhereTargetFollows(site, n, *target->values)) {
    return false;
  }
  const bool symbolic_input = std::any_of(input->shape->begin(), input->shape->end(),
                                          [](const auto& d) { return d && !d->IsConstant(); });
  if (!symbolic_input || baked_reshape_target::RegroupsStaticDims(*input, *target)) return false;
  const std::vector<bool> kept = baked_reshape_target::KeptStaticEnds(*input, *target->values);
  for (size_t j = 0; j < target->values->size(); ++j) {
    const infer::Element& e = (*target->values)[j];
    auto c = e.value ? e.value->AsConstant() : std::nullopt;
    const infer::Origin* o = site.inference().OriginOf(e.origin);
    if (c && *c != 0 && *c != -1 && o != nullptr && o->IsLiteral() && !kept[j] &&
        // A 1 adds a unit axis (GroupNorm(1)'s [0, 1, -1], a decoder's [-1, 1]): no size of
        // an example by itself. Against a graph output's declaration or a failing node it is
        // the batch of 1 an exporter wrote ([1, -1]); against a tool's value_info alone,
        // that value_info is what SL003 reports.
        (*c != 1 || !IsHint(*site.pin().requirement))) {
      return true;
    }
  }
  return false;
}

// The repair: each literal of the target that stands for input dims becomes those dims, as
// Reshape's 0 where the dim keeps its place (the target stays a constant) or computed from
// Shape of the input; a -1 stays. Entries are matched to input dims by grouping both, in
// order, into runs of equal size at the witness, the sizes at which the literals are right.
class TargetRepair {
 public:
  // `at`: sizes at which the target is right (the witness, where every pin holds, unless the
  // finding has sizes of its own); it must outlive the repair.
  TargetRepair(const Analysis& analysis, int node, const sym::Binding& at)
      : analysis_(analysis), node_(analysis.model().graph().node(node)), index_(node), at_(at) {}
  TargetRepair(const Analysis& analysis, int node)
      : TargetRepair(analysis, node, analysis.witness()) {}

  absl::StatusOr<FixIt> Build() {
    // torch.export writes allowzero=1: a 0 is then a dim of 0, and the dims that keep their
    // place are computed like the others.
    allow_zero_ = node_.IntAttribute("allowzero").value_or(0) != 0;
    const infer::TensorFact* input = analysis_.inference().Find(node_.input(0));
    const infer::TensorFact* target = analysis_.inference().Find(node_.input(1));
    auto dims = analysis_.DimsAt(node_.input(0), at_);
    if (input == nullptr || !input->shape || target == nullptr || !target->values || !dims) {
      return absl::FailedPreconditionError("the input's shape at the witness is not known");
    }
    input_ = &*input->shape;
    dims_ = *dims;
    for (const infer::Element& e : *target->values) {
      auto v = e.value ? e.value->Evaluate(at_) : std::nullopt;
      if (!v) return absl::FailedPreconditionError("a target entry is not known at the witness");
      if (*v == 0 && allow_zero_) {
        return absl::FailedPreconditionError("the target holds a dim of 0 (allowzero=1)");
      }
      entries_.push_back(*v == 0 && entries_.size() < dims_.size() ? dims_[entries_.size()] : *v);
      literal_.push_back(e.value && e.value->IsConstant() && *v != 0);
    }
    if (auto st = Match(); !st.ok()) return st;
    if (auto st = Unambiguous(); !st.ok()) return st;
    if (auto st = Plan(); !st.ok()) return st;
    return EmitAt(index_);
  }

  // After Build(): the same repair for Reshape `other`, which takes a tensor of the same shape
  // at the witness to the same literal target (the same view in another layer).
  FixIt BuildLike(int other) const { return EmitAt(other); }

 private:
  // One run: input dims [i0, i1) and target entries [j0, j1) of the same size at the witness.
  struct Run {
    size_t i0, i1, j0, j1;
  };

  absl::Status Match() {
    const size_t infer = std::find(entries_.begin(), entries_.end(), -1) - entries_.begin();
    size_t i = 0, j = 0;
    // From the left up to the -1, then from the right down to it; what is left is the -1's.
    while (j < infer && i <= dims_.size()) {
      auto run = NextRun(i, j, infer);
      if (!run) return absl::FailedPreconditionError(Mismatch());
      runs_.push_back(*run);
      i = run->i1;
      j = run->j1;
    }
    if (infer == entries_.size()) {
      if (i != dims_.size()) return absl::FailedPreconditionError(Mismatch());
      return absl::OkStatus();
    }
    size_t ri = dims_.size(), rj = entries_.size();
    while (rj > infer + 1) {
      // Runs from the right: the last entries against the last dims, one entry at a time.
      int64_t want = entries_[rj - 1];
      size_t start = ri;
      int64_t have = 1;
      while (start > i && have < want) have *= dims_[--start];
      if (have != want || want == 1) {
        if (want == 1) {
          runs_.push_back({ri, ri, rj - 1, rj});
          --rj;
          continue;
        }
        return absl::FailedPreconditionError(Mismatch());
      }
      runs_.push_back({start, ri, rj - 1, rj});
      ri = start;
      --rj;
    }
    return absl::OkStatus();
  }

  std::optional<Run> NextRun(size_t i, size_t j, size_t end) const {
    if (entries_[j] == 1 && (i >= dims_.size() || dims_[i] != 1)) return Run{i, i, j, j + 1};
    int64_t have = i < dims_.size() ? dims_[i] : 0, want = entries_[j];
    size_t i1 = i + 1, j1 = j + 1;
    while (have != want) {
      // Products past int64 (hostile dims or entries) match nothing.
      if (have < want && i1 < dims_.size()) {
        if (__builtin_mul_overflow(have, dims_[i1++], &have)) return std::nullopt;
      } else if (want < have && j1 < end) {
        if (__builtin_mul_overflow(want, entries_[j1++], &want)) return std::nullopt;
      } else {
        return std::nullopt;
      }
    }
    return Run{i, i1, j, j1};
  }

  // A dynamic dim of size 1 at the witness joins any run: [N, C, H, W] at H = 1 groups W with
  // H or alone alike, and only one of them is what the literal stands for. The sizes at which
  // the model works then do not tell; the export sizes (--export-dims) would.
  absl::Status Unambiguous() const {
    // A dim of 1 is as good a match for every literal 1 of the target: [b0, b1] at b0 = 1
    // against [1, 1, 1, 5] may be [b0, 1, 1, b1] or [1, b0, 1, b1] (torch.kron's view).
    const auto ones = std::count(entries_.begin(), entries_.end(), 1);
    for (const Run& run : runs_) {
      if (run.i1 - run.i0 < 2 && ones < 2) continue;
      for (size_t i = run.i0; i < run.i1; ++i) {
        const sym::MaybeExpr& d = (*input_)[i];
        if (dims_[i] != 1 || !d || d->IsConstant()) continue;
        return absl::FailedPreconditionError(absl::StrCat(
            "where the target is right ", d->ToString(kMaxExprText),
            " is 1, so which of its literals stands for it is not known (the export sizes tell "
            "unless they are 1 too)"));
      }
    }
    return absl::OkStatus();
  }

  std::string Mismatch() const {
    return "the target does not regroup the input's dims in order at the witness";
  }

  // The input dims [i0, i1) multiplied, symbolically.
  sym::MaybeExpr Product(const Run& run) const {
    sym::MaybeExpr p = sym::Expr::Constant(1);
    for (size_t i = run.i0; i < run.i1; ++i) p = sym::Mul(p, (*input_)[i]);
    return p;
  }

  // What each entry of the new target is: its constant (0 copies the input's dim at its
  // place), or the product of input dims [first, last].
  absl::Status Plan() {
    constant_ = entries_;
    computed_.assign(entries_.size(), std::nullopt);
    bool changed = false;
    for (const Run& run : runs_) {
      sym::MaybeExpr product = Product(run);
      if (!product) return absl::FailedPreconditionError("an input dim is not known");
      if (product->IsConstant()) continue;  // static dims: the literals are right at any size
      if (run.j1 - run.j0 != 1) {
        return absl::FailedPreconditionError(
            absl::StrCat("the target splits the dynamic ", product->ToString(kMaxExprText),
                         " into several literals; which of them follows it is not known"));
      }
      // Every entry that follows a dynamic run is written anew, computed ones too: the target
      // becomes one tensor.
      const size_t j = run.j0;
      changed = changed || literal_[j];
      if (run.i1 - run.i0 == 1 && run.i0 == j && !allow_zero_) {
        constant_[j] = 0;  // Reshape's 0: the input's dim at the same place
      } else {
        computed_[j] = std::make_pair(run.i0, run.i1 - 1);
      }
    }
    if (!changed) {
      return absl::FailedPreconditionError("no literal of the target stands for a dynamic dim");
    }
    return absl::OkStatus();
  }

  // The plan's target for Reshape `node`, from its own input.
  FixIt EmitAt(int node) const {
    const ir::Graph& g = analysis_.model().graph();
    const ir::Node n = g.node(node);
    FixBuilder b(analysis_, node, Applicability::kSafe, "");
    std::string target;
    if (std::none_of(computed_.begin(), computed_.end(), [](const auto& c) { return c; })) {
      target = b.Ints(constant_);
    } else {
      std::vector<std::string> parts;
      for (size_t j = 0; j < constant_.size(); ++j) {
        parts.push_back(computed_[j]
                            ? b.ProductOfDims(n.input(0), computed_[j]->first, computed_[j]->second)
                            : b.Ints({constant_[j]}));
      }
      target = b.Add("Concat", parts, {{{"axis", 0}}, {}}, "shape");
    }
    b.Rewire(node, 1, target);
    if (int producer = g.Producer(n.input(1)); producer >= 0) b.DropIfUnread(producer);
    FixIt fix = std::move(b).Take();
    fix.description = absl::StrCat("the Reshape target follows the input's dims: [",
                                   absl::StrJoin(TargetText(constant_), ", "), "]");
    return fix;
  }

  // The new target as expressions: the dims an entry follows, or its constant.
  std::vector<std::string> TargetText(const std::vector<int64_t>& constant) const {
    std::vector<std::string> parts;
    for (size_t j = 0; j < constant.size(); ++j) {
      std::string text = absl::StrCat(constant[j]);
      for (const Run& r : runs_) {
        sym::MaybeExpr p = r.j0 == j && r.j1 == j + 1 ? Product(r) : std::nullopt;
        if (p && !p->IsConstant()) text = p->ToString(kMaxExprText);
      }
      parts.push_back(text);
    }
    return parts;
  }

  const Analysis& analysis_;
  const ir::Node node_;
  const int index_;
  const sym::Binding& at_;
  bool allow_zero_ = false;
  const std::vector<sym::MaybeExpr>* input_ = nullptr;
  std::vector<int64_t> dims_;     // the input's dims at the witness
  std::vector<int64_t> entries_;  // the target at the witness, 0 resolved
  std::vector<bool> literal_;     // the entry is a literal other than 0
  std::vector<Run> runs_;
  std::vector<int64_t> constant_;
  std::vector<std::optional<std::pair<size_t, size_t>>> computed_;
};

// True when Reshape `other` takes a tensor of `node`'s input dims at the witness to `node`'s
// literal target: the same view, traced once per layer. (Its input may be static for now: the
// first layer's bake fixes every later layer's sizes.)
bool SameBake(const Analysis& analysis, int node, int other) {
  const ir::Graph& g = analysis.model().graph();
  const ir::Node a = g.node(node), b = g.node(other);
  if (other == node || b.op_type() != "Reshape" || b.input_size() < 2) return false;
  const infer::TensorFact* ta = analysis.inference().Find(a.input(1));
  const infer::TensorFact* tb = analysis.inference().Find(b.input(1));
  if (tb == nullptr || !tb->values || ta->values->size() != tb->values->size()) return false;
  for (size_t j = 0; j < ta->values->size(); ++j) {
    const infer::Element& ea = (*ta->values)[j];
    const infer::Element& eb = (*tb->values)[j];
    if (ea.value != eb.value || !ea.value || !ea.value->IsConstant()) return false;
    const infer::Origin* o = analysis.inference().OriginOf(eb.origin);
    if (o == nullptr || !o->IsLiteral()) return false;
  }
  if (b.IntAttribute("allowzero").value_or(0) != a.IntAttribute("allowzero").value_or(0)) {
    return false;
  }
  auto da = analysis.DimsAt(a.input(0), analysis.witness());
  auto db = analysis.DimsAt(b.input(0), analysis.witness());
  return da && db && *da == *db;
}

void AddRepair(const Analysis& analysis, const Cause* cause, int node, Finding& f,
               const sym::Binding* at = nullptr) {
  if (!analysis.fixes_wanted()) return;
  if (cause != nullptr && cause->graph != &analysis.model().graph()) {
    f.unfixable = "the Reshape is in a subgraph";
    return;
  }
  absl::StatusOr<FixIt> fix =
      TargetRepair(analysis, node, at != nullptr ? *at : analysis.witness()).Build();
  if (fix.ok() && at != nullptr) {
    for (const auto& [symbol, size] : at->values()) fix->holds_at.emplace_back(symbol, size);
    std::sort(fix->holds_at.begin(), fix->holds_at.end());
  }
  if (fix.ok()) {
    f.fix_it = *std::move(fix);
  } else {
    f.unfixable = std::string(fix.status().message());
  }
}

// The same repair at every Reshape no finding names that holds the same bake as `f`'s.
void AddSiblings(const Analysis& analysis, absl::flat_hash_set<int>& reported, Finding& f) {
  if (!f.fix_it || f.node.graph != "main") return;
  TargetRepair repair(analysis, f.node.index);
  if (!repair.Build().ok()) return;
  const ir::Graph& g = analysis.model().graph();
  for (int i = 0; i < g.num_nodes(); ++i) {
    if (reported.contains(i) || !SameBake(analysis, f.node.index, i)) continue;
    reported.insert(i);
    f.fix_it->siblings.push_back(repair.BuildLike(i));
  }
  if (!f.fix_it->siblings.empty()) {
    absl::StrAppend(&f.fix_it->description, "; the same in ", f.fix_it->siblings.size(),
                    " other Reshape", f.fix_it->siblings.size() == 1 ? "" : "s",
                    " with this target for a tensor of the same size");
  }
}

class BakedReshapeTarget : public Rule {
 public:
  using Rule::Rule;

  bool ClaimsNode(const BlameSite& site, int node) const override {
    // A view that rounds up fails for the resize the trace left out, not for its literals
    // (the patch size of a MobileViT unfold).
    if (node == site.start() && site.pin().rounds_up) return false;
    // A literal operand of the failing node outranks reshapes further up.
    if (node != site.start() && site.literal().kind != LiteralSource::Kind::kNone) return false;
    return IsLiteralReshape(site, node);
  }

  void Check(const Analysis& analysis, std::vector<Finding>& out) const override {
    absl::flat_hash_set<int> reported;
    const size_t first = out.size();  // `out` holds the findings of the rules before this one
    for (const Cause& cause : analysis.causes()) {
      if (!Owns(cause)) continue;
      if (cause.graph == &analysis.model().graph()) reported.insert(cause.node);
      const auto& node = cause.graph->node(cause.node);
      const infer::TensorFact* input = analysis.inference().Find(node.input(0));
      const infer::TensorFact* target = analysis.inference().Find(node.input(1));
      std::vector<sym::MaybeExpr> target_values;
      for (const auto& e : *target->values) target_values.push_back(e.value);
      Finding f =
          FindingFor(analysis, cause, cause.node,
                     absl::StrCat("Reshape target ", FormatDims(target_values), " from ",
                                  OriginText(analysis.inference(), *target),
                                  " holds sizes of the example input, but the ", "input shape ",
                                  FormatDims(*input->shape), " is dynamic"));
      f.attribute = "input 1 (shape)";
      baked_reshape_target::NoteTrainedTable(analysis, cause, f);
      baked_reshape_target::ConfirmOwnFailure(analysis, cause, f);
      baked_reshape_target::NoteWrittenLiterals(analysis, cause, f);
      f.fix =
          "build the target from the input's shape or use 0 and -1 for dims that follow the "
          "input: x.flatten(1) or x.reshape(x.shape[0], -1) instead of "
          "x.view(int(x.size(0)), -1)";
      AddRepair(analysis, &cause, cause.node, f);
      out.push_back(std::move(f));
    }
    const ir::Graph& g = analysis.model().graph();
    const size_t causes_end = out.size();
    for (int i = 0; i < g.num_nodes(); ++i) {
      if (g.node(i).op_type() != "Reshape" || reported.contains(i)) continue;
      if (auto f = LiteralBatch(analysis, i)) {
        reported.insert(i);
        out.push_back(std::move(*f));
      }
    }
    for (size_t k = first; k < causes_end; ++k) AddSiblings(analysis, reported, out[k]);
  }

 private:
  // x.view(int(x.size(0)), -1) traced at batch 2 writes the target [2, -1];
  // x.reshape(-1, int(x.size(-1))) writes [-1, 10]. When only divisibility is at stake nothing
  // may fail, and an output whose dims the exporter named itself promises nothing to compare
  // against: the model silently mixes samples, or fails only where the count does not divide.
  // A literal of at least 2 as the first or last entry of a target with a -1, where the input
  // has a declared-dynamic dim in the same place, is that bake.
  std::optional<Finding> LiteralBatch(const Analysis& analysis, int node) const {
    const ir::Graph& g = analysis.model().graph();
    const auto& n = g.node(node);
    if (n.input_size() < 2 || n.output_size() == 0) return std::nullopt;
    const infer::TensorFact* input = analysis.inference().Find(n.input(0));
    const infer::TensorFact* target = analysis.inference().Find(n.input(1));
    if (input == nullptr || !input->shape || input->shape->empty() || target == nullptr ||
        !target->values || target->values->size() < 2) {
      return std::nullopt;
    }
    // Without a -1 the element count is an equality, which the pins and causes above handle.
    const bool infers =
        std::any_of(target->values->begin(), target->values->end(),
                    [](const infer::Element& e) { return e.value && e.value->AsConstant() == -1; });
    if (!infers) return std::nullopt;
    if (auto f = LiteralAt(analysis, node, *input, *target, 0, 0)) return f;
    // The last entry stands for the whole last input dim only when the reshape merges dims
    // (x.reshape(-1, int(x.size(-1)))); when it splits them, a trailing literal is a factor
    // (pixel_unshuffle's [..., -1, 2]).
    if (target->values->size() > input->shape->size()) return std::nullopt;
    return LiteralAt(analysis, node, *input, *target, input->shape->size() - 1,
                     target->values->size() - 1);
  }

  std::optional<Finding> LiteralAt(const Analysis& analysis, int node,
                                   const infer::TensorFact& input, const infer::TensorFact& target,
                                   size_t in_axis, size_t target_axis) const {
    const ir::Graph& g = analysis.model().graph();
    const auto& n = g.node(node);
    const sym::MaybeExpr& dim = (*input.shape)[in_axis];
    auto symbol = dim ? dim->AsSymbol() : std::nullopt;
    // The view back from windows: the literal takes the place of a factor of a merged first
    // axis (baked_reshape_target.h).
    std::string merged;
    std::string factor;
    if (!symbol && dim && target_axis == 0 && in_axis == 0) {
      if (std::optional<baked_reshape_target::MergedFactor> m =
              baked_reshape_target::FactorBeforeFollowingEntries(*dim, *target.values,
                                                                 analysis.witness())) {
        factor = std::move(m->symbol);
        merged = std::move(m->rest);
        symbol = factor;
      }
    }
    if (!symbol || !IsDeclaredDynamic(analysis, *symbol)) return std::nullopt;
    const infer::Element& entry = (*target.values)[target_axis];
    auto literal = entry.value ? entry.value->AsConstant() : std::nullopt;
    const infer::Origin* origin = analysis.inference().OriginOf(entry.origin);
    // A literal at int64's limit is no batch anyone traced, and its next size overflows.
    if (!literal || *literal < 2 || *literal == std::numeric_limits<int64_t>::max() ||
        origin == nullptr || !origin->IsLiteral()) {
      return std::nullopt;
    }
    const std::string name(*symbol);
    // The literal stands for the whole dim only where the dim had that size at the export (the
    // sizes given, or torch.export's specialization): a trailing 2 of a width of 10 is a factor
    // of a split ([-1, 2, 5, 2]: MobileViT's patches), which no int() of the width wrote.
    std::optional<int64_t> at_export = analysis.example().Get(name);
    if (const auto it = analysis.specialized().find(name);
        !at_export && it != analysis.specialized().end()) {
      at_export = it->second;
    }
    if (at_export && *at_export != *literal) return std::nullopt;
    const bool first = target_axis == 0;
    std::vector<sym::MaybeExpr> target_values;
    for (const auto& e : *target.values) target_values.push_back(e.value);
    Finding f = FindingAt(
        analysis, g, node, Evidence::kContradiction,
        absl::StrCat("Reshape target ", FormatDims(target_values), " from ",
                     OriginText(analysis.inference(), target), " puts the literal ", *literal,
                     first ? " first" : " last",
                     merged.empty()
                         ? absl::StrCat(", where the input has the dynamic ", name,
                                        ": a size of the example input (a traced int(x.size(",
                                        first ? 0 : -1, ")))")
                         : absl::StrCat(", where the input's first axis is the dynamic ", name,
                                        " times ", merged,
                                        ", which the next entries follow: a size of the example "
                                        "input (an int() of a count computed from the sizes, "
                                        "such as windows over windows per image)")));
    f.attribute = "input 1 (shape)";
    f.symbols = {name};
    Witness w;
    w.ranges.push_back(SymbolRange::Between(name, *literal, *literal, *literal));
    w.summary = absl::StrCat("reshapes as intended only for ", name, " = ", *literal);
    f.witness = std::move(w);
    // The nearest other size: the reshape may still run, but that entry stays the literal.
    sym::Binding at = analysis.witness();
    at.Set(name, *literal + 1);
    Counterexample c = analysis.Evaluate(at);
    if (!c.node_fails) {
      c.failing_node = analysis.Ref(g, node);
      auto shape = analysis.DimsAt(n.output(0), at);
      c.failure =
          absl::StrCat("Reshape output axis ", target_axis, " is ", *literal, " for ", name, " = ",
                       *literal + 1, shape ? absl::StrCat(" (", FormatDims(*shape), ")") : "",
                       first ? ": samples of the batch are mixed"
                             : ": rows no longer follow the input's last axis");
    }
    f.counterexample = std::move(c);
    // The target is right where the literal is the input's dim, whatever the witness says of it.
    sym::Binding right = analysis.witness();
    right.Set(name, *literal);
    AddRepair(analysis, nullptr, node, f, &right);
    f.fix = merged.empty()
                ? "x.flatten(1) or x.reshape(x.shape[0], -1) instead of x.view(int(x.size(0)), "
                  "-1); never pass int() of a size to view/reshape"
                : "compute the count with integer arithmetic on the sizes (windows.shape[0] // "
                  "(H // 4 * W // 4)) instead of int() of a Python float, or pass the input's "
                  "own x.shape[0]; never pass int() of a size to view/reshape";
    return f;
  }

  static bool IsDeclaredDynamic(const Analysis& analysis, std::string_view symbol) {
    for (const infer::InputDim& d : analysis.inference().input_dims) {
      if (d.declared_symbolic && d.dim && d.dim->AsSymbol() == symbol) return true;
    }
    return false;
  }
};

}  // namespace

std::unique_ptr<Rule> MakeBakedReshapeTarget(const RuleInfo& info) {
  return std::make_unique<BakedReshapeTarget>(info);
}

}  // namespace shapelint::lint
