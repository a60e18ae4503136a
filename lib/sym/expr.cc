#include "shapelint/sym/expr.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <memory>
#include <numeric>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/hash/hash.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/synchronization/mutex.h"
#include "sym/expr_node.h"

namespace shapelint::sym {
namespace {

// Intermediate results are kept in 128 bits so that the order in which coefficients or values
// are combined cannot turn a representable result into a spurious overflow; only the final value
// has to fit in int64.
using Wide = __int128;

constexpr int64_t kInt64Min = std::numeric_limits<int64_t>::min();
constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();

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

std::optional<int64_t> Narrow(Wide v) {
  if (v < kInt64Min || v > kInt64Max) return std::nullopt;
  return static_cast<int64_t>(v);
}

std::optional<Wide> WideAdd(Wide a, Wide b) {
  Wide r;
  if (__builtin_add_overflow(a, b, &r)) return std::nullopt;
  return r;
}

std::optional<Wide> WideMul(Wide a, Wide b) {
  Wide r;
  if (__builtin_mul_overflow(a, b, &r)) return std::nullopt;
  return r;
}

std::optional<int64_t> CheckedMul(int64_t a, int64_t b) {
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

int Sign(int64_t a, int64_t b) { return a < b ? -1 : (a > b ? 1 : 0); }

// ---------------------------------------------------------------------------------------------
// Interning.

struct NodePtrHash {
  size_t operator()(const ExprNode* n) const { return n->hash; }
};

struct NodePtrEq {
  bool operator()(const ExprNode* a, const ExprNode* b) const {
    // Children are interned, so comparing them by address is structural equality.
    return a->kind == b->kind && a->constant == b->constant && a->terms == b->terms &&
           a->name == b->name && a->numerator == b->numerator && a->divisor == b->divisor &&
           a->args == b->args;
  }
};

// Whether `n` is >= 0 for sizes, from its children's flags (they are interned first). A sum
// or product of non-negative parts is non-negative; an even power is whatever its base; a
// floor divides by at least 2 and keeps the numerator's sign; a min needs every argument, a
// max one.
bool NonNegativeFromChildren(const ExprNode& n) {
  auto flag = [](const ExprNode* child) { return child->non_negative; };
  switch (n.kind) {
    case NodeKind::kSymbol:
      return true;
    case NodeKind::kFloorDiv:
      return n.numerator->non_negative;
    case NodeKind::kMin:
      return std::all_of(n.args.begin(), n.args.end(), flag);
    case NodeKind::kMax:
      return std::any_of(n.args.begin(), n.args.end(), flag);
    case NodeKind::kPoly:
      if (n.constant < 0) return false;
      for (const Term& t : n.terms) {
        if (t.coeff < 0) return false;
        for (const Factor& f : t.monomial) {
          if (f.exponent % 2 != 0 && !f.atom->non_negative) return false;
        }
      }
      return true;
  }
  return false;
}

// Sets the fields that interning derives from the others: the flag and the hash.
void Prepare(ExprNode& candidate) {
  candidate.non_negative = NonNegativeFromChildren(candidate);
  candidate.hash =
      absl::HashOf(static_cast<int>(candidate.kind), candidate.constant, candidate.terms,
                   candidate.name, candidate.numerator, candidate.divisor, candidate.args);
}

using NodeSet = absl::flat_hash_set<const ExprNode*, NodePtrHash, NodePtrEq>;

// The process-wide table: nodes built outside any InternScope, and the small constants (0
// among them). Never freed: such Exprs are plain pointers that may be held anywhere for the
// process lifetime.
class GlobalTable {
 public:
  // Small constants (dims, axes, indices) are most of the nodes a model asks for: each is made
  // the first time it is asked for, then found without a lookup or a lock. nullptr outside the
  // range. Every constant poly in the range comes from here (InternPolyNode), so it needs no
  // place in the table. Made on first use: making all of them up front cost every process a
  // million instructions, a twentieth of a run on a small model.
  const ExprNode* SmallConstant(int64_t v) {
    if (v < kFirstCachedConstant || v > kLastCachedConstant) return nullptr;
    std::atomic<const ExprNode*>& slot = constants_[v - kFirstCachedConstant];
    const ExprNode* node = slot.load(std::memory_order_acquire);
    if (node != nullptr) return node;
    ExprNode constant;
    constant.depth = 0;
    constant.constant = v;
    Prepare(constant);
    auto* made = new ExprNode(std::move(constant));
    // Threads that make the same constant at once keep the first one made: one node per value.
    if (slot.compare_exchange_strong(node, made, std::memory_order_acq_rel)) return made;
    delete made;
    return node;
  }

  // `candidate` is prepared.
  const ExprNode* Intern(ExprNode candidate) {
    absl::MutexLock lock(&mu_);
    auto it = nodes_.find(&candidate);
    if (it != nodes_.end()) return *it;
    const ExprNode* node = new ExprNode(std::move(candidate));
    nodes_.insert(node);
    return node;
  }

  // The node equal to the prepared `candidate`, or nullptr. Scopes on several threads may look up
  // at the same time.
  const ExprNode* Find(const ExprNode& candidate) {
    absl::ReaderMutexLock lock(&mu_);
    auto it = nodes_.find(&candidate);
    return it == nodes_.end() ? nullptr : *it;
  }

  size_t size() {
    absl::ReaderMutexLock lock(&mu_);
    return nodes_.size();
  }

  const ExprNode* zero() { return SmallConstant(0); }

 private:
  static constexpr int64_t kFirstCachedConstant = -8;
  static constexpr int64_t kLastCachedConstant = 1024;
  std::array<std::atomic<const ExprNode*>, kLastCachedConstant - kFirstCachedConstant + 1>
      constants_{};
  absl::Mutex mu_;
  NodeSet nodes_ ABSL_GUARDED_BY(mu_);
};

GlobalTable& Global() {
  static GlobalTable* const table = new GlobalTable;
  return *table;
}

}  // namespace

// The nodes of one InternScope. Used by its thread only, so without a lock.
struct ScopeTable {
  ScopeTable* parent = nullptr;  // the enclosing scope on this thread, if any
  // Every node this scope has handed out: those it owns, and those found in an enclosing scope
  // or the process-wide table (kept so that finding them again takes no lock).
  NodeSet nodes;
  // The nodes it owns, in chunks whose capacity is reserved up front so that addresses are
  // stable: one allocation per chunk, not per node, and all freed together.
  std::vector<std::vector<ExprNode>> chunks;
  size_t owned = 0;

  const ExprNode* Own(ExprNode&& node) {
    if (chunks.empty() || chunks.back().size() == chunks.back().capacity()) {
      size_t capacity = chunks.empty() ? 64 : std::min<size_t>(chunks.back().capacity() * 2, 4096);
      chunks.emplace_back().reserve(capacity);
    }
    ++owned;
    return &chunks.back().emplace_back(std::move(node));
  }
};

namespace {

// The innermost InternScope alive on this thread, or nullptr.
thread_local ScopeTable* current_scope = nullptr;

const ExprNode* Intern(ExprNode candidate) {
  Prepare(candidate);
  ScopeTable* const scope = current_scope;
  if (scope == nullptr) return Global().Intern(std::move(candidate));
  if (auto it = scope->nodes.find(&candidate); it != scope->nodes.end()) return *it;
  // An equal node that already exists elsewhere must be used, for pointer equality to hold.
  const ExprNode* node = nullptr;
  for (const ScopeTable* s = scope->parent; s != nullptr && node == nullptr; s = s->parent) {
    if (auto it = s->nodes.find(&candidate); it != s->nodes.end()) node = *it;
  }
  if (node == nullptr) node = Global().Find(candidate);
  if (node == nullptr) node = scope->Own(std::move(candidate));
  scope->nodes.insert(node);
  return node;
}

}  // namespace

InternScope::InternScope() : table_(std::make_unique<ScopeTable>()) {
  table_->parent = current_scope;
  current_scope = table_.get();
}

InternScope::~InternScope() {
  if (current_scope != table_.get()) {
    // Its nodes may be the children of an inner scope's, or in use on another thread.
    std::fputs("shapelint: sym::InternScope ended out of order or on another thread\n", stderr);
    std::abort();
  }
  current_scope = table_->parent;
}

size_t InternScope::size() const { return table_->owned; }

size_t InternedNodeCount() {
  size_t count = Global().size();
  for (const ScopeTable* s = current_scope; s != nullptr; s = s->parent) count += s->owned;
  return count;
}

namespace {

// ---------------------------------------------------------------------------------------------
// Canonical order.

int64_t Degree(const Monomial& m) {
  int64_t degree = 0;
  for (const Factor& f : m) degree += f.exponent;
  return degree;
}

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

int CompareTerms(const Term& a, const Term& b) {
  if (int c = CompareMonomials(a.monomial, b.monomial); c != 0) return c;
  return Sign(a.coeff, b.coeff);
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

const ExprNode* InternPolyNode(int64_t constant, std::vector<Term> terms) {
  if (terms.empty()) {
    if (const ExprNode* cached = Global().SmallConstant(constant)) return cached;
  }
  ExprNode node;
  node.kind = NodeKind::kPoly;
  node.constant = constant;
  node.depth = 0;
  for (const Term& t : terms) {
    for (const Factor& f : t.monomial) node.depth = std::max(node.depth, f.atom->depth);
  }
  node.terms = std::move(terms);
  return Intern(std::move(node));
}

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

// ---------------------------------------------------------------------------------------------
// Evaluation.

using EvalMemo = absl::flat_hash_map<const ExprNode*, std::optional<Wide>>;

std::optional<Wide> EvalPoly(const ExprNode* p, const Binding& binding, EvalMemo& memo);

std::optional<Wide> EvalAtom(const ExprNode* a, const Binding& binding, EvalMemo& memo) {
  if (a->kind == NodeKind::kSymbol) {
    std::optional<int64_t> v = binding.Get(a->name);
    if (!v) return std::nullopt;
    return static_cast<Wide>(*v);
  }
  // Memoised because interned nodes are shared: a DAG can be exponentially larger as a tree.
  if (auto it = memo.find(a); it != memo.end()) return it->second;
  std::optional<Wide> result;
  switch (a->kind) {
    case NodeKind::kFloorDiv: {
      std::optional<Wide> n = EvalPoly(a->numerator, binding, memo);
      if (n) result = FloorDivInt<Wide>(*n, a->divisor);
      break;
    }
    case NodeKind::kMin:
    case NodeKind::kMax: {
      for (const ExprNode* arg : a->args) {
        std::optional<Wide> v = EvalPoly(arg, binding, memo);
        if (!v) {
          result = std::nullopt;
          break;
        }
        if (!result || (a->kind == NodeKind::kMin ? *v < *result : *v > *result)) result = v;
      }
      break;
    }
    default:
      break;
  }
  memo.emplace(a, result);
  return result;
}

std::optional<Wide> EvalPoly(const ExprNode* p, const Binding& binding, EvalMemo& memo) {
  Wide sum = p->constant;
  for (const Term& t : p->terms) {
    Wide value = t.coeff;
    for (const Factor& f : t.monomial) {
      std::optional<Wide> base = EvalAtom(f.atom, binding, memo);
      if (!base) return std::nullopt;
      for (int32_t i = 0; i < f.exponent; ++i) {
        std::optional<Wide> v = WideMul(value, *base);
        if (!v) return std::nullopt;
        value = *v;
      }
    }
    std::optional<Wide> s = WideAdd(sum, value);
    if (!s) return std::nullopt;
    sum = *s;
  }
  return sum;
}

// ---------------------------------------------------------------------------------------------
// Printing.

void AppendPoly(const ExprNode* p, size_t limit, std::string* out);

void AppendName(std::string_view name, std::string* out) {
  if (IsIdentifier(name)) {
    out->append(name);
    return;
  }
  out->push_back('"');
  for (char c : name) {
    unsigned char u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out->push_back('\\');
      out->push_back(c);
    } else if (u < 0x20 || u == 0x7f) {
      absl::StrAppendFormat(out, "\\x%02x", u);
    } else {
      out->push_back(c);
    }
  }
  out->push_back('"');
}

void AppendAtom(const ExprNode* a, size_t limit, std::string* out) {
  // Past the limit the text is cut anyway: stop, so that a deeply shared DAG costs no more.
  if (out->size() > limit) return;
  switch (a->kind) {
    case NodeKind::kSymbol:
      AppendName(a->name, out);
      return;
    case NodeKind::kFloorDiv: {
      // A lone monomial needs no parentheses: "floor(s / 2)", "floor(2*s / 3)".
      bool parens = a->numerator->terms.size() + (a->numerator->constant != 0 ? 1 : 0) > 1;
      out->append(parens ? "floor((" : "floor(");
      AppendPoly(a->numerator, limit, out);
      absl::StrAppend(out, parens ? ") / " : " / ", a->divisor, ")");
      return;
    }
    case NodeKind::kMin:
    case NodeKind::kMax: {
      out->append(a->kind == NodeKind::kMin ? "min(" : "max(");
      for (size_t i = 0; i < a->args.size(); ++i) {
        if (i > 0) out->append(", ");
        AppendPoly(a->args[i], limit, out);
      }
      out->push_back(')');
      return;
    }
    case NodeKind::kPoly:
      break;
  }
}

void AppendMonomial(const Monomial& m, size_t limit, std::string* out) {
  for (size_t i = 0; i < m.size(); ++i) {
    if (i > 0) out->push_back('*');
    AppendAtom(m[i].atom, limit, out);
    if (m[i].exponent > 1) absl::StrAppend(out, "^", m[i].exponent);
  }
}

// Appends one summand. `first` decides between a leading "-" and a separating " + " / " - ".
// `monomial` is null for the constant term.
void AppendSummand(int64_t coeff, const Monomial* monomial, bool first, size_t limit,
                   std::string* out) {
  bool negative = coeff < 0;
  if (first) {
    if (negative) out->push_back('-');
  } else {
    out->append(negative ? " - " : " + ");
  }
  uint64_t magnitude = negative ? 0 - static_cast<uint64_t>(coeff) : static_cast<uint64_t>(coeff);
  if (coeff == kInt64Min) {
    // 2^63 is not an int64 literal, so it is written as 9223372036854775807 + 1, the way C
    // spells INT64_MIN; Parse reads it back without an out-of-range literal.
    if (monomial == nullptr) {
      out->append("9223372036854775807 - 1");
    } else {
      out->append("9223372036854775807*");
      AppendMonomial(*monomial, limit, out);
      out->append(" - ");
      AppendMonomial(*monomial, limit, out);
    }
    return;
  }
  if (monomial == nullptr) {
    absl::StrAppend(out, magnitude);
    return;
  }
  if (magnitude != 1) absl::StrAppend(out, magnitude, "*");
  AppendMonomial(*monomial, limit, out);
}

void AppendPoly(const ExprNode* p, size_t limit, std::string* out) {
  bool first = true;
  for (const Term& t : p->terms) {
    if (out->size() > limit) return;
    AppendSummand(t.coeff, &t.monomial, first, limit, out);
    first = false;
  }
  if (p->constant != 0 || first) AppendSummand(p->constant, nullptr, first, limit, out);
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
    case NodeKind::kMin:
    case NodeKind::kMax:
      for (const ExprNode* arg : n->args) CollectSymbols(arg, seen, names);
      break;
  }
}

}  // namespace

// -----------------------------------------------------------------------------------------------
// Shared with parse.cc and tests.

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

bool IsIdentifier(std::string_view name) {
  if (name.empty()) return false;
  auto is_alpha = [](char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
  };
  if (!is_alpha(name[0])) return false;
  for (char c : name.substr(1)) {
    if (!is_alpha(c) && !(c >= '0' && c <= '9') && c != '.' && c != ':') return false;
  }
  return true;
}

// -----------------------------------------------------------------------------------------------
// Expr.

Expr::Expr() {
  // Cached: default construction is frequent and should not take the table lock. Always the
  // process-wide node, also inside a scope (which finds it there when it builds a 0).
  static const ExprNode* const zero = Global().zero();
  node_ = zero;
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

std::optional<int64_t> Expr::Evaluate(const Binding& binding) const {
  return Evaluator(binding)(*this);
}

std::optional<int64_t> Evaluator::operator()(const Expr& expr) {
  std::optional<Wide> v = EvalPoly(expr.node(), binding_, memo_);
  if (!v) return std::nullopt;
  return Narrow(*v);
}

bool Expr::IsPolynomial() const {
  for (const Term& t : node_->terms) {
    for (const Factor& f : t.monomial) {
      if (f.atom->kind != NodeKind::kSymbol) return false;
    }
  }
  return true;
}

std::string Expr::ToString() const {
  std::string out;
  AppendPoly(node_, SIZE_MAX, &out);
  return out;
}

std::string Expr::ToString(size_t max_chars) const {
  std::string out;
  AppendPoly(node_, max_chars, &out);
  if (out.size() > max_chars) {
    out.resize(max_chars);
    out.append("...");
  }
  return out;
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

bool KnownNonNegative(const Expr& e) { return e.node()->non_negative; }

}  // namespace shapelint::sym
