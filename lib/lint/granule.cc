#include "lint/granule.h"

#include <algorithm>
#include <numeric>
#include <vector>

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
          // numerator's own granule for that symbol.
          const sym::Expr& numerator = atom.args.front();
          const BySymbol& inner = Walk(numerator);
          for (const std::string& s : numerator.Symbols()) {
            const auto in = inner.find(s);
            const int64_t g = in == inner.end() ? 1 : in->second;
            Merge(
                out, s,
                g > kMaxGranule || atom.divisor > kMaxGranule ? kMaxGranule + 1 : atom.divisor * g);
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
