// Interning: the process-wide table, the tables of InternScopes, and the one path by which a
// node comes to exist.
#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <queue>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/hash/hash.h"
#include "absl/synchronization/mutex.h"
#include "shapelint/sym/expr.h"
#include "sym/expr_internal.h"
#include "sym/expr_node.h"

namespace shapelint::sym {
namespace {

struct NodePtrHash {
  size_t operator()(const ExprNode* n) const { return n->hash; }
};

struct NodePtrEq {
  bool operator()(const ExprNode* a, const ExprNode* b) const {
    // Children are interned, so comparing them by address is structural equality.
    return a->kind == b->kind && a->constant == b->constant && a->terms == b->terms &&
           a->name == b->name && a->numerator == b->numerator && a->divisor == b->divisor &&
           a->args == b->args && a->divisor_expr == b->divisor_expr;
  }
};

// Whether `n` is >= 0 for sizes, from its children's flags (they are interned first). A sum
// or product of non-negative parts is non-negative; an even power is whatever its base; a
// floor divides by at least 2 and keeps the numerator's sign; a floor by a symbolic divisor
// needs both parts (where the divisor is 0 it has no value at all); a min needs every argument,
// a max one.
bool NonNegativeFromChildren(const ExprNode& n) {
  auto flag = [](const ExprNode* child) { return child->non_negative; };
  switch (n.kind) {
    case NodeKind::kSymbol:
      return true;
    case NodeKind::kFloorDiv:
      return n.numerator->non_negative;
    case NodeKind::kFloorDivExpr:
      return n.numerator->non_negative && n.divisor_expr->non_negative;
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
  if (candidate.divisor_expr != nullptr) {
    candidate.hash = absl::HashOf(candidate.hash, candidate.divisor_expr);
  }
}

using NodeSet = absl::flat_hash_set<const ExprNode*, NodePtrHash, NodePtrEq>;

// The ids of the symbol nodes alive (ExprNode::symbol_id): small, so that a Binding indexes its
// slots by them in a plain array; those of a scope's nodes are given back when it ends.
class SymbolIds {
 public:
  // Gives the new symbol node `node` its id and serial.
  void Assign(ExprNode& node) {
    absl::MutexLock lock(&mu_);
    node.serial = ++serial_;
    if (free_.empty()) {
      node.symbol_id = next_++;
    } else {
      node.symbol_id = free_.top();
      free_.pop();
    }
  }
  void Release(const std::vector<uint32_t>& ids) {
    absl::MutexLock lock(&mu_);
    for (uint32_t id : ids) free_.push(id);
  }

 private:
  absl::Mutex mu_;
  uint32_t next_ ABSL_GUARDED_BY(mu_) = 0;
  uint64_t serial_ ABSL_GUARDED_BY(mu_) = 0;  // 0 is no node's
  // The smallest first: ids stay as few as the symbols alive at the most, so that a binding of
  // many of them indexes a short array, after a large model's scope has ended too.
  std::priority_queue<uint32_t, std::vector<uint32_t>, std::greater<>> free_ ABSL_GUARDED_BY(mu_);
};

SymbolIds& Ids() {
  static SymbolIds* const kIds = new SymbolIds;
  return *kIds;
}

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
    if (candidate.kind == NodeKind::kSymbol) Ids().Assign(candidate);
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

 private:
  static constexpr int64_t kFirstCachedConstant = -8;
  static constexpr int64_t kLastCachedConstant = 1024;
  std::array<std::atomic<const ExprNode*>, kLastCachedConstant - kFirstCachedConstant + 1>
      constants_{};
  absl::Mutex mu_;
  NodeSet nodes_ ABSL_GUARDED_BY(mu_);
};

GlobalTable& Global() {
  static GlobalTable* const kTable = new GlobalTable;
  return *kTable;
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
  std::vector<uint32_t> symbol_ids;  // of the symbol nodes it owns

  const ExprNode* Own(ExprNode&& node) {
    if (node.kind == NodeKind::kSymbol) {
      Ids().Assign(node);
      symbol_ids.push_back(node.symbol_id);
    }
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

}  // namespace

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

const ExprNode* FindSymbol(std::string_view name) {
  ExprNode candidate;
  candidate.kind = NodeKind::kSymbol;
  candidate.name = std::string(name);
  Prepare(candidate);
  for (const ScopeTable* s = current_scope; s != nullptr; s = s->parent) {
    if (auto it = s->nodes.find(&candidate); it != s->nodes.end()) return *it;
  }
  return Global().Find(candidate);
}

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
  Ids().Release(table_->symbol_ids);
}

size_t InternScope::size() const { return table_->owned; }

size_t InternedNodeCount() {
  size_t count = Global().size();
  for (const ScopeTable* s = current_scope; s != nullptr; s = s->parent) count += s->owned;
  return count;
}

}  // namespace shapelint::sym
