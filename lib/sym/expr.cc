// Construction of canonical expressions, the accessors of Expr, and arithmetic.
#include "shapelint/sym/expr.h"

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/hash/hash.h"
#include "absl/status/statusor.h"
#include "sym/expr_internal.h"
#include "sym/expr_node.h"

namespace shapelint::sym {
namespace {

thread_local CapHits cap_hits;

// Gives up on a result: counts why, returns unknown.
MaybeExpr Overflowed() {
  ++cap_hits.overflow;
  return std::nullopt;
}
MaybeExpr TooLarge() {
  ++cap_hits.too_large;
  return std::nullopt;
}

// ---------------------------------------------------------------------------------------------
// Construction.

struct WideTerm {
  Wide coeff;
  Monomial monomial;
};

// A polynomial under construction: terms in any order, possibly repeated or zero.
struct WidePoly {
  Wide constant = 0;
  std::vector<WideTerm> terms;
};

Expr Wrap(const ExprNode* node) { return ExprBuilder::FromNode(node); }

// Sorts, merges equal monomials, drops zero terms, checks int64 range and the term cap.
MaybeExpr Canonicalize(WidePoly poly) {
  std::sort(poly.terms.begin(), poly.terms.end(), [](const WideTerm& a, const WideTerm& b) {
    return CompareMonomials(a.monomial, b.monomial) < 0;
  });
  std::vector<Term> terms;
  for (size_t i = 0; i < poly.terms.size();) {
    Wide sum = 0;
    size_t j = i;
    for (; j < poly.terms.size() && poly.terms[j].monomial == poly.terms[i].monomial; ++j) {
      std::optional<Wide> s = WideAdd(sum, poly.terms[j].coeff);
      if (!s) return Overflowed();
      sum = *s;
    }
    if (sum != 0) {
      std::optional<int64_t> coeff = Narrow(sum);
      if (!coeff) return Overflowed();
      if (terms.size() == kMaxTerms) return TooLarge();
      terms.push_back(Term{*coeff, std::move(poly.terms[i].monomial)});
    }
    i = j;
  }
  std::optional<int64_t> constant = Narrow(poly.constant);
  if (!constant) return Overflowed();
  return Wrap(InternPolyNode(*constant, std::move(terms)));
}

void AppendWide(const ExprNode* p, Wide scale, WidePoly* out) {
  // |coefficient| < 2^63, |scale| <= 2^63, so the product fits in 127 bits.
  out->constant += static_cast<Wide>(p->constant) * scale;
  for (const Term& t : p->terms) out->terms.push_back(WideTerm{t.coeff * scale, t.monomial});
}

// The constant `c` itself: adding 0 or multiplying by 1 gives the other operand back, which is
// already canonical (and interned), without building and interning it again.
bool IsConstantNode(const ExprNode* n, int64_t c) {
  return n->kind == NodeKind::kPoly && n->terms.empty() && n->constant == c;
}

MaybeExpr Combine(const ExprNode* a, const ExprNode* b, Wide b_scale) {
  WidePoly poly;
  AppendWide(a, 1, &poly);
  AppendWide(b, b_scale, &poly);
  return Canonicalize(std::move(poly));
}

// The product of two monomials; nullopt past kMaxDegree.
std::optional<Monomial> MulMonomials(const Monomial& a, const Monomial& b) {
  if (Degree(a) + Degree(b) > kMaxDegree) {
    ++cap_hits.too_large;
    return std::nullopt;
  }
  Monomial out;
  out.reserve(a.size() + b.size());
  size_t i = 0, j = 0;
  while (i < a.size() || j < b.size()) {
    int c = i == a.size() ? 1 : (j == b.size() ? -1 : CompareAtoms(a[i].atom, b[j].atom));
    if (c < 0) {
      out.push_back(a[i++]);
    } else if (c > 0) {
      out.push_back(b[j++]);
    } else {
      out.push_back(Factor{a[i].atom, a[i].exponent + b[j].exponent});
      ++i;
      ++j;
    }
  }
  return out;
}

// The polynomial 1 * atom^1.
Expr AtomExpr(const ExprNode* atom) {
  return Wrap(InternPolyNode(0, {Term{1, Monomial{Factor{atom, 1}}}}));
}

// The atom when `p` is exactly 1 * atom^1.
const ExprNode* BareAtom(const ExprNode* p) {
  if (p->constant != 0 || p->terms.size() != 1) return nullptr;
  const Term& t = p->terms[0];
  if (t.coeff != 1 || t.monomial.size() != 1 || t.monomial[0].exponent != 1) return nullptr;
  return t.monomial[0].atom;
}

MaybeExpr FloorDivByPositive(const ExprNode* e, int64_t k) {
  if (e->terms.empty()) return Expr::Constant(*FloorDivInt(e->constant, k));
  if (k == 1) return Wrap(e);
  // e = k*Q + R with every coefficient of R in [0, k); floor(e / k) = Q + floor(R / k) exactly
  // because Q is an integer. This makes the numerators of floor atoms canonical.
  WidePoly quotient;
  std::vector<Term> rest;
  for (const Term& t : e->terms) {
    int64_t q = *FloorDivInt(t.coeff, k);
    int64_t r = *ModInt(t.coeff, k);
    if (q != 0) quotient.terms.push_back(WideTerm{q, t.monomial});
    if (r != 0) rest.push_back(Term{r, t.monomial});
  }
  quotient.constant = *FloorDivInt(e->constant, k);
  int64_t rest_constant = *ModInt(e->constant, k);
  MaybeExpr q_expr = Canonicalize(std::move(quotient));
  if (!q_expr) return std::nullopt;
  // 0 <= rest_constant < k, so a constant remainder contributes nothing.
  if (rest.empty()) return q_expr;

  // With g = gcd(k, non-constant coefficients of R), R = g*X + r:
  //   floor((g*X + r) / (g*m)) == floor((X + floor(r / g)) / m)   for integer X,
  // because g*X + r = g*(X + floor(r/g)) + (r mod g) and the last part is below g. So
  // floor((3*s + 2) / 6) becomes floor(s / 2).
  int64_t g = k;
  for (const Term& t : rest) g = std::gcd(g, t.coeff);
  if (g > 1) {
    for (Term& t : rest) t.coeff /= g;
    rest_constant /= g;  // Non-negative, so truncation is the floor.
    k /= g;
  }

  // floor((Y + floor(X / a)) / k) == floor((a*Y + X) / (a*k)) for integer Y: a floor with
  // coefficient 1 inside another floor is absorbed, so floor(floor(x / 2) / 3) == floor(x / 6)
  // for every x. If the merged form overflows, the nested form below is kept instead.
  for (size_t i = 0; i < rest.size(); ++i) {
    const Term& t = rest[i];
    if (t.coeff != 1 || t.monomial.size() != 1 || t.monomial[0].exponent != 1 ||
        t.monomial[0].atom->kind != NodeKind::kFloorDiv) {
      continue;
    }
    const ExprNode* inner = t.monomial[0].atom;
    std::optional<int64_t> divisor = CheckedMul(inner->divisor, k);
    if (!divisor) break;
    WidePoly merged;
    AppendWide(inner->numerator, 1, &merged);
    merged.constant += static_cast<Wide>(rest_constant) * inner->divisor;
    for (size_t j = 0; j < rest.size(); ++j) {
      if (j != i) {
        merged.terms.push_back(
            WideTerm{static_cast<Wide>(rest[j].coeff) * inner->divisor, rest[j].monomial});
      }
    }
    MaybeExpr numerator = Canonicalize(std::move(merged));
    if (!numerator) break;
    MaybeExpr floor_part = FloorDivByPositive(numerator->node(), *divisor);
    if (!floor_part) break;
    return Add(q_expr, floor_part);
  }

  const ExprNode* numerator = InternPolyNode(rest_constant, std::move(rest));
  if (numerator->depth + 1 > kMaxDepth) return TooLarge();
  ExprNode atom;
  atom.kind = NodeKind::kFloorDiv;
  atom.depth = numerator->depth + 1;
  atom.numerator = numerator;
  atom.divisor = k;
  return Add(q_expr, AtomExpr(Intern(std::move(atom))));
}

// True when the polynomials have the same terms, i.e. their difference is a constant.
bool SameTerms(const ExprNode* a, const ExprNode* b) { return a->terms == b->terms; }

// True when `d` >= 0 at every binding of its symbols to sizes: its sign flag says so, or it does
// once one floor term is replaced by the bound it cannot pass, k*floor(N / k) >= N - (k - 1)
// where it adds and <= N where it subtracts, with `depth` more such steps. Padding to a multiple
// needs it: -h + 2*floor((h + 1) / 2) + 5 is the pad timm's "same" padding computes, never
// negative (2*floor((h + 1) / 2) >= h), so max(that, 0) is that. Only the first kTried floor terms
// are tried at each step, keeping a proof to a few polynomial sums.
bool NonNegativeByFloorBounds(const ExprNode* d, int depth) {
  constexpr int kTried = 3;
  if (d->non_negative) return true;
  if (depth <= 0 || d->kind != NodeKind::kPoly) return false;
  // A bound too large to build is a proof not found, not a cap the caller should be told of.
  const CapHits before = cap_hits;
  bool proven = false;
  int tried = 0;
  for (const Term& t : d->terms) {
    if (t.monomial.size() != 1 || t.monomial[0].exponent != 1) continue;
    const ExprNode* f = t.monomial[0].atom;
    if (f->kind != NodeKind::kFloorDiv || f->divisor < 2) continue;
    if (++tried > kTried) break;
    const Wide c = t.coeff;
    const Wide k = f->divisor;
    // k * d = k * (d - c*F) + c * (k*F), and k*F lies in [N - (k - 1), N].
    const MaybeExpr rest = Combine(d, AtomExpr(f).node(), -c);
    if (!rest) continue;
    const MaybeExpr scaled = Combine(Expr::Constant(0).node(), rest->node(), k);
    if (!scaled) continue;
    const MaybeExpr with_numerator = Combine(scaled->node(), f->numerator, c);
    if (!with_numerator) continue;
    const MaybeExpr bound =
        c > 0 ? Combine(with_numerator->node(), Expr::Constant(1).node(), -c * (k - 1))
              : with_numerator;
    if (bound && NonNegativeByFloorBounds(bound->node(), depth - 1)) {
      proven = true;
      break;
    }
  }
  cap_hits = before;
  return proven;
}

// True when p >= q at every binding of the symbols to sizes, as far as the sign of p - q shows
// it (the flag interning gives every node), or, for two floors by the same divisor, their
// numerators: max(floor((W + 3) / 4), floor((W + 1) / 4)) is floor((W + 3) / 4), and min(-L, L)
// is -L. A min is at most each of its arguments and a max at least each of its own, so p is at
// least min(p, b) and max(a, b) at least a: max(T, min(T, 8)) is T, a length sliced from a
// table of 8 rows broadcast against the length itself.
bool ProvablyAtLeast(const ExprNode* p, const ExprNode* q, int depth) {
  if (depth < 0) return false;
  // By the sign of the difference alone: what the absorption below asks of each argument, one
  // level deep, so that nested mins and maxes cost a sum per argument, not a search.
  const auto by_sign = [](const ExprNode* a, const ExprNode* b) {
    if (a == b) return true;
    const MaybeExpr d = Combine(a, b, -1);
    return d && NonNegativeByFloorBounds(d->node(), 2);
  };
  if (by_sign(p, q)) return true;
  const ExprNode* fp = BareAtom(p);
  const ExprNode* fq = BareAtom(q);
  if (fq != nullptr && fq->kind == NodeKind::kMin &&
      std::any_of(fq->args.begin(), fq->args.end(),
                  [&](const ExprNode* a) { return by_sign(p, a); })) {
    return true;
  }
  if (fp != nullptr && fp->kind == NodeKind::kMax &&
      std::any_of(fp->args.begin(), fp->args.end(),
                  [&](const ExprNode* a) { return by_sign(a, q); })) {
    return true;
  }
  return fp != nullptr && fq != nullptr && fp->kind == NodeKind::kFloorDiv &&
         fq->kind == NodeKind::kFloorDiv && fp->divisor == fq->divisor &&
         ProvablyAtLeast(fp->numerator, fq->numerator, depth - 1);
}

// Drops the arguments of a min (max) that another argument is provably at most (at least):
// those never decide it. Of two provably equal, the first in canonical order stays, so the
// result does not depend on the order the arguments came in.
void DropDominated(NodeKind kind, std::vector<const ExprNode*>& args) {
  constexpr size_t kMaxCompared = 8;  // pairwise: keep it cheap on wide nests
  constexpr int kFloorDepth = 4;
  if (args.size() < 2 || args.size() > kMaxCompared) return;
  auto decides_over = [&](const ExprNode* x, const ExprNode* y) {  // x makes y irrelevant
    return kind == NodeKind::kMax ? ProvablyAtLeast(x, y, kFloorDepth)
                                  : ProvablyAtLeast(y, x, kFloorDepth);
  };
  std::vector<const ExprNode*> kept;
  for (size_t i = 0; i < args.size(); ++i) {
    bool dropped = false;
    for (size_t j = 0; j < args.size() && !dropped; ++j) {
      if (i == j || !decides_over(args[j], args[i])) continue;
      // Mutually deciding means equal everywhere: the earlier one stays.
      dropped = !(decides_over(args[i], args[j]) && i < j);
    }
    if (!dropped) kept.push_back(args[i]);
  }
  args = std::move(kept);
}

MaybeExpr MinMax(NodeKind kind, const MaybeExpr& a, const MaybeExpr& b) {
  if (!a || !b) return std::nullopt;
  std::vector<const ExprNode*> args;
  for (const ExprNode* p : {a->node(), b->node()}) {
    const ExprNode* atom = BareAtom(p);
    if (atom != nullptr && atom->kind == kind) {
      args.insert(args.end(), atom->args.begin(), atom->args.end());
    } else {
      args.push_back(p);
    }
  }
  // ComparePolys orders by terms first, then constant, so arguments that differ by a constant
  // are adjacent with ascending constants: min keeps the first of each run, max the last.
  std::sort(args.begin(), args.end(),
            [](const ExprNode* x, const ExprNode* y) { return ComparePolys(x, y) < 0; });
  std::vector<const ExprNode*> kept;
  for (const ExprNode* p : args) {
    if (!kept.empty() && SameTerms(kept.back(), p)) {
      if (kind == NodeKind::kMax) kept.back() = p;
      continue;
    }
    kept.push_back(p);
  }
  DropDominated(kind, kept);
  if (kept.size() == 1) return Wrap(kept[0]);
  if (kept.size() > kMaxTerms) return TooLarge();
  ExprNode atom;
  atom.kind = kind;
  atom.depth = 0;
  for (const ExprNode* p : kept) atom.depth = std::max(atom.depth, p->depth);
  atom.depth += 1;
  if (atom.depth > kMaxDepth) return TooLarge();
  atom.args = std::move(kept);
  return AtomExpr(Intern(std::move(atom)));
}

void CollectSymbols(const ExprNode* n, absl::flat_hash_set<const ExprNode*>& seen,
                    std::vector<std::string>& names) {
  if (!seen.insert(n).second) return;
  switch (n->kind) {
    case NodeKind::kPoly:
      for (const Term& t : n->terms) {
        for (const Factor& f : t.monomial) CollectSymbols(f.atom, seen, names);
      }
      break;
    case NodeKind::kSymbol:
      names.push_back(n->name);
      break;
    case NodeKind::kFloorDiv:
      CollectSymbols(n->numerator, seen, names);
      break;
    case NodeKind::kFloorDivExpr:
      CollectSymbols(n->numerator, seen, names);
      CollectSymbols(n->divisor_expr, seen, names);
      break;
    case NodeKind::kMin:
    case NodeKind::kMax:
      for (const ExprNode* arg : n->args) CollectSymbols(arg, seen, names);
      break;
  }
}

}  // namespace

// -----------------------------------------------------------------------------------------------
// Expr.

Expr::Expr() {
  // Cached: default construction is frequent and should not take the table lock. Always the
  // process-wide node, also inside a scope (which finds it there when it builds a 0): small
  // constants come from the process-wide cache.
  static const ExprNode* const kZero = InternPolyNode(0, {});
  node_ = kZero;
}

Expr Expr::Constant(int64_t value) { return Expr(InternPolyNode(value, {})); }

Expr Expr::Symbol(std::string_view name) {
  ExprNode atom;
  atom.kind = NodeKind::kSymbol;
  atom.name = std::string(name);
  return AtomExpr(Intern(std::move(atom)));
}

std::optional<int64_t> Expr::AsConstant() const {
  if (!node_->terms.empty()) return std::nullopt;
  return node_->constant;
}

std::optional<std::string_view> Expr::AsSymbol() const {
  const ExprNode* atom = BareAtom(node_);
  if (atom == nullptr || atom->kind != NodeKind::kSymbol) return std::nullopt;
  return std::string_view(atom->name);
}

std::vector<std::string> Expr::Symbols() const {
  absl::flat_hash_set<const ExprNode*> seen;
  std::vector<std::string> names;
  CollectSymbols(node_, seen, names);
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

bool Expr::IsPolynomial() const {
  for (const Term& t : node_->terms) {
    for (const Factor& f : t.monomial) {
      if (f.atom->kind != NodeKind::kSymbol) return false;
    }
  }
  return true;
}

size_t Expr::Hash() const { return absl::HashOf(node_); }

// -----------------------------------------------------------------------------------------------
// Arithmetic.

MaybeExpr Add(const MaybeExpr& a, const MaybeExpr& b) {
  if (!a || !b) return std::nullopt;
  if (IsConstantNode(b->node(), 0)) return a;
  if (IsConstantNode(a->node(), 0)) return b;
  return Combine(a->node(), b->node(), 1);
}

MaybeExpr Sub(const MaybeExpr& a, const MaybeExpr& b) {
  if (!a || !b) return std::nullopt;
  if (IsConstantNode(b->node(), 0)) return a;
  return Combine(a->node(), b->node(), -1);
}

MaybeExpr Neg(const MaybeExpr& a) {
  if (!a) return std::nullopt;
  return Combine(Expr().node(), a->node(), -1);
}

MaybeExpr Mul(const MaybeExpr& a, const MaybeExpr& b) {
  if (!a || !b) return std::nullopt;
  if (IsConstantNode(b->node(), 1)) return a;
  if (IsConstantNode(a->node(), 1)) return b;
  const ExprNode* x = a->node();
  const ExprNode* y = b->node();
  // Scaling by a constant keeps the monomials; no need to distribute.
  if (x->terms.empty()) std::swap(x, y);
  if (y->terms.empty()) return Combine(Expr().node(), x, y->constant);

  // Distribute: (c + sum t_i) * (d + sum u_j). Products of two int64 coefficients fit in Wide.
  auto summands = [](const ExprNode* p) {
    std::vector<std::pair<Wide, const Monomial*>> out;
    static const Monomial kOne;
    for (const Term& t : p->terms) out.emplace_back(t.coeff, &t.monomial);
    if (p->constant != 0) out.emplace_back(p->constant, &kOne);
    return out;
  };
  WidePoly product;
  for (const auto& [cx, mx] : summands(x)) {
    for (const auto& [cy, my] : summands(y)) {
      std::optional<Monomial> m = MulMonomials(*mx, *my);
      if (!m) return std::nullopt;
      if (m->empty()) {
        std::optional<Wide> c = WideAdd(product.constant, cx * cy);
        if (!c) return std::nullopt;
        product.constant = *c;
      } else {
        product.terms.push_back(WideTerm{cx * cy, std::move(*m)});
      }
    }
  }
  return Canonicalize(std::move(product));
}

MaybeExpr FloorDiv(const MaybeExpr& a, const MaybeExpr& b) {
  if (!a || !b) return std::nullopt;
  std::optional<int64_t> k = b->AsConstant();
  if (!k) return std::nullopt;
  if (*k > 0) return FloorDivByPositive(a->node(), *k);
  std::optional<int64_t> n = a->AsConstant();
  if (!n) return std::nullopt;
  std::optional<int64_t> q = FloorDivInt(*n, *k);
  if (!q) return std::nullopt;
  return Expr::Constant(*q);
}

MaybeExpr CeilDiv(const MaybeExpr& a, const MaybeExpr& b) {
  if (!a || !b) return std::nullopt;
  std::optional<int64_t> k = b->AsConstant();
  if (!k) return std::nullopt;
  if (std::optional<int64_t> n = a->AsConstant()) {
    std::optional<int64_t> q = CeilDivInt(*n, *k);
    if (!q) return std::nullopt;
    return Expr::Constant(*q);
  }
  if (*k <= 0) return std::nullopt;
  MaybeExpr shifted = Add(a, Expr::Constant(*k - 1));
  if (!shifted) return std::nullopt;
  return FloorDivByPositive(shifted->node(), *k);
}

MaybeExpr Mod(const MaybeExpr& a, const MaybeExpr& b) {
  if (!a || !b) return std::nullopt;
  std::optional<int64_t> k = b->AsConstant();
  if (!k) return std::nullopt;
  if (std::optional<int64_t> n = a->AsConstant()) {
    std::optional<int64_t> r = ModInt(*n, *k);
    if (!r) return std::nullopt;
    return Expr::Constant(*r);
  }
  if (*k <= 0) return std::nullopt;
  // a mod k == R mod k where a = k*Q + R and R's coefficients lie in [0, k); reducing first keeps
  // large coefficients of a from overflowing in k * floor(a / k).
  WidePoly rest;
  for (const Term& t : a->node()->terms) {
    int64_t r = *ModInt(t.coeff, *k);
    if (r != 0) rest.terms.push_back(WideTerm{r, t.monomial});
  }
  rest.constant = *ModInt(a->node()->constant, *k);
  MaybeExpr r = Canonicalize(std::move(rest));
  return Sub(r, Mul(Expr::Constant(*k), FloorDiv(r, Expr::Constant(*k))));
}

MaybeExpr ExactDiv(const MaybeExpr& a, const MaybeExpr& b) {
  if (!a || !b) return std::nullopt;
  const ExprNode* x = a->node();
  const ExprNode* y = b->node();
  // The divisor must be one summand: a nonzero constant, or c*m with no constant part.
  int64_t divisor_coeff;
  const Monomial* divisor_monomial;
  static const Monomial kOne;
  if (y->terms.empty()) {
    if (y->constant == 0) return std::nullopt;
    divisor_coeff = y->constant;
    divisor_monomial = &kOne;
  } else if (y->terms.size() == 1 && y->constant == 0) {
    divisor_coeff = y->terms[0].coeff;
    divisor_monomial = &y->terms[0].monomial;
  } else {
    return std::nullopt;
  }
  // Every coefficient must be a multiple. INT64_MIN % -1 is undefined behaviour, hence the
  // guard; INT64_MIN / -1 itself is caught by Canonicalize's range check.
  auto divide_coeff = [&](int64_t c) -> std::optional<Wide> {
    if (divisor_coeff != -1 && c % divisor_coeff != 0) return std::nullopt;
    return static_cast<Wide>(c) / divisor_coeff;
  };
  WidePoly quotient;
  if (x->constant != 0) {
    if (!divisor_monomial->empty()) return std::nullopt;
    std::optional<Wide> q = divide_coeff(x->constant);
    if (!q) return std::nullopt;
    quotient.constant = *q;
  }
  for (const Term& t : x->terms) {
    std::optional<Wide> q = divide_coeff(t.coeff);
    if (!q) return std::nullopt;
    // Both factor lists are sorted by atom, so one merge pass removes the divisor's factors.
    Monomial rest;
    size_t j = 0;
    for (const Factor& f : t.monomial) {
      if (j < divisor_monomial->size() && (*divisor_monomial)[j].atom == f.atom) {
        int32_t exponent = f.exponent - (*divisor_monomial)[j].exponent;
        if (exponent < 0) return std::nullopt;
        if (exponent > 0) rest.push_back(Factor{f.atom, exponent});
        ++j;
      } else {
        rest.push_back(f);
      }
    }
    if (j != divisor_monomial->size()) return std::nullopt;  // A divisor factor is missing.
    if (rest.empty()) {
      quotient.constant += *q;
    } else {
      quotient.terms.push_back(WideTerm{*q, std::move(rest)});
    }
  }
  return Canonicalize(std::move(quotient));
}

CapHits CapHitsSoFar() { return cap_hits; }

CapHits& ThreadCapHits() { return cap_hits; }

MaybeExpr FloorDivByTerm(const MaybeExpr& a, const MaybeExpr& b) {
  if (MaybeExpr exact = ExactDiv(a, b)) return exact;
  if (!a || !b) return std::nullopt;
  const ExprNode* y = b->node();
  if (y->terms.size() != 1 || y->constant != 0 || y->terms[0].coeff <= 1) return std::nullopt;
  const Expr coeff = Expr::Constant(y->terms[0].coeff);
  return FloorDiv(ExactDiv(a, ExactDiv(b, coeff)), coeff);
}

MaybeExpr Min(const MaybeExpr& a, const MaybeExpr& b) { return MinMax(NodeKind::kMin, a, b); }

MaybeExpr Max(const MaybeExpr& a, const MaybeExpr& b) { return MinMax(NodeKind::kMax, a, b); }

Expr FromDimParam(std::string_view dim_param) {
  absl::StatusOr<Expr> parsed = Parse(dim_param);
  if (parsed.ok()) return *parsed;
  return Expr::Symbol(dim_param);
}

// The flag first (free); the floor bounds where a term subtracts (a pad to a multiple).
bool KnownNonNegative(const Expr& e) { return NonNegativeByFloorBounds(e.node(), 2); }

std::optional<LinearForm> AsLinear(const Expr& e) {
  const ExprNode* p = e.node();
  LinearForm form;
  form.constant = p->constant;
  form.terms.reserve(p->terms.size());
  for (const Term& t : p->terms) {
    if (t.monomial.size() != 1) return std::nullopt;  // a product of atoms
    const Factor& f = t.monomial[0];
    if (f.exponent != 1 || f.atom->kind != NodeKind::kSymbol) return std::nullopt;
    form.terms.emplace_back(f.atom->name, t.coeff);
  }
  // Already sorted by name: terms of equal degree follow the atom order, which orders symbols by
  // name, and a canonical polynomial has each monomial once with a non-zero coefficient.
  return form;
}

bool NeverPositive(const Expr& e) {
  const MaybeExpr negated = Neg(e);
  if (!negated) return false;
  if (KnownNonNegative(*negated)) return true;
  const std::optional<LinearForm> form = AsLinear(*negated);
  if (!form) return false;
  int64_t at_ones = form->constant;
  for (const auto& [name, coeff] : form->terms) {
    if (coeff < 0 || __builtin_add_overflow(at_ones, coeff, &at_ones)) return false;
  }
  return at_ones >= 0;
}

}  // namespace shapelint::sym
