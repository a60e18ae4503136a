// Private representation of interned symbolic expressions. Only lib/sym and tests include this.
#ifndef SHAPELINT_LIB_SYM_EXPR_NODE_H_
#define SHAPELINT_LIB_SYM_EXPR_NODE_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "shapelint/sym/expr.h"

namespace shapelint::sym {

// The kinds of interned nodes. Every Expr points to a kPoly node; the other kinds are atoms that
// only occur as factors of a monomial. The declaration order is the canonical order of atom
// kinds, so do not reorder; kFloorDivExpr came last so that the order of the others stayed.
enum class NodeKind : uint8_t { kPoly, kSymbol, kFloorDiv, kMin, kMax, kFloorDivExpr };

// atom^exponent inside a monomial.
struct Factor {
  const ExprNode* atom;
  int32_t exponent;  // >= 1
  friend bool operator==(const Factor& a, const Factor& b) {
    return a.atom == b.atom && a.exponent == b.exponent;
  }
  template <typename H>
  friend H AbslHashValue(H h, const Factor& f) {
    return H::combine(std::move(h), f.atom, f.exponent);
  }
};

// Factors sorted by the canonical atom order, each atom at most once; empty for the constant 1.
using Monomial = std::vector<Factor>;

struct Term {
  int64_t coeff;  // never 0 in a canonical polynomial
  Monomial monomial;
  friend bool operator==(const Term& a, const Term& b) {
    return a.coeff == b.coeff && a.monomial == b.monomial;
  }
  template <typename H>
  friend H AbslHashValue(H h, const Term& t) {
    return H::combine(std::move(h), t.coeff, t.monomial);
  }
};

struct ExprNode {
  NodeKind kind = NodeKind::kPoly;
  // Longest chain of nested nodes below and including this one; capped to keep the recursive
  // walks (ordering, printing, evaluation, parsing back) within a small stack.
  int32_t depth = 1;
  // Hash of the fields below with children by address; used by the interning table only.
  size_t hash = 0;
  // Known to be >= 0 whenever its symbols are (sizes): set once at interning from the children's
  // flags, so that asking costs nothing however much the node shares below it.
  bool non_negative = false;

  // kPoly: constant + sum of terms, terms in canonical order (higher degree first).
  int64_t constant = 0;
  std::vector<Term> terms;

  // kSymbol.
  std::string name;
  // kSymbol: a small id, unique among the symbol nodes alive, that a Binding finds the symbol's
  // value by without hashing its name; an id is reused once its node's InternScope ends, and
  // `serial`, never reused, tells the nodes apart. Not part of the node's value: left out of its
  // hash and equality.
  uint32_t symbol_id = 0;
  uint64_t serial = 0;

  // kFloorDiv: floor(numerator / divisor), divisor >= 2, numerator a non-constant kPoly node whose
  // coefficients and constant lie in [0, divisor) and whose non-constant coefficients have no
  // common factor with the divisor. A term 1*floor(...) inside the numerator is absorbed into
  // this node unless that would overflow.
  const ExprNode* numerator = nullptr;
  int64_t divisor = 0;

  // kMin / kMax: at least two kPoly arguments in canonical order, no two differing by a constant.
  std::vector<const ExprNode*> args;

  // kFloorDivExpr: floor(numerator / divisor_expr) for a divisor that is not a constant (a
  // constant one makes a kFloorDiv). `numerator` is a non-zero kPoly node; `divisor_expr` is a
  // non-constant kPoly node whose first term has a positive coefficient. No monomial but 1
  // divides every term of both, the coefficients and constants of both have no common factor,
  // and long division did not find the divisor to divide the numerator (see FloorDivExpr). nullptr
  // in every other kind, and then left out of the hash, so other nodes hash as they always did.
  const ExprNode* divisor_expr = nullptr;
};

// Structural limits past which results become unknown (std::nullopt). kMaxTerms is public.
inline constexpr int32_t kMaxDegree = 64;  // total degree of one monomial
inline constexpr int32_t kMaxDepth = 64;   // nesting of floor/min/max nodes

// Gives lib/sym code access to Expr's private node constructor.
struct ExprBuilder {
  static Expr FromNode(const ExprNode* node) { return Expr(node); }
};

// Deterministic structural order (never by address): < 0, 0 or > 0. 0 only for the same node.
int CompareAtoms(const ExprNode* a, const ExprNode* b);
int ComparePolys(const ExprNode* a, const ExprNode* b);

// True when `name` prints without quotes: [A-Za-z_][A-Za-z0-9_.:]*.
bool IsIdentifier(std::string_view name);

}  // namespace shapelint::sym

#endif  // SHAPELINT_LIB_SYM_EXPR_NODE_H_
