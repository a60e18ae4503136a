// Reading requirements: their symbols, whether they hold at some sizes, and how to say so.
#ifndef SHAPELINT_LIB_LINT_REQUIREMENTS_H_
#define SHAPELINT_LIB_LINT_REQUIREMENTS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/functional/function_ref.h"
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

// True when, at a binding near `witness` where `requirement` fails, `accept` takes it: one of
// `symbols` moved by 1 to `nearby` either way, by a stride's 8 to 32 (a stride or a patch keeps
// a floor unchanged over a few sizes), or halved or doubled. `moved` holds the witness and is
// given back as it came.
bool FailingNear(const infer::Requirement& requirement, const std::vector<std::string>& symbols,
                 const sym::Binding& witness, sym::Binding& moved, int64_t nearby,
                 absl::FunctionRef<bool(const sym::Binding&)> accept);

// True when `requirement` is an intermediate value_info's declaration: the writing tool's
// inference, a hint, not the model's interface (docs/severity.md).
bool IsHint(const infer::Requirement& requirement);

// True when `requirement` relates input sizes alone: lhs - rhs a sum of two or more input dims,
// each with coefficient 1 or -1, and no constant (past_seq + seq == total_seq, keys as long as
// the values, the same batch). That is the inputs' contract (Pin::contract); a baked size
// always brings a constant or a factor (4*seq == 96, heads == 2*kv_heads).
bool IsUnitRelation(const infer::Requirement& requirement);

// True when `requirement` is a graph output's declaration that holds a number where the graph
// computes the dim from the inputs with no literal on the way (a polynomial of input symbols):
// the declaration, not the graph, is what was baked at the example.
bool IsBakedDeclaration(const infer::Requirement& requirement);

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
