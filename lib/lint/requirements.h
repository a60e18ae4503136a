// Reading requirements: their symbols, whether they hold at some sizes, and how to say so.
#ifndef SHAPELINT_LIB_LINT_REQUIREMENTS_H_
#define SHAPELINT_LIB_LINT_REQUIREMENTS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "shapelint/infer/facts.h"
#include "shapelint/sym/expr.h"

namespace shapelint::lint {

// Longest expression a finding spells out: expressions share subexpressions and can print
// far longer than they are.
inline constexpr size_t kMaxExprText = 120;

// The symbols of both sides, sorted, each once.
std::vector<std::string> SymbolsOf(const infer::Requirement& requirement);

// Whether `requirement` holds at the binding `evaluate` was made for; nullopt when a side
// cannot be evaluated there (an unbound symbol, an overflow).
std::optional<bool> HoldsUnder(const infer::Requirement& requirement, sym::Evaluator& evaluate);
std::optional<bool> HoldsUnder(const infer::Requirement& requirement, const sym::Binding& binding);

// "lhs == rhs", each side cut at kMaxExprText.
std::string EqualityText(const infer::Requirement& requirement);
// The relation as it must hold: "lhs == rhs, or either is 1", "lhs % rhs == 0", ...
std::string RequirementText(const infer::Requirement& requirement);
// How to describe a failure of `requirement` with these concrete sides.
std::string DescribeFailure(const infer::Requirement& requirement, int64_t lhs, int64_t rhs);

// "[2, 3, 8, 9]"
std::string FormatDims(const std::vector<int64_t>& dims);
// "[N, 3, floor(H / 2)]", each dim cut at kMaxExprText, "?" for an unknown one.
std::string FormatDims(const std::vector<sym::MaybeExpr>& dims);

}  // namespace shapelint::lint

#endif  // SHAPELINT_LIB_LINT_REQUIREMENTS_H_
