// The library's entry point: lint a model, get findings.
#ifndef SHAPELINT_LINT_LINT_H_
#define SHAPELINT_LINT_LINT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "shapelint/ir/model.h"
#include "shapelint/lint/finding.h"
#include "shapelint/lint/probe.h"

namespace shapelint::lint {

struct RuleInfo {
  std::string_view code;                // "SL001"
  std::string_view name;                // "baked-pool-kernel"
  std::string_view summary;             // one line
  Severity level = Severity::kWarning;  // the most severe level it reports at
};

// Every rule, in the order of rules/rules.def: code order, which is also their precedence. When
// a failure fits the patterns of several rules, the first of them that runs reports it; a rule
// that does not run leaves it to the next.
const std::vector<RuleInfo>& AllRules();

// An input axis to lint as dynamic, whatever the model declares: "which literals would break if
// I exported this axis dynamic?".
struct DynamicAxis {
  std::string input;
  int64_t axis = 0;  // negative counts from the end
  std::string name;  // the symbol to give it; empty: an anonymous one ("x:2")
};

struct LintOptions {
  // Rules to run: codes, names or code prefixes in any case, or ALL (as --select takes them).
  // Unset runs every rule; an empty list runs none. A selector that names no rule is an error.
  std::optional<std::vector<std::string>> select;
  // Rules not to run, even when selected (the same selectors).
  std::vector<std::string> ignore;
  // The sizes the model was exported at (the example input given to torch.onnx.export), in
  // the syntax of a probe without a range: x=2x3x224x224, or batch=2,height=224. Optional;
  // with them, literals that equal a size derived from the example are reported even where
  // no shape contradicts them (SL007, SL008).
  std::optional<ProbeSpec> export_dims;
  // The user's intent where the declaration says otherwise: axes to treat as dynamic, and input
  // dim names to fix to a size (in inputs, outputs and value_info alike).
  std::vector<DynamicAxis> dynamic;
  std::vector<std::pair<std::string, int64_t>> static_dims;
  // Sizes to put the witness at where the model works there, without taking them for the
  // example's (no literal is reported for equalling them): lint::Fix's later rounds keep the
  // sizes at which the model they started from worked.
  std::vector<std::pair<std::string, int64_t>> witness_hint;
  // Give each finding its fix-it (Finding::fix_it, or why there is none): lint::Fix asks for
  // them; a lint alone does not pay for repairs it never applies.
  bool fix_its = false;
};

// Findings for `model`, sorted by graph position and rule, from the rules `options` select (see
// AllRules for their precedence). Fails only when `options` do not fit the model (export dims,
// dynamic axes or static dims naming an input, axis or symbol it does not have) or name no rule:
// what the engine cannot model is left out, not guessed. Every expression the
// run builds is freed before it returns (it opens a sym::InternScope of its own, nested in the
// caller's if there is one): findings hold only plain data.
absl::StatusOr<std::vector<Finding>> Lint(const ir::Model& model, const LintOptions& options = {});

// A graph input as declared, with what the exporter recorded of its symbols: what a caller
// needs to build inputs for a run or to check that the axes it asked to be dynamic came out so.
struct InputDim {
  std::optional<int64_t> size;  // a static dim (dim_value)
  std::string symbol;           // a named dynamic dim (dim_param); empty otherwise
  // torch.export's recorded range of `symbol` (pkg.torch.export...range_constraints), when the
  // model records one: min and max, nullopt where unbounded.
  bool has_range = false;
  std::optional<int64_t> range_min, range_max;
};
struct InputInfo {
  std::string name;
  int32_t elem_type = 0;   // ONNX TensorProto.DataType; 0 when not a tensor or not declared
  bool has_shape = false;  // false: the rank is unknown
  std::vector<InputDim> dims;
};

// The inputs of `model`'s main graph that no initializer gives, in declaration order.
std::vector<InputInfo> DescribeInputs(const ir::Model& model);

// The tool's version, e.g. "0.1.0".
std::string_view Version();

}  // namespace shapelint::lint

#endif  // SHAPELINT_LINT_LINT_H_
