#include "lint/witness.h"

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <numeric>
#include <tuple>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "lint/requirements.h"

namespace shapelint::lint {
namespace {

using infer::Relation;
using infer::Requirement;

// The fallback search moves one symbol at a time over this smaller range: it runs only when
// the diagonal fails, and its cost multiplies with the group's size.
constexpr int64_t kCoordinateScanLimit = 512;
// Rounds of that search over every member: each round starts from where the last left every
// symbol, and a group whose constraints chain its members settles within a few.
constexpr int kCoordinateRounds = 4;
// Every size up to this far above the witness is tried when scanning a range, then samples at
// growing steps: shape arithmetic fails either periodically (divisibility, a floor), which shows
// within the first sizes, or past a bound, which a sample finds. Scanning all kScanLimit sizes
// cost seconds on graphs with thousands of nested floor and min expressions.
constexpr int64_t kDenseScan = 256;
// Small coefficients keep every value the diagonal scan computes inside int64, where the scan
// itself sees no overflow either.
constexpr int64_t kMaxDiagonalCoefficient = int64_t{1} << 32;

// The sizes t >= 1 at which `form` is zero when every symbol of `members` is t, if `form` is a
// linear polynomial in them (c_1*m_1 + ... + c_k*m_k + b): none, or the one root of
// (c_1 + ... + c_k)*t + b. nullopt when there is no such form (the expression is not linear, or
// not known) or it is zero at every t.
std::optional<std::vector<int64_t>> DiagonalRoots(const std::optional<sym::LinearForm>& form,
                                                  const std::vector<std::string>& members) {
  if (!form || form->constant < -kMaxDiagonalCoefficient ||
      form->constant > kMaxDiagonalCoefficient) {
    return std::nullopt;
  }
  int64_t slope = 0;
  for (const auto& [symbol, coefficient] : form->terms) {
    if (std::find(members.begin(), members.end(), symbol) == members.end() ||
        coefficient < -kMaxDiagonalCoefficient || coefficient > kMaxDiagonalCoefficient) {
      return std::nullopt;
    }
    slope += coefficient;
  }
  const int64_t b = form->constant;
  if (slope == 0) {
    if (b == 0) return std::nullopt;
    return std::vector<int64_t>{};
  }
  if (b % slope != 0 || -b / slope < 1) return std::vector<int64_t>{};
  return std::vector<int64_t>{-b / slope};
}

// a - b for linear forms, as sym::Sub would give it and sym::AsLinear take it apart: terms merged
// by name (both are sorted by it) without those that cancel; nullopt where Sub gives unknown (a
// coefficient or the constant past int64, more than kMaxTerms terms).
std::optional<sym::LinearForm> Difference(const sym::LinearForm& a, const sym::LinearForm& b) {
  __extension__ using Wide = __int128;
  auto narrow = [](Wide v) -> std::optional<int64_t> {
    if (v < std::numeric_limits<int64_t>::min() || v > std::numeric_limits<int64_t>::max()) {
      return std::nullopt;
    }
    return static_cast<int64_t>(v);
  };
  sym::LinearForm d;
  const std::optional<int64_t> constant = narrow(Wide{a.constant} - b.constant);
  if (!constant) return std::nullopt;
  d.constant = *constant;
  size_t i = 0, j = 0;
  while (i < a.terms.size() || j < b.terms.size()) {
    const bool from_a =
        j == b.terms.size() || (i < a.terms.size() && a.terms[i].first <= b.terms[j].first);
    const bool from_b =
        i == a.terms.size() || (j < b.terms.size() && b.terms[j].first <= a.terms[i].first);
    const std::string& symbol = from_a ? a.terms[i].first : b.terms[j].first;
    Wide c = 0;
    if (from_a) c += a.terms[i++].second;
    if (from_b) c -= b.terms[j++].second;
    if (c == 0) continue;
    const std::optional<int64_t> coefficient = narrow(c);
    if (!coefficient || d.terms.size() == sym::kMaxTerms) return std::nullopt;
    d.terms.emplace_back(symbol, *coefficient);
  }
  return d;
}

// The only sizes at which `r` can hold when every symbol of `members` is that size, when `r`
// says so through linear expressions; nullopt when it may hold anywhere.
//
// Where both sides are linear, lhs - rhs, lhs - 1 and rhs - 1 are taken from their linear forms:
// building the three differences of every requirement (three lookups in a table as large as the
// model and two new expressions per broadcast, for 10,000 independent broadcasts) was most of
// the witness search. A side that is not linear leaves its difference with 1 not linear either;
// the sides' difference may still be (a floor on both cancels), so it is then built.
std::optional<std::vector<int64_t>> DiagonalCandidates(const Requirement& r,
                                                       const std::vector<std::string>& members) {
  if (r.relation != Relation::kBroadcastable && r.relation != Relation::kEqual) {
    return std::nullopt;
  }
  const std::optional<sym::LinearForm> lhs = sym::AsLinear(r.lhs);
  const std::optional<sym::LinearForm> rhs = sym::AsLinear(r.rhs);
  std::optional<sym::LinearForm> sides;
  if (lhs && rhs) {
    sides = Difference(*lhs, *rhs);
  } else if (const sym::MaybeExpr d = sym::Sub(r.lhs, r.rhs)) {
    sides = sym::AsLinear(*d);
  }
  std::vector<int64_t> candidates;
  auto add_roots = [&](const std::optional<sym::LinearForm>& form) {
    auto roots = DiagonalRoots(form, members);
    if (!roots) return false;
    candidates.insert(candidates.end(), roots->begin(), roots->end());
    return true;
  };
  if (!add_roots(sides)) return std::nullopt;
  if (r.relation == Relation::kBroadcastable) {
    const sym::LinearForm one{1, {}};
    for (const std::optional<sym::LinearForm>* side : {&lhs, &rhs}) {
      if (!add_roots(*side ? Difference(**side, one) : std::nullopt)) return std::nullopt;
    }
  }
  return candidates;
}

// Sizes a literal Reshape target suggests for its input's symbols, when it spells them out in
// the input's order (a traced view: [2, 1, 3, 1] for an input [s0, s1] seen at 2x3).
std::optional<sym::Binding> ReshapeHint(const infer::Inference& inference, const Requirement& r) {
  if (r.kind != infer::RequirementKind::kReshapeCount || r.relation != Relation::kEqual) return {};
  if (r.graph != inference.graph || r.node < 0) return {};
  const auto& node = r.graph->node(r.node);
  if (node.input_size() < 2) return {};
  const infer::TensorFact* input = inference.Find(node.input(0));
  const infer::TensorFact* target = inference.Find(node.input(1));
  if (input == nullptr || !input->shape || target == nullptr || !target->values) return {};
  std::vector<int64_t> sizes;
  for (const auto& e : *target->values) {
    auto c = e.value ? e.value->AsConstant() : std::nullopt;
    if (!c) return {};
    if (*c != 1) sizes.push_back(*c);
  }
  std::vector<std::string> symbols;
  for (const auto& d : *input->shape) {
    if (!d) return {};
    if (auto c = d->AsConstant()) {
      // A static dim accounts for one equal entry of the target.
      auto it = std::find(sizes.begin(), sizes.end(), *c);
      if (*c != 1 && it == sizes.end()) return {};
      if (*c != 1) sizes.erase(it);
      continue;
    }
    auto name = d->AsSymbol();
    if (!name) return {};
    symbols.emplace_back(*name);
  }
  if (symbols.empty() || symbols.size() != sizes.size()) return {};
  sym::Binding hint;
  for (size_t i = 0; i < symbols.size(); ++i) hint.Set(symbols[i], sizes[i]);
  return hint;
}

// The constraints of one group, checked at candidate sizes.
class GroupCheck {
 public:
  explicit GroupCheck(const std::vector<const Requirement*>& constraints)
      : constraints_(constraints), order_(constraints) {}

  // How many constraints fail at `b`.
  int Failures(const sym::Binding& b) const {
    int n = 0;
    sym::Evaluator evaluate(b);
    for (const Requirement* r : constraints_) n += HoldsUnder(*r, evaluate) == false;
    return n;
  }
  // Whether all hold, checking first the constraint that failed last: a scan meets the same
  // obstacle at size after size (total = past + seq never holds on the diagonal), so most
  // sizes cost one evaluation instead of one per constraint.
  bool AllHold(const sym::Binding& b) {
    sym::Evaluator evaluate(b);
    for (size_t i = 0; i < order_.size(); ++i) {
      if (HoldsUnder(*order_[i], evaluate) == false) {
        std::rotate(order_.begin(), order_.begin() + i, order_.begin() + i + 1);
        return false;
      }
    }
    return true;
  }

 private:
  const std::vector<const Requirement*>& constraints_;
  std::vector<const Requirement*> order_;
};

// The diagonal puts every member at the size the tightest of them needs (h = w = 193 for a
// table of 7 x 7 after a stride of 32), and with them a batch the same requirement mentions:
// each member is lowered, in turn, to the smallest size from 2 at which everything still
// holds, so that a free batch reads 2, not 193.
sym::Binding Lowered(const std::vector<std::string>& members, GroupCheck& check, sym::Binding b) {
  for (const auto& m : members) {
    const int64_t at = *b.Get(m);
    for (int64_t t = 2; t < at; ++t) {
      b.Set(m, t);
      if (check.AllHold(b)) break;
      b.Set(m, at);
    }
  }
  return b;
}

// Symbols grouped by the constraints they appear in together (union-find over their indices):
// each group's constraints, at the index of the group's root (empty for the others).
std::vector<std::vector<const Requirement*>> GroupConstraints(
    const std::vector<std::string>& symbols, const std::vector<const Requirement*>& constraints,
    std::vector<int>& root_of) {
  absl::flat_hash_map<std::string, int> index;
  for (size_t i = 0; i < symbols.size(); ++i) index[symbols[i]] = static_cast<int>(i);
  std::vector<int> parent(symbols.size());
  std::iota(parent.begin(), parent.end(), 0);
  auto find = [&](int x) {
    while (parent[x] != x) x = parent[x] = parent[parent[x]];
    return x;
  };
  // Each live constraint with the index of its first symbol: its symbols are taken once, not
  // again to find its group (walking every requirement's expressions twice).
  std::vector<std::pair<const Requirement*, int>> live;
  // A model states the same requirement once per layer; solving needs it once. Expressions are
  // interned, so equal requirements have equal sides.
  absl::flat_hash_set<std::tuple<Relation, sym::Expr, sym::Expr>> seen;
  for (const Requirement* r : constraints) {
    if (!seen.insert({r->relation, r->lhs, r->rhs}).second) continue;
    auto syms = SymbolsOf(*r);
    if (syms.empty()) continue;  // fails at every size: no witness can fix it
    live.emplace_back(r, index[syms[0]]);
    for (size_t k = 1; k < syms.size(); ++k) parent[find(index[syms[k]])] = find(index[syms[0]]);
  }
  std::vector<std::vector<const Requirement*>> groups(symbols.size());
  for (const auto& [r, first] : live) groups[find(first)].push_back(r);
  root_of.resize(symbols.size());
  for (size_t i = 0; i < symbols.size(); ++i) root_of[i] = find(static_cast<int>(i));
  return groups;
}

// The residue class a congruent range keeps to: "s27 a multiple of 4", "s27 odd", "s27 % 4 ==
// 1", "s27 % 8 in [5, 7]", followed by " from 5 on" where smaller sizes of the class fail too.
std::string CongruenceText(const SymbolRange& r) {
  const int64_t p = *r.every, lo = *r.min % p, hi = *r.max % p;
  std::string text;
  if (lo == hi && p == 2) {
    text = absl::StrCat(r.symbol, lo == 0 ? " even" : " odd");
  } else if (lo == hi) {
    text = lo == 0 ? absl::StrCat(r.symbol, " a multiple of ", p)
                   : absl::StrCat(r.symbol, " % ", p, " == ", lo);
  } else if (lo < hi) {
    text = absl::StrCat(r.symbol, " % ", p, " in [", lo, ", ", hi, "]");
  } else {
    text = absl::StrCat(r.symbol, " % ", p, " not in [", hi + 1, ", ", lo - 1, "]");
  }
  // The class's first size that works is past its first positive member.
  if (*r.congruent_from > p) absl::StrAppend(&text, " from ", *r.congruent_from, " on");
  return text;
}

std::string RangeText(const SymbolRange& r) {
  if (r.congruent_from && r.every && r.min && r.max) return CongruenceText(r);
  if (r.min && r.max && *r.min == *r.max) {
    return absl::StrCat(r.symbol, " = ", *r.min, RepeatText(r), AlsoText(r));
  }
  if (r.min && r.max) {
    return absl::StrCat(r.symbol, " in [", *r.min, ", ", *r.max, "]", RepeatText(r), AlsoText(r));
  }
  if (r.max) return absl::StrCat(r.symbol, " <= ", *r.max, AlsoText(r));
  if (r.min && *r.min > 1) return absl::StrCat(r.symbol, " >= ", *r.min, AlsoText(r));
  return absl::StrCat(r.symbol, " at any size");
}

}  // namespace

std::string SymbolRangeText(const SymbolRange& range) { return RangeText(range); }

Solution::Solution(const infer::Inference& inference, const std::vector<std::string>& symbols,
                   const std::vector<const Requirement*>& constraints)
    : inference_(inference), constraints_(constraints) {
  std::vector<int> root_of;
  const std::vector<std::vector<const Requirement*>> groups =
      GroupConstraints(symbols, constraints, root_of);
  // Free symbols get distinct small sizes so that no accidental equality hides a failure.
  int64_t next_free = 2;
  for (size_t i = 0; i < symbols.size(); ++i) {
    if (groups[root_of[i]].empty()) witness_.Set(symbols[i], next_free++);
  }
  // Each group's members, in the order of `symbols`, gathered in one pass (not one pass per
  // group: 10,000 independent broadcasts are 10,000 groups).
  // Indexed by root (a symbol's index): an ordered map of 32,000 groups was a tenth of the lint
  // of as many independent broadcasts, and grew faster than they did.
  std::vector<std::vector<std::string>> members_of(symbols.size());
  for (size_t i = 0; i < symbols.size(); ++i) {
    if (!groups[root_of[i]].empty()) members_of[root_of[i]].push_back(symbols[i]);
  }
  // Groups are independent: each reads and sets its own members only. Solved in the order of
  // their roots, they visit the symbols in order; in the order of a hash table each group was
  // a jump to memory far from the last one's, which cost more the more symbols the model had.
  for (size_t root = 0; root < groups.size(); ++root) {
    if (!groups[root].empty()) SolveGroup(members_of[root], groups[root]);
  }
}

void Solution::SolveGroup(const std::vector<std::string>& members,
                          const std::vector<const Requirement*>& constraints) {
  GroupCheck check(constraints);
  auto adopt = [&](const sym::Binding& b) {
    for (const auto& m : members) witness_.Set(m, *b.Get(m));
  };
  // The group's constraints read only its members (that is what makes it a group): the trial
  // bindings hold those, not a copy of every symbol's size, which made a model of many small
  // groups (10,000 independent broadcasts) quadratic in its symbols. The hint and the scan set
  // every member themselves; the coordinate search starts from the members' sizes.
  auto members_only = [&] {
    sym::Binding b;
    for (const auto& m : members) {
      if (std::optional<int64_t> v = witness_.Get(m)) b.Set(m, *v);
    }
    return b;
  };
  // A literal Reshape target often spells out the example sizes: try those first.
  for (const Requirement* r : constraints) {
    auto hint = ReshapeHint(inference_, *r);
    if (!hint) continue;
    sym::Binding b;
    for (const auto& m : members) b.Set(m, 2);
    for (const auto& [name, value] : hint->values()) b.Set(name, value);
    if (check.AllHold(b)) return adopt(b);
  }
  // Then one size for every member, with 1 last because size 1 satisfies broadcasts vacuously.
  // A linear equality limits it to its roots (total = past + seq holds at no size, its
  // broadcast only at 1): the scan skips the sizes where it fails anyway.
  std::optional<std::vector<int64_t>> candidates;  // nullopt: any size may do
  auto allowed = [&](int64_t t) {
    return !candidates || std::find(candidates->begin(), candidates->end(), t) != candidates->end();
  };
  for (const Requirement* r : constraints) {
    std::optional<std::vector<int64_t>> only = DiagonalCandidates(*r, members);
    if (!only) continue;
    std::erase_if(*only, [&](int64_t t) { return !allowed(t); });
    candidates = std::move(only);
  }
  sym::Binding b;
  for (int64_t t = 2; t <= kScanLimit + 1; ++t) {
    const int64_t v = t > kScanLimit ? 1 : t;
    if (!allowed(v)) continue;
    for (const auto& m : members) b.Set(m, v);
    if (check.AllHold(b)) return adopt(Lowered(members, check, std::move(b)));
  }
  // Otherwise move one symbol at a time to where the fewest constraints fail.
  for (const auto& m : members) witness_.Set(m, 2);
  for (int round = 0; round < kCoordinateRounds; ++round) {
    for (const auto& m : members) {
      sym::Binding moved = members_only();
      int best = check.Failures(moved);
      int64_t best_value = *witness_.Get(m);
      for (int64_t t = 1; t <= kCoordinateScanLimit && best > 0; ++t) {
        moved.Set(m, t);
        const int f = check.Failures(moved);
        if (f < best) best = f, best_value = t;
      }
      witness_.Set(m, best_value);
      if (best == 0) return;
    }
  }
  // No sizes satisfy every requirement of this group: ranges around a non-solution would be
  // wrong, so these symbols get none.
  for (const auto& m : members) unsolved_.insert(m);
}

bool Solution::Prefer(const sym::Binding& example) {
  sym::Binding b = witness_;
  for (const auto& [symbol, size] : example.values()) b.Set(symbol, size);
  GroupCheck check(constraints_);
  if (!check.AllHold(b)) return false;
  witness_ = std::move(b);
  for (const auto& [symbol, size] : example.values()) unsolved_.erase(symbol);
  range_cache_.clear();
  return true;
}

std::optional<std::pair<int64_t, int64_t>> Solution::RangeOf(const std::string& symbol) const {
  if (auto cached = range_cache_.find(symbol); cached != range_cache_.end()) {
    return cached->second;
  }
  auto range = ScanRange(symbol);
  range_cache_[symbol] = range;
  return range;
}

std::vector<const Requirement*> Solution::ConstraintsOver(const std::string& symbol) const {
  // Indexed once: asked for every symbol of a witness, a scan of every constraint each time
  // would make the witness quadratic in the symbols.
  if (!by_symbol_) {
    by_symbol_.emplace();
    for (const Requirement* r : constraints_) {
      std::vector<std::string> s = SymbolsOf(*r);
      std::sort(s.begin(), s.end());
      s.erase(std::unique(s.begin(), s.end()), s.end());
      for (std::string& name : s) (*by_symbol_)[std::move(name)].push_back(r);
    }
  }
  auto it = by_symbol_->find(symbol);
  return it == by_symbol_->end() ? std::vector<const Requirement*>{} : it->second;
}

namespace {

// Whether the constraints over one symbol hold with it at a size and the others at the witness.
class SymbolScan {
 public:
  SymbolScan(std::vector<const Requirement*> mine, const sym::Binding& witness, std::string symbol)
      : mine_(std::move(mine)), binding_(witness), symbol_(std::move(symbol)) {}

  bool Holds(int64_t size) {
    binding_.Set(symbol_, size);
    sym::Evaluator evaluate(binding_);
    return std::none_of(mine_.begin(), mine_.end(),
                        [&](const Requirement* r) { return HoldsUnder(*r, evaluate) == false; });
  }

 private:
  const std::vector<const Requirement*> mine_;
  sym::Binding binding_;
  const std::string symbol_;
};

}  // namespace

std::optional<std::pair<int64_t, int64_t>> Solution::ScanRange(const std::string& symbol) const {
  auto w = witness_.Get(symbol);
  if (!w || unsolved_.contains(symbol)) return std::nullopt;
  SymbolScan scan(ConstraintsOver(symbol), witness_, symbol);
  auto holds = [&](int64_t t) { return scan.Holds(t); };
  int64_t hi = *w, lo = *w;
  for (int64_t t = *w + 1; t <= kScanLimit + 1;) {
    if (!holds(t)) {
      for (int64_t u = hi + 1; u < t && holds(u); ++u) hi = u;
      break;
    }
    hi = t;
    t += t - *w <= kDenseScan ? 1 : std::max<int64_t>(1, (t - *w) / 8);
    if (t > kScanLimit + 1 && hi < kScanLimit + 1) t = kScanLimit + 1;
  }
  for (int64_t t = *w - 1; t >= 1 && holds(t); --t) lo = t;
  return std::make_pair(lo, hi);
}

std::optional<int64_t> Solution::PeriodOf(const std::string& symbol, int64_t lo, int64_t hi) const {
  constexpr int kRepeats = 2;  // windows checked past the witness's
  SymbolScan scan(ConstraintsOver(symbol), witness_, symbol);
  auto holds = [&](int64_t t) { return scan.Holds(t); };
  // The same window, `shift` sizes on: every size in it works, its neighbours do not.
  auto window_at = [&](int64_t shift) {
    if (holds(lo + shift - 1) || holds(hi + shift + 1)) return false;
    for (int64_t t = lo + shift; t <= hi + shift; ++t) {
      if (!holds(t)) return false;
    }
    return true;
  };
  const int64_t width = hi - lo + 1;
  for (int64_t p = width + 1; hi + kRepeats * p + 1 <= kScanLimit; ++p) {
    if (!holds(lo + p)) continue;
    // The first size that works again starts the next window, or there is no period.
    for (int k = 1; k <= kRepeats; ++k) {
      if (!window_at(k * p)) return std::nullopt;
    }
    return p;
  }
  return std::nullopt;
}

std::optional<int64_t> Solution::CongruentFrom(const std::string& symbol, int64_t lo, int64_t hi,
                                               int64_t every) const {
  // Below the window every size is checked (a window far from 1 is not worth the scan: the text
  // then keeps the window and its repeats); past it, windows beyond the two PeriodOf checked.
  constexpr int64_t kMostBelow = 1024;
  constexpr int64_t kWindowsPast = 8;
  if (lo > kMostBelow || hi + kWindowsPast * every > kScanLimit) return std::nullopt;
  SymbolScan scan(ConstraintsOver(symbol), witness_, symbol);
  auto in_class = [&](int64_t t) { return ((t - lo) % every + every) % every <= hi - lo; };
  std::optional<int64_t> from;
  for (int64_t t = 1; t < lo; ++t) {
    const bool holds = scan.Holds(t);
    if (!from && holds) from = t;
    if (from && holds != in_class(t)) return std::nullopt;
  }
  for (int64_t t = hi + 2 * every + 1; t <= hi + kWindowsPast * every; ++t) {
    if (scan.Holds(t) != in_class(t)) return std::nullopt;
  }
  return from.value_or(lo);
}

void Solution::OtherSizes(const std::string& symbol, int64_t lo, int64_t hi, SymbolRange& r) const {
  if (auto cached = also_cache_.find(symbol); cached != also_cache_.end()) {
    std::tie(r.also, r.more) = cached->second;
    return;
  }
  FindOtherSizes(symbol, lo, hi, r);
  also_cache_[symbol] = {r.also, r.more};
}

void Solution::FindOtherSizes(const std::string& symbol, int64_t lo, int64_t hi,
                              SymbolRange& r) const {
  constexpr size_t kMostShown = 3;
  SymbolScan scan(ConstraintsOver(symbol), witness_, symbol);
  auto found = [&](int64_t t) {
    if (!scan.Holds(t)) return false;
    if (r.also.size() == kMostShown) {
      r.more = true;
      return true;
    }
    r.also.push_back(t);
    return false;
  };
  // Below the window densely, as far as a dense scan goes; above it as the window's own scan
  // steps (dense, then sparser), up to its limit.
  for (int64_t t = std::max<int64_t>(1, lo - 1 - kDenseScan); t < lo - 1; ++t) {
    if (found(t)) return;
  }
  if (hi > kScanLimit) return;
  for (int64_t t = hi + 2; t <= kScanLimit;) {
    if (found(t)) return;
    t += t - hi <= kDenseScan ? 1 : std::max<int64_t>(1, (t - hi) / 8);
  }
}

Witness Solution::WitnessFor(const std::vector<std::string>& symbols, const std::vector<Pin>& pins,
                             bool repeats) const {
  Witness w;
  std::vector<std::string> parts;
  for (const auto& s : symbols) {
    auto range = RangeOf(s);
    if (!range) continue;
    SymbolRange r;
    r.symbol = s;
    r.value = *witness_.Get(s);
    r.min = range->first;
    if (range->second <= kScanLimit) r.max = range->second;
    // Only a pin that rounds up repeats (Pin::rounds_up): the search is skipped elsewhere.
    if (r.max && (repeats || std::any_of(pins.begin(), pins.end(), [&](const Pin& p) {
                    return p.rounds_up && std::binary_search(p.symbols.begin(), p.symbols.end(), s);
                  }))) {
      r.every = PeriodOf(s, *r.min, *r.max);
      if (r.every) r.congruent_from = CongruentFrom(s, *r.min, *r.max, *r.every);
    }
    if (!r.every) OtherSizes(s, range->first, range->second, r);
    w.ranges.push_back(std::move(r));
  }
  // A symbol the requirements leave free (a batch that cancels out of an element count) is no
  // part of "works only for", stated, it would read as restricted too; unless none is restricted.
  for (const std::string& s : RestrictedSymbols(w, symbols)) {
    for (const SymbolRange& r : w.ranges) {
      if (r.symbol == s) parts.push_back(RangeText(r));
    }
  }
  bool related = false;
  for (const Pin& p : pins) {
    if (p.symbols.size() < 2) continue;
    bool mine = std::any_of(p.symbols.begin(), p.symbols.end(), [&](auto& s) {
      return std::find(symbols.begin(), symbols.end(), s) != symbols.end();
    });
    if (!mine) continue;
    related = true;
    std::string rel = absl::StrCat(p.requirement->lhs.ToString(),
                                   p.requirement->relation == Relation::kEqual ? " == " : " ~ ",
                                   p.requirement->rhs.ToString());
    if (std::find(w.relations.begin(), w.relations.end(), rel) == w.relations.end()) {
      w.relations.push_back(std::move(rel));
    }
  }
  DropImpliedRelations(w.relations);
  if (parts.empty()) {
    // Not "the model runs nowhere": the search is best effort, and a model that ran at its
    // export size may hold there only.
    w.summary =
        "no sizes were found at which every requirement holds (the model runs nowhere, or only "
        "at sizes the search did not reach: --export-dims starts it at the export sizes)";
    return w;
  }
  w.summary = absl::StrCat("works only for ", absl::StrJoin(parts, " and "));
  if (related) {
    std::vector<std::string> at;
    for (const auto& r : w.ranges) at.push_back(absl::StrCat(r.symbol, "=", r.value));
    absl::StrAppend(&w.summary, " (each with the others at ", absl::StrJoin(at, ", "), "; ",
                    RelationsText(w.relations), ")");
  }
  return w;
}

}  // namespace shapelint::lint
