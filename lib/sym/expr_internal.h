// What the parts of lib/sym share beyond the node representation: checked 128-bit arithmetic,
// interning, and the canonical order of monomials. Only lib/sym includes this.
//
// The integer helpers run for every term of every construction and evaluation: they are defined
// here, inline, so that each file that uses them inlines them rather than calling them.
#ifndef SHAPELINT_LIB_SYM_EXPR_INTERNAL_H_
#define SHAPELINT_LIB_SYM_EXPR_INTERNAL_H_

#include <cstdint>
#include <limits>
#include <optional>
#include <string_view>
#include <vector>

#include "shapelint/sym/eval_work.h"
#include "sym/expr_node.h"

namespace shapelint::sym {

// Intermediate results are kept in 128 bits so that the order in which coefficients or values
// are combined cannot turn a representable result into a spurious overflow; only the final value
// has to fit in int64.
using Wide = __int128;

constexpr int64_t kInt64Min = std::numeric_limits<int64_t>::min();
constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();

inline std::optional<int64_t> Narrow(Wide v) {
  if (v < kInt64Min || v > kInt64Max) return std::nullopt;
  return static_cast<int64_t>(v);
}

inline std::optional<Wide> WideAdd(Wide a, Wide b) {
  Wide r;
  if (__builtin_add_overflow(a, b, &r)) return std::nullopt;
  return r;
}

inline std::optional<Wide> WideMul(Wide a, Wide b) {
  Wide r;
  if (__builtin_mul_overflow(a, b, &r)) return std::nullopt;
  return r;
}

inline std::optional<int64_t> CheckedMul(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r)) return std::nullopt;
  return r;
}

// Floor semantics (Python's // and %) for any nonzero divisor. Written for a generic integer type
// so that evaluation can use the wide type.
template <typename T>
std::optional<T> FloorDivInt(T a, T b) {
  if (b == 0) return std::nullopt;
  // min / -1 is the one quotient that overflows (and is undefined behaviour in C++).
  if (b == -1) {
    T r;
    if (__builtin_sub_overflow(T{0}, a, &r)) return std::nullopt;
    return r;
  }
  T q = a / b;
  T r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) --q;
  return q;
}

template <typename T>
std::optional<T> CeilDivInt(T a, T b) {
  if (b == 0) return std::nullopt;
  if (b == -1) {
    T r;
    if (__builtin_sub_overflow(T{0}, a, &r)) return std::nullopt;
    return r;
  }
  T q = a / b;
  T r = a % b;
  if (r != 0 && ((r < 0) == (b < 0))) ++q;
  return q;
}

template <typename T>
std::optional<T> ModInt(T a, T b) {
  if (b == 0) return std::nullopt;
  if (b == -1) return T{0};  // a % -1 is undefined behaviour for the minimum value.
  T r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}

// The counts behind CapHitsSoFar (expr.cc), for lib/sym code outside expr.cc that gives up on a
// result (and counts why) or tries a computation it may abandon (and restores them: a trial that
// fails is no cap the caller should hear of).
CapHits& ThreadCapHits();

// ---------------------------------------------------------------------------------------------
// Interning (intern.cc).

// The node equal to `candidate`, made and owned by the innermost InternScope (or the process-wide
// table outside any scope) when none exists yet.
const ExprNode* Intern(ExprNode candidate);

// The interned polynomial constant + terms; `terms` must be canonical. Small constants come from
// the process-wide cache, inside a scope too.
const ExprNode* InternPolyNode(int64_t constant, std::vector<Term> terms);

// The symbol node named `name` visible on this thread (the innermost scope's, an enclosing
// one's or the process-wide table's), or nullptr when none was made: then no expression holds it.
const ExprNode* FindSymbol(std::string_view name);

// This thread's counts of evaluation work (shapelint/sym/eval_work.h).
EvalWork& ThreadEvalWork();

// The value `binding` gives the symbol node `symbol`: by its id where the binding indexed it, by
// its name otherwise.
struct BindingAccess {
  static std::optional<int64_t> Get(const Binding& binding, const ExprNode* symbol) {
    if (symbol->symbol_id < binding.by_id_.size()) {
      const Binding::ById& at = binding.by_id_[symbol->symbol_id];
      if (at.serial == symbol->serial) return binding.GetAt(at.slot);
    }
    ++ThreadEvalWork().lookups_by_name;
    return binding.Get(symbol->name);
  }
};

// ---------------------------------------------------------------------------------------------
// Canonical order (order.cc); CompareAtoms and ComparePolys are in expr_node.h.

inline int64_t Degree(const Monomial& m) {
  int64_t degree = 0;
  for (const Factor& f : m) degree += f.exponent;
  return degree;
}

// Higher total degree first, then factor by factor: < 0, 0 or > 0.
int CompareMonomials(const Monomial& a, const Monomial& b);

}  // namespace shapelint::sym

#endif  // SHAPELINT_LIB_SYM_EXPR_INTERNAL_H_
