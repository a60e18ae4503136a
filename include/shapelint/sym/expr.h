// Symbolic integer expressions over tensor dimensions.
//
// An Expr is an immutable, interned expression in canonical form: an integer polynomial whose
// atoms are symbols and the non-polynomial nodes floor(e / k) (k a positive constant), min, max
// and floor(e / d) with d a non-constant expression (FloorDivExpr: Reshape's -1 over a product
// of dims that does not divide the element count as a polynomial). Ceiling division and modulo
// are rewritten into floor division when built:
//   ceil(e / k) == floor((e + k - 1) / k)      e mod k == e - k * floor(e / k)
// Division and modulo follow floor semantics (Python's // and %), for negative values too.
// Symbols stand for sizes (a dim, a count, a trip count), never negative, and canonical forms
// use it: an argument of min or max that another provably decides for every size is dropped
// (min(-L, L) is -L, max(2*L, L, 0) is 2*L). Bound a symbol to a negative value and min and
// max may not be what the formula says.
//
// Because construction canonicalises and interns, two Exprs are equal exactly when their nodes
// are the same pointer; equality and hashing are O(1).
//
// Where nodes live: outside any InternScope, in a process-wide table that is never freed (an
// Expr stays valid for the life of the process). Inside an InternScope, new nodes go to the
// scope's table and are freed when the scope ends; see InternScope for the lifetime rules.
//
// "Unknown" is not part of the algebra: a dimension that is not known is std::nullopt (see
// MaybeExpr). Every operation that could overflow int64 or exceed the size cap returns
// std::nullopt instead of a wrong or huge expression.
#ifndef SHAPELINT_SYM_EXPR_H_
#define SHAPELINT_SYM_EXPR_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace shapelint::sym {

struct ExprNode;    // Interned: owned by the process-wide table or by an InternScope.
struct ScopeTable;  // The nodes of one InternScope.

// Makes the expressions built on this thread while it is alive its own: they are interned in a
// table the scope owns, and freed when it ends. A long-lived process (the Python module, a
// server, a fuzzer) opens one around each unit of work so that memory stays bounded; lint::Lint,
// lint::Probe and the command line do so for every model.
//
//   {
//     sym::InternScope scope;
//     sym::Expr e = *sym::Add(sym::Expr::Symbol("n"), sym::Expr::Constant(1));
//     std::string text = e.ToString();  // plain data outlives the scope
//   }                                   // e's node is freed here: e must not be used any more
//
// Lifetime rules:
//  - An Expr built while a scope is alive may point into that scope's table (or an enclosing
//    scope's): it must not be used, not even compared or hashed, after that scope ends. Copy out
//    what must outlive it as plain data (ToString, Evaluate, AsConstant, ...). This holds for
//    everything that holds an Expr, such as infer::Inference and infer::TensorFact.
//  - Exprs built before the scope opened (outside any scope, or in an enclosing scope) stay
//    valid inside it and after it, and pointer equality stays exact across the boundary: a node
//    equal to one that already exists in an enclosing scope or the process-wide table is that
//    node, not a copy; only a node that exists nowhere yet is added to the innermost scope.
//  - Scopes nest: a scope opened while another is alive on the same thread is the innermost one
//    until it ends. Scopes must end in the reverse order of opening, on the thread that opened
//    them (an InternScope is neither copyable nor movable; keep it on the stack). Ending them out
//    of order aborts.
//  - A scope's Exprs belong to its thread: do not hand them to another thread. Other threads may
//    use the process-wide table, and scopes of their own, concurrently: a scope reads the
//    process-wide table under a shared lock and its own tables without one. A node added to the
//    process-wide table by another thread after the scope added an equal node of its own is a
//    different node; it only meets the scope's node if an Expr is handed across threads, which
//    the rule above rules out.
//  - Do not initialize a static (or otherwise long-lived) Expr inside a scope: it would dangle
//    once the scope ends. Expr() (the constant 0) is always the process-wide node.
class InternScope {
 public:
  InternScope();
  ~InternScope();
  InternScope(const InternScope&) = delete;
  InternScope& operator=(const InternScope&) = delete;

  // Nodes this scope owns (those it had to create), not counting enclosing scopes.
  size_t size() const;

 private:
  std::unique_ptr<ScopeTable> table_;
};

// Interned nodes reachable from this thread: those of the process-wide table plus those owned by
// every InternScope alive on this thread. For tests and diagnostics: it takes the table's lock.
size_t InternedNodeCount();

// Values for symbols, by name. Symbols without a value make Evaluate return nullopt.
//
// Each name has a slot, kept for the binding's life (Erase unbinds it): a solver that sets the
// same symbols over and over takes their slots once (SlotOf) and sets by slot, without hashing
// a name each time. A large binding also finds the slot of a symbol an expression holds by the
// symbol's interned id, not by its name: evaluating a model of 40,000 dims under one binding
// hashed and compared 40,000 names per sample, and the name table's misses in the caches grew
// the cost faster than the model.
class Binding {
 public:
  using Slot = uint32_t;

  void Set(std::string_view symbol, int64_t value) { SetAt(SlotOf(symbol), value); }
  std::optional<int64_t> Get(std::string_view symbol) const {
    // Heterogeneous lookup without a copy; absl's string_view may differ from std's.
    auto it = slot_of_.find(absl::string_view(symbol.data(), symbol.size()));
    if (it == slot_of_.end()) return std::nullopt;
    return GetAt(it->second);
  }
  void Erase(std::string_view symbol) {
    auto it = slot_of_.find(absl::string_view(symbol.data(), symbol.size()));
    if (it != slot_of_.end()) slots_[it->second].bound = false;
  }
  // The symbols with a value, and their values: a map built on each call. Code that only
  // reads them (per node, per finding) uses ForEach or empty(), which build nothing.
  absl::flat_hash_map<std::string, int64_t> values() const;
  // f(name, value) for each symbol with a value, in slot order.
  template <typename F>
  void ForEach(F&& f) const {
    for (Slot s = 0; s < slots_.size(); ++s) {
      if (slots_[s].bound) f(std::string_view(names_[s]), slots_[s].value);
    }
  }
  // True when no symbol has a value.
  bool empty() const {
    for (const Value& v : slots_) {
      if (v.bound) return false;
    }
    return true;
  }

  // The slot of `symbol`, made (without a value) when it has none yet.
  Slot SlotOf(std::string_view symbol);
  void SetAt(Slot slot, int64_t value) { slots_[slot] = {value, true}; }
  std::optional<int64_t> GetAt(Slot slot) const {
    if (!slots_[slot].bound) return std::nullopt;
    return slots_[slot].value;
  }

 private:
  friend struct BindingAccess;  // lib/sym: the lookup by interned symbol
  struct Value {
    int64_t value = 0;
    bool bound = false;
  };
  // Where the symbol node with a given id finds its slot; `serial` tells that node from a later
  // one that reuses its id after its InternScope ended (0: none).
  struct ById {
    uint64_t serial = 0;
    Slot slot = 0;
  };
  void IndexById(Slot slot);

  absl::flat_hash_map<std::string, Slot> slot_of_;
  std::vector<std::string> names_;  // by slot
  std::vector<Value> slots_;
  std::vector<ById> by_id_;      // empty while the binding is small; see IndexById
  std::vector<Slot> unindexed_;  // the slots IndexById could not index yet
};

class Expr {
 public:
  // The constant 0.
  Expr();
  static Expr Constant(int64_t value);
  // A symbol stands for an unknown integer. Symbols with the same name are the same symbol.
  static Expr Symbol(std::string_view name);

  std::optional<int64_t> AsConstant() const;
  bool IsConstant() const { return AsConstant().has_value(); }
  // The name when this expression is a single symbol (coefficient 1, no constant term).
  std::optional<std::string_view> AsSymbol() const;

  // True for a polynomial in symbols alone: no floor, ceil, mod, min or max inside.
  bool IsPolynomial() const;

  // Names of all symbols in the expression, sorted and without duplicates.
  std::vector<std::string> Symbols() const;

  // The value under `binding`; nullopt when a symbol is unbound or int64 overflows. To evaluate
  // many expressions under one binding, an Evaluator shares the work on common parts.
  std::optional<int64_t> Evaluate(const Binding& binding) const;

  // Canonical, readable form, e.g. "floor((height - 3) / 3) + 1" or "past_seq + seq".
  // Parse(ToString()) gives back the same Expr.
  std::string ToString() const;
  // The same, cut to `max_chars` and marked with "..." when longer; its cost is bounded by
  // the limit, not by the expression (which shares subexpressions and can print very long).
  std::string ToString(size_t max_chars) const;

  size_t Hash() const;
  const ExprNode* node() const { return node_; }

  friend bool operator==(Expr a, Expr b) { return a.node_ == b.node_; }
  friend bool operator!=(Expr a, Expr b) { return a.node_ != b.node_; }
  template <typename H>
  friend H AbslHashValue(H h, Expr e) {
    return H::combine(std::move(h), e.node_);
  }

 private:
  explicit Expr(const ExprNode* node) : node_(node) {}
  friend struct ExprBuilder;
  const ExprNode* node_;
};

// A dimension or element value that may be unknown.
using MaybeExpr = std::optional<Expr>;

// Arithmetic. Any unknown operand gives unknown; so does overflow of a coefficient or an
// expression larger than kMaxTerms terms.
MaybeExpr Add(const MaybeExpr& a, const MaybeExpr& b);
MaybeExpr Sub(const MaybeExpr& a, const MaybeExpr& b);
MaybeExpr Mul(const MaybeExpr& a, const MaybeExpr& b);
MaybeExpr Neg(const MaybeExpr& a);
// floor(a / b), ceil(a / b) and a mod b (floor semantics). When b is not a positive constant,
// the result is known only if both operands are constants (then b == 0 gives unknown).
MaybeExpr FloorDiv(const MaybeExpr& a, const MaybeExpr& b);
MaybeExpr CeilDiv(const MaybeExpr& a, const MaybeExpr& b);
MaybeExpr Mod(const MaybeExpr& a, const MaybeExpr& b);
MaybeExpr Min(const MaybeExpr& a, const MaybeExpr& b);
MaybeExpr Max(const MaybeExpr& a, const MaybeExpr& b);
// a / b when b divides a exactly as a polynomial (b a single term, e.g. 2*batch), else unknown.
// Used where the quotient is known to be exact, such as Reshape's -1.
MaybeExpr ExactDiv(const MaybeExpr& a, const MaybeExpr& b);
// floor(a / b) for b one term c*m (c > 0): a / m exactly, then floor division by c, e.g.
// (n*h*w) / (2*h) = floor(n*w / 2). Unknown when m does not divide a as a polynomial. Where the
// caller knows b divides a (Reshape's -1 wherever the graph runs), this is the exact quotient.
MaybeExpr FloorDivByTerm(const MaybeExpr& a, const MaybeExpr& b);
// floor(a / b) for any divisor, a symbolic one too, with floor semantics. A constant b gives what
// FloorDiv gives (a negative one as floor(-a / -b)). Otherwise what divides every term of both
// is cancelled first, a monomial and an integer ((k0*k1*k2) / (8*q0*k1) is
// floor(k0*k2 / (8*q0))), a b that divides a as a polynomial gives the exact quotient, and what
// is left is the atom floor(a / b), which has no value (Evaluate gives nullopt) where b is 0.
// The cancellations assume b != 0, as sympy's FloorDiv does: floor(0 / b) is 0 and
// floor(b*x / b) is x, also where b is 0. For Reshape's -1, whose division by a computed size is
// exact wherever the graph runs, and for Parse; FloorDiv itself stays unknown for such divisors.
MaybeExpr FloorDivExpr(const MaybeExpr& a, const MaybeExpr& b);

// True when `e` is >= 0 for every binding of its symbols to non-negative values (tensor dims):
// non-negative coefficients and constant over atoms that are themselves non-negative, or that
// once a floor term is bounded by its numerator (k*floor(n / k) >= n - (k - 1)), as the pad to a
// multiple -h + 2*floor((h + 1) / 2) is. False means "not proven", not "negative".
bool KnownNonNegative(const Expr& e);

// True when `e` is <= 0 at every binding of its symbols to sizes >= 1: -e is KnownNonNegative,
// or a linear form with non-negative coefficients whose value at all-ones is not negative
// (1 - s is never positive; 1 - s - t is not shown). False means "not proven".
bool NeverPositive(const Expr& e);

// A polynomial of degree at most one in its symbols: constant + sum of coefficient * symbol.
struct LinearForm {
  int64_t constant = 0;
  // Non-zero coefficients by symbol name, sorted by name, each symbol once.
  std::vector<std::pair<std::string, int64_t>> terms;
};
// `e` as a linear form when it is one: every term a single symbol to the first power (no
// products or powers of symbols, no floor, min or max). nullopt otherwise.
std::optional<LinearForm> AsLinear(const Expr& e);

// An expression taken apart, for code that writes it out in another language (a fix-it that
// computes a size with ONNX ops): constant + sum of coeff * product of atom^exponent, atoms
// being symbols, floor(numerator / divisor) with a constant or a symbolic divisor, min(args)
// and max(args).
struct AtomParts {
  enum class Kind { kSymbol, kFloorDiv, kMin, kMax, kFloorDivExpr };
  Kind kind = Kind::kSymbol;
  std::string symbol;  // kSymbol
  // kFloorDiv: the numerator; kFloorDivExpr: the numerator and the divisor (never a constant);
  // kMin, kMax: the arguments.
  std::vector<Expr> args;
  int64_t divisor = 0;  // kFloorDiv, >= 2
};
struct TermParts {
  int64_t coeff = 0;
  std::vector<std::pair<AtomParts, int32_t>> factors;  // atom, exponent >= 1; canonical order
};
struct PolynomialParts {
  int64_t constant = 0;
  std::vector<TermParts> terms;  // canonical order
};
PolynomialParts Decompose(const Expr& e);

// Cap on the number of terms of a polynomial (and arguments of min/max); past it, unknown.
// (Monomial degree and the nesting of floor/min/max are capped at 64 as well.)
inline constexpr size_t kMaxTerms = 64;

// How often arithmetic on this thread gave up on a result it could not hold: a coefficient or
// constant past int64, or an expression past the caps above. Those results are unknown like
// any other; the counts let a caller say why (the engine notes the node where it happened).
struct CapHits {
  int64_t overflow = 0;   // int64 overflow
  int64_t too_large = 0;  // kMaxTerms, degree or nesting cap
  friend bool operator==(const CapHits& a, const CapHits& b) {
    return a.overflow == b.overflow && a.too_large == b.too_large;
  }
};
CapHits CapHitsSoFar();

// Evaluates expressions under one binding, remembering the value of every floor, min and max
// it meets: the requirements of a graph share most of their subexpressions, so evaluating all of
// them at one size costs little more than evaluating the largest. The binding must outlive it.
class Evaluator {
 public:
  explicit Evaluator(const Binding& binding) : binding_(binding) {}
  // Same as expr.Evaluate(binding).
  std::optional<int64_t> operator()(const Expr& expr);

 private:
  __extension__ using Wide = __int128;  // intermediate values, checked before narrowing
  const Binding& binding_;
  absl::flat_hash_map<const ExprNode*, std::optional<Wide>> memo_;
};

// Parses the ToString() syntax and what exporters write into dim_param:
//   integers, symbols ([A-Za-z_][A-Za-z0-9_.:]* or "double-quoted" for any other name),
//   + - * ( ), a / k and a // k (floor division), a % k, floor(a / k), ceil(a / k),
//   min(a, b, ...), max(a, b, ...), mod(a, k); sympy's and torch's spellings of them (Min,
//   Max, Mod, ceiling, FloorDiv, CleanDiv, PythonMod, FloorToInt, CeilToInt, TruncToInt).
// A symbolic divisor (FloorDivExpr) is read in a // d, FloorDiv(a, d), CleanDiv(a, d) and as
// the whole argument of floor(a / d) or ceil(a / d), never in a bare a / d: a dim_param such
// as "N/A" is a name, not a division.
absl::StatusOr<Expr> Parse(std::string_view text);

// How to read a dim_param: its expression when it parses, otherwise one symbol with the whole
// string as its name (a dim_param is only a name to ONNX).
Expr FromDimParam(std::string_view dim_param);

}  // namespace shapelint::sym

#endif  // SHAPELINT_SYM_EXPR_H_
