// The library's entry point: lint a model, get findings.
#ifndef SHAPELINT_LINT_LINT_H_
#define SHAPELINT_LINT_LINT_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "shapelint/ir/model.h"
#include "shapelint/lint/finding.h"

namespace shapelint::lint {

struct RuleInfo {
  std::string_view code;     // "SL001"
  std::string_view name;     // "baked-pool-kernel"
  std::string_view summary;  // one line
};

// Every rule, in code order.
const std::vector<RuleInfo>& AllRules();

struct LintOptions {
  // Rule codes or names to run, in any case; empty runs all.
  std::vector<std::string> select;
};

// Findings for `model`, sorted by graph position and rule. Never fails on a loaded model:
// what the engine cannot model is left out, not guessed.
std::vector<Finding> Lint(const ir::Model& model, const LintOptions& options = {});

// The tool's version, e.g. "0.1.0".
std::string_view Version();

}  // namespace shapelint::lint

#endif  // SHAPELINT_LINT_LINT_H_
