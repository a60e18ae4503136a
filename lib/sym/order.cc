// The canonical order of atoms, monomials and polynomials: structural, never by address, so that
// printing and the sort of terms do not depend on the order in which nodes were made.
#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "sym/expr_internal.h"
#include "sym/expr_node.h"

namespace shapelint::sym {
namespace {

int Sign(int64_t a, int64_t b) { return a < b ? -1 : (a > b ? 1 : 0); }

int CompareTerms(const Term& a, const Term& b) {
  if (int c = CompareMonomials(a.monomial, b.monomial); c != 0) return c;
  return Sign(a.coeff, b.coeff);
}

}  // namespace

int CompareMonomials(const Monomial& a, const Monomial& b) {
  // Higher total degree first, so that "s^2 + s + 1" reads like a textbook polynomial.
  int64_t da = Degree(a), db = Degree(b);
  if (da != db) return da > db ? -1 : 1;
  size_t n = std::min(a.size(), b.size());
  for (size_t i = 0; i < n; ++i) {
    if (int c = CompareAtoms(a[i].atom, b[i].atom); c != 0) return c;
    if (a[i].exponent != b[i].exponent) return a[i].exponent > b[i].exponent ? -1 : 1;
  }
  return Sign(static_cast<int64_t>(a.size()), static_cast<int64_t>(b.size()));
}

int CompareAtoms(const ExprNode* a, const ExprNode* b) {
  if (a == b) return 0;
  if (a->kind != b->kind) return a->kind < b->kind ? -1 : 1;
  switch (a->kind) {
    case NodeKind::kSymbol: {
      int c = a->name.compare(b->name);
      return c < 0 ? -1 : (c > 0 ? 1 : 0);
    }
    case NodeKind::kFloorDiv:
      if (int c = ComparePolys(a->numerator, b->numerator); c != 0) return c;
      return Sign(a->divisor, b->divisor);
    case NodeKind::kFloorDivExpr:
      if (int c = ComparePolys(a->numerator, b->numerator); c != 0) return c;
      return ComparePolys(a->divisor_expr, b->divisor_expr);
    case NodeKind::kMin:
    case NodeKind::kMax: {
      size_t n = std::min(a->args.size(), b->args.size());
      for (size_t i = 0; i < n; ++i) {
        if (int c = ComparePolys(a->args[i], b->args[i]); c != 0) return c;
      }
      return Sign(static_cast<int64_t>(a->args.size()), static_cast<int64_t>(b->args.size()));
    }
    case NodeKind::kPoly:
      return ComparePolys(a, b);
  }
  return 0;
}

int ComparePolys(const ExprNode* a, const ExprNode* b) {
  if (a == b) return 0;
  size_t n = std::min(a->terms.size(), b->terms.size());
  for (size_t i = 0; i < n; ++i) {
    if (int c = CompareTerms(a->terms[i], b->terms[i]); c != 0) return c;
  }
  // More terms first: constants sort last, as in "min(s, 4)".
  if (a->terms.size() != b->terms.size()) return a->terms.size() > b->terms.size() ? -1 : 1;
  return Sign(a->constant, b->constant);
}

}  // namespace shapelint::sym
