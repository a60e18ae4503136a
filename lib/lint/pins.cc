#include "lint/pins.h"

#include <algorithm>
#include <string_view>
#include <tuple>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "lint/requirements.h"

namespace shapelint::lint {
namespace {

using infer::Relation;
using infer::Requirement;
using infer::RequirementKind;

// The sample bindings that tell a requirement that always holds from one that pins: the same
// value for every input symbol, and distinct values so that coincidences between symbols show.
constexpr int64_t kSampleValues[] = {1, 2, 3, 4, 5, 7, 8, 16, 31, 64, 100, 224, 257, 1000};
constexpr int kSampleShapes = 3;  // the same, staggered, scaled
constexpr int kNumSamples = std::size(kSampleValues) * kSampleShapes;

// Every symbol of a congruence holds again at some size in [kFarOut, kFarOut + kFarOutSpan),
// far beyond every literal an export writes; a baked size holds at a bounded set of sizes only.
constexpr int64_t kFarOut = 4096;
constexpr int64_t kFarOutSpan = 64;
// A design bound is a table's length: 3 rows at least. A literal 2 against a size holds at 1
// (broadcast) and 2 alike, which looks like a range [1, 2]: a baked batch of 2, not a table.
constexpr int64_t kMinBound = 3;

// A requirement that narrows the sizes, sorted into what it means.
enum class Verdict {
  kHolds,        // at every size tried
  kConstraint,   // narrows the sizes, as eager PyTorch does too (divisibility, congruences)
  kBound,        // holds exactly up to a size: a design bound, shared by eager (Bound)
  kPin,          // holds at some sizes only
  kAlwaysFalse,  // fails whatever the sizes
};

class Classifier {
 public:
  explicit Classifier(const std::vector<std::string>& symbols) : symbols_(symbols) {
    position_.reserve(symbols.size());
    for (size_t i = 0; i < symbols.size(); ++i) position_.emplace(symbols[i], i);
  }

  // The position of the input symbol `symbol` in `symbols`.
  size_t Position(std::string_view symbol) const { return position_.at(symbol); }

  // The slots of the input symbols in `binding`, taken once: one binding taking each sample in
  // turn then sets them by slot (SetSample), without hashing every name again for every sample.
  std::vector<sym::Binding::Slot> SlotsIn(sym::Binding& binding) const {
    std::vector<sym::Binding::Slot> slots;
    slots.reserve(symbols_.size());
    for (const std::string& s : symbols_) slots.push_back(binding.SlotOf(s));
    return slots;
  }
  // Gives the input symbols, at `slots` (SlotsIn), the values of sample `k`.
  static void SetSample(int k, sym::Binding& binding,
                        const std::vector<sym::Binding::Slot>& slots) {
    for (size_t i = 0; i < slots.size(); ++i) binding.SetAt(slots[i], SampleValue(k, i));
  }
  // The same for `syms` alone, the symbols a requirement involves: a model with thousands of
  // independent dims has thousands of requirements, and binding every symbol for each one made
  // classifying them quadratic.
  void SetSample(int k, sym::Binding& binding, const std::vector<std::string>& syms) const {
    for (const std::string& s : syms) {
      auto it = position_.find(s);
      if (it != position_.end()) binding.Set(s, SampleValue(k, it->second));
    }
  }

  // The value sample `k` gives the `i`th input symbol.
  static int64_t SampleValue(int k, size_t i) {
    const int64_t v = kSampleValues[k / kSampleShapes];
    const auto n = static_cast<int64_t>(i);
    switch (k % kSampleShapes) {
      case 0:  // the same
        return v;
      case 1:  // staggered
        return v + n;
      default:  // scaled
        return v * (n + 1) + 1;
    }
  }

  // The verdict on a requirement that held at `holds` of the samples and failed at `fails`.
  // `rounds_up` tells a congruence kept as a pin (RoundsUp).
  Verdict Classify(const Requirement& r, const std::vector<std::string>& syms, int holds, int fails,
                   bool& rounds_up) const {
    if (fails == 0) return Verdict::kHolds;  // holds at every size tried: not a restriction
    // Divisibility (Reshape with -1) is shared with eager PyTorch: it narrows the witness, but
    // on its own it is not a baked size.
    if (r.relation == Relation::kDivisible) return Verdict::kConstraint;
    // Neither is a congruence in disguise: x.view(b, 2, c // 2, h, w) requires
    // c == 2 * floor(c / 2), which still holds at sizes far beyond every literal. Unless the
    // view rounds up (RoundsUp): eager PyTorch grew the tensor first, the graph did not.
    if (!syms.empty() && HoldsFarOut(r, syms)) {
      rounds_up = RoundsUp(r, syms);
      return rounds_up ? Verdict::kPin : Verdict::kConstraint;
    }
    return holds == 0 && syms.empty() ? Verdict::kAlwaysFalse : Verdict::kPin;
  }

  // The largest size up to which `r` holds at every sample whose symbols of `syms` are all at or
  // below it, and past which it fails, when there is one (Bound); nullopt otherwise. A baked
  // size holds at isolated sizes (where it matches, and at 1 where it broadcasts), never on a
  // whole range from 1.
  // True when a bound `max` found for all of `syms` together is one on their sum: each alone
  // passes it while the others are at their smallest.
  bool OnSum(const Requirement& r, const std::vector<std::string>& syms, int64_t max) const {
    return syms.size() > 1 && std::any_of(syms.begin(), syms.end(), [&](const std::string& s) {
             return HoldsAll(r, syms, {s}, max + 1);
           });
  }

  std::optional<int64_t> UpperBound(const Requirement& r,
                                    const std::vector<std::string>& syms) const {
    if (syms.empty() || !HoldsAll(r, syms, syms, 1)) return std::nullopt;
    int64_t lo = 1, hi = kFarOut;  // holds at lo, fails at hi
    if (HoldsAll(r, syms, syms, hi)) return std::nullopt;
    while (hi - lo > 1) {
      const int64_t mid = lo + (hi - lo) / 2;
      (HoldsAll(r, syms, syms, mid) ? lo : hi) = mid;
    }
    if (lo < kMinBound) return std::nullopt;
    for (const int64_t v : {int64_t{2}, lo / 2, lo - 1}) {
      if (!HoldsAll(r, syms, syms, v)) return std::nullopt;
    }

    sym::Binding b;
    for (int k = 0; k < kNumSamples; ++k) {
      SetSample(k, b, syms);
      const bool within = std::all_of(syms.begin(), syms.end(), [&](const std::string& s) {
        return b.Get(s).value_or(0) <= lo;
      });
      // A clamp holds at every size up to the bound and at none past it; a baked size that
      // also holds where a product of floors is 0 (a patch grid of 1 under 16 pixels) holds
      // again at the example.
      const std::optional<bool> h = HoldsUnder(r, b);
      if (!h || *h != within) return std::nullopt;
    }
    return lo;
  }

  // True when `r`, over `syms`, holds at every sample moved onto `contracts` (sums of input
  // dims that the graph requires to be 0, over `contract_syms`), and at three of them at least.
  bool HoldsUnderContracts(const Requirement& r, const std::vector<std::string>& syms,
                           const std::vector<sym::LinearForm>& contracts,
                           const std::vector<std::string>& contract_syms) const;

 private:
  // True when `r`, over `all`, holds with every symbol of `syms` at `v` and the others at 1.
  bool HoldsAll(const Requirement& r, const std::vector<std::string>& all,
                const std::vector<std::string>& syms, int64_t v) const {
    sym::Binding b;
    for (const auto& s : all) b.Set(s, 1);
    for (const auto& s : syms) b.Set(s, v);
    const std::optional<bool> h = HoldsUnder(r, b);
    return h && *h;
  }

  // True when `r`, over `syms`, holds at two sizes far out, every symbol at that size: a
  // periodic solution set, not a fixed size.
  bool HoldsFarOut(const Requirement& r, const std::vector<std::string>& syms) const {
    int holds = 0;
    sym::Binding b;
    for (int64_t v = kFarOut; v < kFarOut + kFarOutSpan && holds < 2; ++v) {
      for (const auto& s : syms) b.Set(s, v);
      auto h = HoldsUnder(r, b);
      if (h && *h) ++holds;
    }
    return holds >= 2;
  }

  // True when `r` is a Reshape's element count that fails only where the target holds more
  // elements than the input: a size rounded up to a multiple (math.ceil(h / p) * p). Code
  // computes that to pad or resize the tensor to it, and viewing a tensor it did not grow fails
  // in eager PyTorch as well; so eager grew it, in a branch (interpolate when h is not a
  // multiple) that the trace, at a multiple, did not take. A view rounded down
  // (c == 2 * floor(c / 2)) fails in eager too.
  bool RoundsUp(const Requirement& r, const std::vector<std::string>& syms) const {
    if (r.kind != RequirementKind::kReshapeCount || r.relation != Relation::kEqual) return false;
    bool failed = false;
    sym::Binding b;
    for (int k = 0; k < kNumSamples; ++k) {
      SetSample(k, b, syms);
      sym::Evaluator evaluate(b);
      const std::optional<int64_t> input = evaluate(r.lhs), target = evaluate(r.rhs);
      if (!input || !target || *input == *target) continue;
      if (*input > *target) return false;
      failed = true;
    }
    return failed;
  }

  const std::vector<std::string>& symbols_;
  absl::flat_hash_map<std::string_view, size_t> position_;  // of each symbol in symbols_
};

// The value of `form` with its last symbol left out.
int64_t WithoutLast(const sym::LinearForm& form, const sym::Binding& b, bool& known) {
  int64_t rest = form.constant;
  for (size_t i = 0; i + 1 < form.terms.size(); ++i) {
    const std::optional<int64_t> v = b.Get(form.terms[i].first);
    if (!v) {
      known = false;
      return 0;
    }
    rest += form.terms[i].second * *v;
  }
  return rest;
}

bool Classifier::HoldsUnderContracts(const Requirement& r, const std::vector<std::string>& syms,
                                     const std::vector<sym::LinearForm>& contracts,
                                     const std::vector<std::string>& contract_syms) const {
  constexpr int kMinTried = 3;
  int tried = 0;
  sym::Binding b;
  for (int k = 0; k < kNumSamples; ++k) {
    // Every symbol takes the sample's value again, also those the contracts moved.
    SetSample(k, b, syms);
    SetSample(k, b, contract_syms);
    // Each contract gives its last symbol the value that makes it hold (its coefficient is 1
    // or -1, so the value is an integer); bindings where that is not a size are skipped.
    bool valid = true;
    for (const sym::LinearForm& d : contracts) {
      bool known = true;
      const int64_t rest = WithoutLast(d, b, known);
      if (!known) return false;
      const auto& [last, coefficient] = d.terms.back();
      const int64_t value = -rest * coefficient;
      if (value < 1) {
        valid = false;
        break;
      }
      b.Set(last, value);
    }
    if (!valid) continue;
    for (const sym::LinearForm& d : contracts) {
      bool known = true;
      const int64_t rest = WithoutLast(d, b, known);
      const auto& [last, coefficient] = d.terms.back();
      if (!known || rest + coefficient * *b.Get(last) != 0) valid = false;  // shared symbols
    }
    if (!valid) continue;
    auto h = HoldsUnder(r, b);
    if (!h || !*h) return false;
    ++tried;
  }
  return tried >= kMinTried;
}

// A model states the same requirement in every layer: it is classified once. Expressions are
// interned, so equal requirements have equal sides.
struct Distinct {
  const Requirement* first;  // in topological order; it stands for its copies
  std::vector<std::string> syms;
  int holds = 0, fails = 0;
  Verdict verdict = Verdict::kHolds;
  int64_t bound = 0;       // for kBound
  bool on_sum = false;     // for kBound: Bound::on_sum
  bool rounds_up = false;  // Pin::rounds_up
};

// The distinct requirements over input symbols, and for each requirement the index of its
// distinct one (-1 when it involves other symbols).
std::vector<Distinct> Deduplicate(const infer::Inference& inference,
                                  const std::vector<std::string>& symbols,
                                  std::vector<int>& of_requirement) {
  absl::flat_hash_set<std::string> known(symbols.begin(), symbols.end());
  std::vector<Distinct> distinct;
  absl::flat_hash_map<std::tuple<Relation, sym::Expr, sym::Expr>, int> index;
  of_requirement.assign(inference.requirements.size(), -1);
  for (size_t i = 0; i < inference.requirements.size(); ++i) {
    const Requirement& r = inference.requirements[i];
    auto [it, fresh] = index.try_emplace({r.relation, r.lhs, r.rhs}, -1);
    if (fresh) {
      std::vector<std::string> syms = SymbolsOf(r);
      if (std::all_of(syms.begin(), syms.end(), [&](auto& s) { return known.contains(s); })) {
        it->second = static_cast<int>(distinct.size());
        distinct.push_back({&r, std::move(syms)});
      }
    }
    of_requirement[i] = it->second;
  }
  return distinct;
}

// A declared dim that the graph computes as another sum of input dims (present_key declared
// [.., total_seq, ..], computed past_seq + seq) keeps its promise wherever the caller keeps the
// input contract that the graph itself requires (the mask Add): not a pin of its own.
void DropDeclarationsKeptByContracts(const Classifier& classifier, std::vector<Pin>& pins) {
  // Each one a sum of input dims that must be 0; a decoder states the same one in every layer.
  std::vector<sym::Expr> seen;
  std::vector<sym::LinearForm> contracts;
  absl::flat_hash_set<std::string> contract_symbols;
  for (const Pin& pin : pins) {
    const Requirement& r = *pin.requirement;
    if (r.kind == RequirementKind::kDeclaredShape || !pin.contract) continue;
    auto d = sym::Sub(r.lhs, r.rhs);
    if (d && std::find(seen.begin(), seen.end(), *d) == seen.end()) {
      seen.push_back(*d);
      contracts.push_back(*sym::AsLinear(*d));  // a contract is linear (IsUnitRelation)
      for (const auto& [symbol, coefficient] : contracts.back().terms) {
        contract_symbols.insert(symbol);
      }
    }
  }
  if (contracts.empty()) return;
  const std::vector<std::string> contract_syms(contract_symbols.begin(), contract_symbols.end());
  // Each declared output of every layer states the same requirement: decided once.
  absl::flat_hash_map<std::pair<sym::Expr, sym::Expr>, bool> kept;
  std::erase_if(pins, [&](const Pin& pin) {
    const Requirement& r = *pin.requirement;
    if (r.kind != RequirementKind::kDeclaredShape) return false;
    auto [it, fresh] = kept.try_emplace({r.lhs, r.rhs}, false);
    if (fresh)
      it->second = classifier.HoldsUnderContracts(r, pin.symbols, contracts, contract_syms);
    return it->second;
  });
}

// A view that rounds up is a pin of its own only where it is the first requirement to fail:
// after a channel split that fails at an odd count (a constraint eager shares), the view back
// holds more elements than the split left it, and that says nothing new.
void KeepRoundingUpWhereFirstToFail(const Classifier& classifier, std::vector<Distinct>& distinct) {
  for (size_t i = 0; i < distinct.size(); ++i) {
    Distinct& d = distinct[i];
    if (!d.rounds_up) continue;
    bool first_somewhere = false;
    sym::Binding b;
    const std::vector<sym::Binding::Slot> slots = classifier.SlotsIn(b);
    for (int k = 0; k < kNumSamples && !first_somewhere; ++k) {
      Classifier::SetSample(k, b, slots);
      sym::Evaluator evaluate(b);
      if (HoldsUnder(*d.first, evaluate) != false) continue;
      first_somewhere =
          std::none_of(distinct.begin(), distinct.begin() + i, [&](const Distinct& e) {
            return e.verdict != Verdict::kHolds && HoldsUnder(*e.first, evaluate) == false;
          });
    }
    if (!first_somewhere) {
      d.rounds_up = false;
      d.verdict = Verdict::kConstraint;
    }
  }
}

// A declared shape that holds only up to a bound says what the user expected past it: where the
// graph still runs there (x[:, :4] returns 4 columns at seq = 5, declared seq), the declaration
// is contradicted, a pin. It is the model's range only where an op of the graph itself fails
// past the same bound or an earlier one (a mask sliced to 16 rows no longer broadcasts).
void KeepDeclaredBoundsWhereTheGraphFails(std::vector<Distinct>& distinct) {
  auto within = [](const std::vector<std::string>& inner, const std::vector<std::string>& outer) {
    return std::includes(outer.begin(), outer.end(), inner.begin(), inner.end());
  };
  for (Distinct& d : distinct) {
    if (d.verdict != Verdict::kBound || d.first->kind != RequirementKind::kDeclaredShape) continue;
    const bool graph_fails = std::any_of(distinct.begin(), distinct.end(), [&](const Distinct& o) {
      return o.verdict == Verdict::kBound && o.first->kind != RequirementKind::kDeclaredShape &&
             o.bound <= d.bound && within(o.syms, d.syms);
    });
    if (!graph_fails) d.verdict = Verdict::kPin;
  }
}

}  // namespace

PinSet FindPins(const infer::Inference& inference, const std::vector<std::string>& symbols) {
  const Classifier classifier(symbols);
  std::vector<int> of_requirement;
  std::vector<Distinct> distinct = Deduplicate(inference, symbols, of_requirement);
  // One evaluator per sample for a block of them: their sides share most of their
  // subexpressions (a CNN's spatial dims, a decoder's sequence lengths), which are then
  // evaluated once per block. A block is taken through every sample before the next: the
  // expressions of 20,000 requirements outgrow the caches, and going over all of them at each
  // sample in turn made the search grow faster than the model (2.7 to 3 times the time at twice
  // the dims). A block's symbols alone are set: the others keep values no requirement of the
  // block reads.
  constexpr size_t kBlock = 512;
  sym::Binding b;
  std::vector<std::pair<sym::Binding::Slot, size_t>> to_set;  // slot, position in `symbols`
  for (size_t first = 0; first < distinct.size(); first += kBlock) {
    const size_t last = std::min(distinct.size(), first + kBlock);
    to_set.clear();
    for (size_t i = first; i < last; ++i) {
      for (const std::string& s : distinct[i].syms) {
        to_set.emplace_back(b.SlotOf(s), classifier.Position(s));
      }
    }
    for (int k = 0; k < kNumSamples; ++k) {
      for (const auto& [slot, position] : to_set) {
        b.SetAt(slot, Classifier::SampleValue(k, position));
      }
      sym::Evaluator evaluate(b);
      for (size_t i = first; i < last; ++i) {
        Distinct& d = distinct[i];
        const std::optional<bool> h = HoldsUnder(*d.first, evaluate);
        if (h) (*h ? d.holds : d.fails)++;
      }
    }
  }
  for (Distinct& d : distinct) {
    d.verdict = classifier.Classify(*d.first, d.syms, d.holds, d.fails, d.rounds_up);
    if (d.verdict != Verdict::kPin || d.holds == 0 || d.rounds_up) continue;
    if (const std::optional<int64_t> bound = classifier.UpperBound(*d.first, d.syms)) {
      d.verdict = Verdict::kBound;
      d.bound = *bound;
      d.on_sum = classifier.OnSum(*d.first, d.syms, *bound);
    }
  }
  KeepRoundingUpWhereFirstToFail(classifier, distinct);
  KeepDeclaredBoundsWhereTheGraphFails(distinct);
  PinSet set;
  for (size_t i = 0; i < inference.requirements.size(); ++i) {
    if (of_requirement[i] < 0) continue;
    const Requirement& r = inference.requirements[i];
    const Distinct& d = distinct[of_requirement[i]];
    if (d.verdict == Verdict::kHolds) continue;
    // Copies hold or fail together: the first one stands for them all.
    if (d.first == &r) set.constraints.push_back(&r);
    if (d.verdict == Verdict::kBound && d.first == &r)
      set.bounds.push_back({&r, d.syms, d.bound, d.on_sum});
    if (d.verdict == Verdict::kConstraint || d.verdict == Verdict::kBound) continue;
    set.pins.push_back(
        {&r, d.syms, d.verdict == Verdict::kAlwaysFalse, IsUnitRelation(r), d.rounds_up});
  }
  DropDeclarationsKeptByContracts(classifier, set.pins);
  return set;
}

}  // namespace shapelint::lint
