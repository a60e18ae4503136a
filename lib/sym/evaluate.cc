// Evaluation of expressions under a binding, in 128 bits, memoised on shared atoms.
#include <cstdint>
#include <optional>

#include "absl/container/flat_hash_map.h"
#include "shapelint/sym/eval_work.h"
#include "shapelint/sym/expr.h"
#include "sym/expr_internal.h"
#include "sym/expr_node.h"

namespace shapelint::sym {
namespace {

using EvalMemo = absl::flat_hash_map<const ExprNode*, std::optional<Wide>>;

std::optional<Wide> EvalPoly(const ExprNode* p, const Binding& binding, EvalMemo& memo);

std::optional<Wide> EvalAtom(const ExprNode* a, const Binding& binding, EvalMemo& memo) {
  if (a->kind == NodeKind::kSymbol) {
    std::optional<int64_t> v = BindingAccess::Get(binding, a);
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
    case NodeKind::kFloorDivExpr: {
      // FloorDivInt gives nullopt for a zero divisor (no value) and for the one quotient that
      // does not fit, a minimal value over -1; negative operands follow floor semantics.
      std::optional<Wide> n = EvalPoly(a->numerator, binding, memo);
      std::optional<Wide> d = n ? EvalPoly(a->divisor_expr, binding, memo) : std::nullopt;
      if (d) result = FloorDivInt<Wide>(*n, *d);
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

thread_local EvalWork eval_work;

}  // namespace

EvalWork& ThreadEvalWork() { return eval_work; }
EvalWork EvalWorkSoFar() { return eval_work; }

std::optional<int64_t> Expr::Evaluate(const Binding& binding) const {
  return Evaluator(binding)(*this);
}

std::optional<int64_t> Evaluator::operator()(const Expr& expr) {
  ++eval_work.evaluations;
  std::optional<Wide> v = EvalPoly(expr.node(), binding_, memo_);
  if (!v) return std::nullopt;
  return Narrow(*v);
}

}  // namespace shapelint::sym
