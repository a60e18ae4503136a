// Floor division by a symbolic divisor: sym::FloorDivExpr and the canonical form of its atom.
//
// Reshape's -1 is the element count over the product of the other dims. When that product is
// one term dividing the count, FloorDivByTerm gives the quotient as a polynomial; when it is not
// (Attention's expansion reshapes K to [Shape(Q)[0], heads, -1], so -1 is k0*k2 / (q0*heads) and
// only the graph's own check says k0 == q0), the quotient is still a function of the input dims,
// exact wherever the graph runs. This atom keeps it, as sympy's FloorDiv and torch's symbolic
// shapes do, instead of losing the dim.
#include <algorithm>
#include <cstdint>
#include <numeric>
#include <optional>
#include <utility>
#include <vector>

#include "shapelint/sym/expr.h"
#include "sym/expr_internal.h"
#include "sym/expr_node.h"

namespace shapelint::sym {
namespace {

Expr Wrap(const ExprNode* node) { return ExprBuilder::FromNode(node); }

// The polynomial coeff * monomial, one term.
Expr TermExpr(int64_t coeff, Monomial monomial) {
  if (monomial.empty()) return Expr::Constant(coeff);
  return Wrap(InternPolyNode(0, {Term{coeff, std::move(monomial)}}));
}

// The factors two monomials share, each to the lower exponent. Both lists are sorted by the
// canonical atom order, and equal atoms are the same node, so one merge pass finds them.
Monomial CommonFactors(const Monomial& a, const Monomial& b) {
  Monomial out;
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (a[i].atom == b[j].atom) {
      out.push_back(Factor{a[i].atom, std::min(a[i].exponent, b[j].exponent)});
      ++i;
      ++j;
    } else if (CompareAtoms(a[i].atom, b[j].atom) < 0) {
      ++i;
    } else {
      ++j;
    }
  }
  return out;
}

// The largest monomial dividing every term of both polynomials: empty when either has a
// constant term, since 1 is the only monomial dividing a constant.
Monomial CommonMonomial(const ExprNode* n, const ExprNode* d) {
  std::optional<Monomial> common;
  for (const ExprNode* p : {n, d}) {
    if (p->constant != 0) return {};
    for (const Term& t : p->terms) {
      common = common ? CommonFactors(*common, t.monomial) : t.monomial;
      if (common->empty()) return {};
    }
  }
  return common.value_or(Monomial{});
}

uint64_t Magnitude(int64_t v) {
  return v < 0 ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
}

// The gcd of the coefficients and constants of both polynomials (not both zero).
uint64_t CommonContent(const ExprNode* n, const ExprNode* d) {
  uint64_t g = 0;
  for (const ExprNode* p : {n, d}) {
    g = std::gcd(g, Magnitude(p->constant));
    for (const Term& t : p->terms) g = std::gcd(g, Magnitude(t.coeff));
  }
  return g;
}

// n / d when the non-constant `d` divides `n` as a polynomial, by long division on leading
// terms. The canonical term order is graded, so the leading term of a product is normally the
// product of the leading terms and each step removes the remainder's leading term; the product is
// checked at the end all the same, so a quotient is only ever returned when it is exact.
MaybeExpr ExactQuotient(Expr n, Expr d) {
  const CapHits before = ThreadCapHits();
  const Term& lead = d.node()->terms[0];
  const Expr lead_term = TermExpr(lead.coeff, lead.monomial);
  MaybeExpr quotient = Expr();
  MaybeExpr rest = n;
  // Each step takes one term off the quotient's budget: a quotient past kMaxTerms is unknown.
  for (size_t step = 0; step <= kMaxTerms && rest && quotient; ++step) {
    const ExprNode* r = rest->node();
    if (r->terms.empty()) {
      if (r->constant != 0) break;  // a constant left over: d does not divide n
      if (Mul(quotient, d) == MaybeExpr(n)) return quotient;
      break;
    }
    MaybeExpr q = ExactDiv(TermExpr(r->terms[0].coeff, r->terms[0].monomial), lead_term);
    if (!q) break;
    quotient = Add(quotient, q);
    rest = Sub(rest, Mul(q, d));
  }
  // Not dividing is the expected outcome, not a cap the caller should be told of.
  ThreadCapHits() = before;
  return std::nullopt;
}

}  // namespace

MaybeExpr FloorDivExpr(const MaybeExpr& a, const MaybeExpr& b) {
  if (!a || !b) return std::nullopt;
  if (std::optional<int64_t> k = b->AsConstant()) {
    // floor(a / -k) == floor(-a / k); a minimal k has no positive counterpart.
    if (*k < 0 && *k != kInt64Min && !a->IsConstant()) {
      return FloorDiv(Neg(a), Expr::Constant(-*k));
    }
    return FloorDiv(a, b);
  }
  if (a->AsConstant() == 0) return Expr();

  // Cancel what divides every term of both, and make the divisor's leading coefficient positive:
  // floor((g*x) / (g*y)) == floor(x / y) for any g != 0.
  const uint64_t content = CommonContent(a->node(), b->node());
  if (content > static_cast<uint64_t>(kInt64Max)) {
    ++ThreadCapHits().overflow;
    return std::nullopt;
  }
  int64_t scale = static_cast<int64_t>(content);
  if (b->node()->terms[0].coeff < 0) scale = -scale;
  Monomial common = CommonMonomial(a->node(), b->node());
  MaybeExpr n = a;
  MaybeExpr d = b;
  if (scale != 1 || !common.empty()) {
    const Expr factor = TermExpr(scale, std::move(common));
    n = ExactDiv(a, factor);
    d = ExactDiv(b, factor);
    if (!n || !d) return std::nullopt;  // -INT64_MIN: counted by ExactDiv
  }
  // A divisor that was one term is a positive constant now: today's floor by a constant.
  if (d->IsConstant()) return FloorDiv(n, d);
  if (MaybeExpr q = ExactQuotient(*n, *d)) return q;

  ExprNode atom;
  atom.kind = NodeKind::kFloorDivExpr;
  atom.depth = std::max(n->node()->depth, d->node()->depth) + 1;
  if (atom.depth > kMaxDepth) {
    ++ThreadCapHits().too_large;
    return std::nullopt;
  }
  atom.numerator = n->node();
  atom.divisor_expr = d->node();
  return Wrap(InternPolyNode(0, {Term{1, Monomial{Factor{Intern(std::move(atom)), 1}}}}));
}

}  // namespace shapelint::sym
