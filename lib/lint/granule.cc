#include "lint/granule.h"

#include <algorithm>
#include <limits>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"

namespace shapelint::lint {
namespace {

// lcm(a, b), or kMaxGranule + 1 once it passes kMaxGranule (which then stays past it).
int64_t CappedLcm(int64_t a, int64_t b) {
  if (a > kMaxGranule || b > kMaxGranule) return kMaxGranule + 1;
  const int64_t l = a / std::gcd(a, b) * b;
  return l > kMaxGranule ? kMaxGranule + 1 : l;
}

void Merge(absl::flat_hash_map<std::string, int64_t>& into, const std::string& symbol,
           int64_t granule) {
  if (granule <= 1) return;
  int64_t& g = into[symbol];
  g = g == 0 ? std::min(granule, kMaxGranule + 1) : CappedLcm(g, granule);
}

// What `e` moves by when each symbol it is linear in moves by 1 at `at` (every term holds the
// symbol at most once, as a bare factor: B*C*H*W / 20 in each of them), by symbol; a symbol
// squared, or inside a floor, a min or a max, has none, nor does one where `e` cannot be
// evaluated. `e` is read once for all its symbols.
absl::flat_hash_map<std::string, int64_t> LinearSteps(const sym::Expr& e, const sym::Binding& at) {
  absl::flat_hash_map<std::string, int64_t> steps;
  absl::flat_hash_set<std::string> nonlinear;
  for (const sym::TermParts& term : sym::Decompose(e).terms) {
    for (const auto& [atom, exponent] : term.factors) {
      if (atom.kind == sym::AtomParts::Kind::kSymbol) {
        if (exponent != 1) nonlinear.insert(atom.symbol);
        continue;
      }
      for (const sym::Expr& arg : atom.args) {
        for (const std::string& inside : arg.Symbols()) nonlinear.insert(inside);
      }
    }
  }
  const std::optional<int64_t> here = e.Evaluate(at);
  if (!here) return steps;
  for (const std::string& symbol : e.Symbols()) {
    const std::optional<int64_t> size = at.Get(symbol);
    if (nonlinear.contains(symbol) || !size) continue;
    sym::Binding moved = at;
    moved.Set(symbol, *size + 1);
    const std::optional<int64_t> there = e.Evaluate(moved);
    int64_t step = 0;
    if (there && !__builtin_sub_overflow(*there, *here, &step)) steps[symbol] = step;
  }
  return steps;
}

}  // namespace

const Granules::BySymbol& Granules::Walk(const sym::Expr& e) const {
  const void* key = e.node();
  if (auto it = memo_.find(key); it != memo_.end()) return it->second;
  BySymbol out;
  const sym::PolynomialParts parts = sym::Decompose(e);
  for (const sym::TermParts& term : parts.terms) {
    for (const auto& [atom, exponent] : term.factors) {
      switch (atom.kind) {
        case sym::AtomParts::Kind::kSymbol:
          break;
        case sym::AtomParts::Kind::kFloorDiv: {
          // Every symbol of the numerator moves it; the floor keeps its remainder when the
          // numerator moves by a multiple of the divisor, so by the divisor times the
          // numerator's own granule for that symbol. Where the numerator is linear in the
          // symbol, a move of 1 moves it by c (the product of the other sizes at the witness:
          // B*C*W = 80 for B*C*H*W / 20), and the divisor over gcd(divisor, c) is enough: H
          // may move by 1 there, where a stride-2 window's (H - 1) / 2 needs 2.
          const sym::Expr& numerator = atom.args.front();
          const BySymbol& inner = Walk(numerator);
          const absl::flat_hash_map<std::string, int64_t> linear = LinearSteps(numerator, witness_);
          for (const std::string& s : numerator.Symbols()) {
            const auto in = inner.find(s);
            const int64_t g = in == inner.end() ? 1 : in->second;
            int64_t divisor = atom.divisor;
            if (const auto c = linear.find(s); c != linear.end() && c->second != 0 &&
                                               c->second != std::numeric_limits<int64_t>::min()) {
              divisor /= std::gcd(divisor, c->second < 0 ? -c->second : c->second);
            }
            Merge(out, s, g > kMaxGranule || divisor > kMaxGranule ? kMaxGranule + 1 : divisor * g);
          }
          break;
        }
        case sym::AtomParts::Kind::kMin:
        case sym::AtomParts::Kind::kMax:
        case sym::AtomParts::Kind::kFloorDivExpr:
          // A symbolic divisor has no fixed step; its operands' floors still count.
          for (const sym::Expr& arg : atom.args) {
            for (const auto& [s, g] : Walk(arg)) Merge(out, s, g);
          }
          break;
      }
    }
  }
  return memo_.emplace(key, std::move(out)).first->second;
}

// A view that splits a dim into a count and literal factors (Flux's [b, c, H, W] as
// [b, c, 4, 2, 5, 2], a chunk view [b, -1, 4, d] of [b, T, d]) needs that dim to stay a multiple
// of the factors after the first wherever the module computes the count from the size
// (h = H // 2), as eager's view does: the step that keeps the module's own divisibility. The
// dims and the target's entries are matched, in order, into runs of equal size at the witness;
// a run whose last input dim is a single symbol, against two entries or more whose entries
// after the first are literals, gives that symbol the product of those literals where it is a
// multiple of it. A literal 1 is a unit axis the view adds, in no run.
void Granules::ReadReshapeSplits(const infer::Requirement& r, BySymbol& all) const {
  if (r.graph == nullptr || r.node < 0) return;
  const ir::Node n = r.graph->node(r.node);
  if (n.op_type() != "Reshape" || n.input_size() < 2) return;
  const infer::TensorFact* in = inference_.FindIn(*r.graph, n.input(0));
  const infer::TensorFact* target = inference_.FindIn(*r.graph, n.input(1));
  if (in == nullptr || !in->shape || target == nullptr || !target->values) return;
  std::vector<int64_t> dims;
  for (const sym::MaybeExpr& d : *in->shape) {
    const std::optional<int64_t> v = d ? d->Evaluate(witness_) : std::nullopt;
    if (!v || *v < 1) return;
    dims.push_back(*v);
  }
  // The target's entries at the witness; a 0 copies the input's dim, a -1 takes what is left.
  const bool zero_copies = n.IntAttribute("allowzero").value_or(0) == 0;
  std::vector<int64_t> entries;
  std::vector<bool> literal;
  int64_t total = 1, known = 1, inferred = -1;
  for (const int64_t d : dims) {
    if (__builtin_mul_overflow(total, d, &total)) return;
  }
  for (size_t j = 0; j < target->values->size(); ++j) {
    const sym::MaybeExpr& e = (*target->values)[j].value;
    const std::optional<int64_t> c = e ? e->AsConstant() : std::nullopt;
    std::optional<int64_t> v = e ? e->Evaluate(witness_) : std::nullopt;
    if (c == 0 && zero_copies) v = j < dims.size() ? std::optional<int64_t>(dims[j]) : std::nullopt;
    if (c == -1) {
      if (inferred >= 0) return;
      inferred = static_cast<int64_t>(entries.size());
      entries.push_back(1);
      literal.push_back(false);
      continue;
    }
    if (!v || *v < 1 || __builtin_mul_overflow(known, *v, &known)) return;
    // A literal 1 adds a unit axis ([1, 4, 1, 5] of [4, 5]): no factor of a split.
    if (c == 1) continue;
    entries.push_back(*v);
    literal.push_back(c.has_value() && *c >= 1);
  }
  if (inferred >= 0) {
    if (known == 0 || total % known != 0) return;
    entries[inferred] = total / known;
  }
  size_t i = 0, j = 0;
  while (i < dims.size() && j < entries.size()) {
    const size_t first_entry = j;
    int64_t a = dims[i++], b = entries[j++];
    while (a != b) {
      if (a < b) {
        if (i == dims.size() || __builtin_mul_overflow(a, dims[i++], &a)) return;
      } else {
        if (j == entries.size() || __builtin_mul_overflow(b, entries[j++], &b)) return;
      }
    }
    // A split is against two entries or more; a run that keeps a dim as it is, or joins dims
    // into one entry (a flatten), splits nothing. Where the run joins dims and splits them
    // again ([b, c, H, W] as [b * c * 4, 2, 5, 2], MobileViT's patches: b, c and H against
    // b * c * 4 and 2), row-major order puts the literal factors after the count in its last
    // dim: they split that dim where it is a multiple of them.
    if (j - first_entry < 2) continue;
    const sym::MaybeExpr& d = (*in->shape)[i - 1];
    const std::optional<std::string_view> symbol = d ? d->AsSymbol() : std::nullopt;
    if (!symbol) continue;
    int64_t factors = 1;
    bool literals = true;
    for (size_t k = first_entry + 1; k < j; ++k) {
      literals = literals && literal[k];
      if (__builtin_mul_overflow(factors, entries[k], &factors)) return;
    }
    if (literals && dims[i - 1] % factors == 0) Merge(all, std::string(*symbol), factors);
  }
}

void Granules::Read() const {
  BySymbol all;
  auto add = [&](const sym::Expr& e) {
    for (const auto& [s, g] : Walk(e)) Merge(all, s, g);
  };
  for (const infer::TensorFact& fact : inference_.facts) {
    if (!fact.shape) continue;
    for (const sym::MaybeExpr& d : *fact.shape) {
      if (d) add(*d);
    }
  }
  // The requirements of the ops; a declaration is some tool's reading of the graph, not its
  // arithmetic.
  for (const infer::Requirement& r : inference_.requirements) {
    if (r.kind == infer::RequirementKind::kDeclaredShape) continue;
    add(r.lhs);
    add(r.rhs);
    if (r.kind == infer::RequirementKind::kReshapeCount) ReadReshapeSplits(r, all);
  }
  all_ = std::move(all);
  memo_.clear();
}

int64_t Granules::Of(std::string_view symbol) const {
  if (!all_) Read();
  const auto it = all_->find(std::string(symbol));
  if (it == all_->end() || it->second > kMaxGranule) return 1;
  return it->second;
}

}  // namespace shapelint::lint
