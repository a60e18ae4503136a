#include "lint/requirements.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace shapelint::lint {

using infer::Relation;
using infer::Requirement;

bool IsUnitRelation(const Requirement& requirement) {
  if (requirement.relation != Relation::kEqual &&
      requirement.relation != Relation::kBroadcastable) {
    return false;
  }
  const sym::MaybeExpr d = sym::Sub(requirement.lhs, requirement.rhs);
  if (!d) return false;
  const std::optional<sym::LinearForm> form = sym::AsLinear(*d);
  if (!form || form->constant != 0 || form->terms.size() < 2) return false;
  return std::all_of(form->terms.begin(), form->terms.end(),
                     [](const auto& term) { return term.second == 1 || term.second == -1; });
}

bool IsHint(const Requirement& r) {
  return r.kind == infer::RequirementKind::kDeclaredShape && !r.interface;
}

bool IsBakedDeclaration(const Requirement& r) {
  return r.kind == infer::RequirementKind::kDeclaredShape && r.interface && r.rhs.IsConstant() &&
         !r.lhs.IsConstant() && r.lhs.IsPolynomial();
}

std::vector<std::string> SymbolsOf(const Requirement& r) {
  std::vector<std::string> s = r.lhs.Symbols();
  for (auto& x : r.rhs.Symbols()) s.push_back(std::move(x));
  std::sort(s.begin(), s.end());
  s.erase(std::unique(s.begin(), s.end()), s.end());
  return s;
}

std::optional<bool> HoldsUnder(const Requirement& r, sym::Evaluator& evaluate) {
  auto l = evaluate(r.lhs);
  auto rr = evaluate(r.rhs);
  if (!l || !rr) return std::nullopt;
  return infer::Holds(r.relation, *l, *rr);
}

std::optional<bool> HoldsUnder(const Requirement& r, const sym::Binding& b) {
  sym::Evaluator evaluate(b);
  return HoldsUnder(r, evaluate);
}

bool FailingNear(const Requirement& r, const std::vector<std::string>& symbols,
                 const sym::Binding& witness, sym::Binding& moved, int64_t nearby,
                 absl::FunctionRef<bool(const sym::Binding&)> accept) {
  auto restore = [&moved](const std::string& s, std::optional<int64_t> was) {
    if (was) {
      moved.Set(s, *was);
    } else {
      moved.Erase(s);
    }
  };
  for (const std::string& s : symbols) {
    const int64_t w = witness.Get(s).value_or(1);
    std::vector<int64_t> sizes;
    for (int64_t step = 1; step <= nearby; ++step) sizes.insert(sizes.end(), {w + step, w - step});
    for (int64_t step : {8, 16, 32}) sizes.insert(sizes.end(), {w + step, w - step});
    sizes.insert(sizes.end(), {2 * w, w / 2});
    const std::optional<int64_t> was = moved.Get(s);
    for (int64_t size : sizes) {
      if (size < 1) continue;
      moved.Set(s, size);
      const std::optional<bool> holds = HoldsUnder(r, moved);
      if (holds && !*holds && accept(moved)) {
        restore(s, was);
        return true;
      }
    }
    restore(s, was);
  }
  return false;
}

std::string EqualityText(const Requirement& requirement) {
  return absl::StrCat(requirement.lhs.ToString(kMaxExprText),
                      " == ", requirement.rhs.ToString(kMaxExprText));
}

std::string RequirementText(const Requirement& r) {
  const std::string lhs = r.lhs.ToString(kMaxExprText);
  const std::string rhs = r.rhs.ToString(kMaxExprText);
  switch (r.relation) {
    case Relation::kEqual:
      return absl::StrCat(lhs, " == ", rhs);
    case Relation::kBroadcastable:
      return absl::StrCat(lhs, " == ", rhs, ", or either is 1");
    case Relation::kDivisible:
      return absl::StrCat(lhs, " % ", rhs, " == 0");
    case Relation::kAtLeast:
      return absl::StrCat(lhs, " >= ", rhs);
  }
  return "";
}

std::string DescribeFailure(const Requirement& r, int64_t lhs, int64_t rhs) {
  if (r.kind == infer::RequirementKind::kDeclaredShape) {
    return absl::StrCat("'", r.value, "' axis ", r.axis, " is ", lhs, " but is declared ", rhs);
  }
  switch (r.relation) {
    case Relation::kEqual:
      return absl::StrCat(r.what, ": ", lhs, " vs ", rhs);
    case Relation::kBroadcastable:
      return absl::StrCat(r.what, ": ", lhs, " and ", rhs, " do not broadcast");
    case Relation::kDivisible:
      return absl::StrCat(r.what, ": ", lhs, " is not divisible by ", rhs);
    case Relation::kAtLeast:
      return absl::StrCat(r.what, ": the dim is ", lhs, ", it must be at least ", rhs);
  }
  return r.what;
}

std::string FormatDims(const std::vector<sym::MaybeExpr>& dims) {
  std::vector<std::string> parts;
  parts.reserve(dims.size());
  for (const auto& d : dims) parts.push_back(d ? d->ToString(kMaxExprText) : "?");
  return absl::StrCat("[", absl::StrJoin(parts, ", "), "]");
}

std::string FormatDims(const std::vector<int64_t>& dims) {
  return absl::StrCat("[", absl::StrJoin(dims, ", "), "]");
}

}  // namespace shapelint::lint
