// SL010's residue classes (design_range_class.h).
#include "design_range_class.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <set>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "lint/padding.h"
#include "lint/requirements.h"
#include "lint/witness.h"

namespace shapelint::lint {
namespace {

// The longest period searched, and how many periods past it the pattern must repeat: a
// stride-32 detector's class is 32 wide, a window of 7 x 7 tokens 56 or 224.
constexpr int64_t kLongestPeriod = 256;
constexpr int64_t kPeriodsChecked = 4;
// Past this many symbols a node's relations get no classes: each symbol's scan evaluates them
// at some 1,500 sizes, and a view of a rank-10,000 tensor to [-1, 4] would take hours to say
// what its relation says already.
constexpr size_t kMostSymbols = 16;

// The relations of `relations` that read `symbol`.
std::vector<const infer::Requirement*> Reading(
    const std::vector<const infer::Requirement*>& relations, const std::string& symbol) {
  std::vector<const infer::Requirement*> mine;
  for (const infer::Requirement* r : relations) {
    const std::vector<std::string> s = SymbolsOf(*r);
    if (std::find(s.begin(), s.end(), symbol) != s.end()) mine.push_back(r);
  }
  return mine;
}

// Whether every relation holds with `symbol` at each size 1 .. `last`, the others at `at`.
std::vector<bool> Accepted(const std::vector<const infer::Requirement*>& relations, sym::Binding at,
                           const std::string& symbol, int64_t last) {
  std::vector<bool> accepted;
  accepted.reserve(last);
  for (int64_t t = 1; t <= last; ++t) {
    at.Set(symbol, t);
    accepted.push_back(std::all_of(relations.begin(), relations.end(),
                                   [&](const auto* r) { return HoldsUnder(*r, at) != false; }));
  }
  return accepted;
}

// The class of one symbol: from the first size accepted on, a pattern of period p (the
// smallest) whose accepted sizes in one period are one window, cyclically. nullopt where sizes
// are accepted from some size on without a gap (a minimum, reported as such) or follow no
// period up to the longest.
std::optional<SymbolRange> ClassOf(const std::vector<bool>& accepted, const std::string& symbol,
                                   int64_t value) {
  const int64_t last = static_cast<int64_t>(accepted.size());
  auto at = [&](int64_t t) { return static_cast<bool>(accepted[t - 1]); };
  int64_t from = 1;
  while (from <= last && !at(from)) ++from;
  if (from > last) return std::nullopt;
  int64_t end = from;  // the first window is [from, end]
  while (end + 1 <= last && at(end + 1)) ++end;
  if (end == last) return std::nullopt;  // no gap: a minimum, or no restriction
  for (int64_t p = end - from + 2; p <= kLongestPeriod; ++p) {
    if (from + (kPeriodsChecked + 1) * p > last) return std::nullopt;
    bool repeats = true;
    for (int64_t t = from; t + p <= last && repeats; ++t) repeats = at(t) == at(t + p);
    if (!repeats) continue;
    // The accepted sizes of one period form the window [from, end] only.
    for (int64_t t = end + 1; t < from + p && repeats; ++t) repeats = !at(t);
    if (!repeats) return std::nullopt;
    // The window given is the one that holds the witness's size, as every witness range's.
    const int64_t shift = value > end ? (value - from) / p * p : 0;
    SymbolRange r = SymbolRange::Between(symbol, value, from + shift, end + shift);
    r.every = p;
    r.congruent_from = from;
    return r;
  }
  return std::nullopt;
}

}  // namespace

std::optional<Witness> RelationClasses(const std::vector<const infer::Requirement*>& relations,
                                       const std::vector<std::string>& symbols,
                                       const sym::Binding& at) {
  constexpr int64_t kLast = (kPeriodsChecked + 2) * kLongestPeriod;
  if (symbols.size() > kMostSymbols) return std::nullopt;
  Witness w;
  std::vector<std::string> parts;
  for (const std::string& s : symbols) {
    const std::vector<bool> accepted = Accepted(Reading(relations, s), at, s, kLast);
    if (std::all_of(accepted.begin(), accepted.end(), [](bool a) { return a; })) continue;
    std::optional<SymbolRange> r = ClassOf(accepted, s, at.Get(s).value_or(1));
    if (!r) return std::nullopt;  // restricted, but not to a class
    parts.push_back(SymbolRangeText(*r));
    w.ranges.push_back(std::move(*r));
  }
  if (w.ranges.empty()) return std::nullopt;
  w.summary = absl::StrCat("works only for ", absl::StrJoin(parts, " and "));
  return w;
}

std::string ClassOthersText(const std::vector<const infer::Requirement*>& relations,
                            const std::vector<std::string>& symbols, const sym::Binding& at,
                            const Witness& classes) {
  std::set<std::string> moving;  // the others whose size moves some symbol's class
  sym::Binding moved = at;
  for (const SymbolRange& range : classes.ranges) {
    const int64_t last = *range.congruent_from + kPeriodsChecked * *range.every;
    const std::vector<const infer::Requirement*> mine = Reading(relations, range.symbol);
    const std::vector<bool> base = Accepted(mine, at, range.symbol, last);
    for (const std::string& o : symbols) {
      if (o == range.symbol || moving.contains(o)) continue;
      const int64_t kept = at.Get(o).value_or(1);
      for (const int64_t v :
           {int64_t{1}, int64_t{2}, int64_t{3}, int64_t{5}, int64_t{7}, kept + 1}) {
        moved.Set(o, v);
        if (Accepted(mine, moved, range.symbol, last) != base) moving.insert(o);
      }
      moved.Set(o, kept);
    }
  }
  if (moving.empty()) return "";
  std::vector<std::string> others;
  others.reserve(moving.size());
  for (const std::string& o : moving) {
    others.push_back(absl::StrCat(o, "=", at.Get(o).value_or(1)));
  }
  return absl::StrCat(" (each with the others at ", absl::StrJoin(others, ", "), ")");
}

bool NotePadToClass(const Analysis& analysis, const infer::Requirement& requirement,
                    const Witness& classes, const std::string& sizes, Finding& f) {
  const infer::Requirement& r = requirement;
  const std::optional<PadToResidue> pad = LiteralPadToResidue(analysis, r, classes);
  if (!pad) return false;
  // A class that leaves out the multiples is no module's own (lint/padding.h): a hypothesis.
  f.evidence = Evidence::kHypothesis;
  const std::string label = r.graph->NodeLabel(pad->pad_node);
  f.notes.push_back(
      {pad->computed_axis
           ? absl::StrCat("Pad '", label, "' grows ", *pad->computed_axis, " to a multiple of ",
                          pad->every, " by an amount computed from its size, but ", pad->symbol,
                          " by the literal ", pad->amount,
                          ": the module pads each side to the multiple, in a branch on the size "
                          "(if w % ",
                          pad->every,
                          " != 0) that the trace took for one side only, and eager PyTorch runs "
                          "at the other sizes")
           : absl::StrCat("Pad '", label, "' grows ", pad->symbol, " by the literal ", pad->amount,
                          ", which rounds only ", pad->symbol, " = ", pad->residue, " (mod ",
                          pad->every, ") up to a multiple of ", pad->every,
                          ": a module pads to the multiple at every size, so the amount is most "
                          "likely the example's remainder (int() or np.ceil of the size in "
                          "forward, evaluated once by the trace), and eager PyTorch runs at the "
                          "other sizes"),
       analysis.Ref(*r.graph, pad->pad_node)});
  f.fix = absl::StrCat(
      pad->computed_axis
          ? absl::StrCat("pad every side by (-w) % ", pad->every,
                         " with no if on the size (it is 0 where no pad is needed)")
          : absl::StrCat("compute the padding from the tensor's shape ((-h) % ", pad->every,
                         " on x.shape, which the exporter keeps) instead of a Python number"),
      ", or serve only ", sizes);
  return true;
}

}  // namespace shapelint::lint
