// Repairing a model: the fix-its of a lint run (shapelint/lint/fix_it.h) applied together, the
// result proven, and what could not be fixed said.
//
// The edit is made on the serialized model (lib/ir/rewrite.h): weights and every untouched
// node keep their bytes, external data references stay as they are. A fixed model is kept only
// when it loads, passes ONNX's checker and strict shape inference (where this build's ONNX
// knows the model's opset), gives the same output shapes at the sizes where the original works,
// and lints without the findings it fixed and without a finding the original did not have.
// A fix that breaks one of those is left out and reported with the reason. Fixing a fixed model
// changes nothing.
#ifndef SHAPELINT_LINT_FIX_H_
#define SHAPELINT_LINT_FIX_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "shapelint/lint/finding.h"
#include "shapelint/lint/lint.h"

namespace shapelint::lint {

struct FixOptions {
  LintOptions lint;  // which rules, and the sizes and axes to lint with
  // Apply unsafe fix-its too (Applicability::kUnsafe).
  bool unsafe_fixes = false;
};

struct UnfixedFinding {
  Finding finding;
  std::string reason;
};

struct FixResult {
  std::string model;     // the fixed model, serialized: the input's bytes when nothing changed
  bool changed = false;  // model differs from the input
  // Initializers of the main graph live in external files, found relative to the model's
  // directory: written elsewhere, the fixed model needs MoveExternalData.
  bool has_external_data = false;
  std::vector<Finding> fixed;           // the findings whose fix-it was applied
  std::vector<UnfixedFinding> unfixed;  // errors and warnings left, and fix-its left out
  // The graph changes, one line each: "+ node ...", "- node ...", "~ node ...", "~ input ...".
  std::vector<std::string> diff;
  std::vector<std::string> notes;  // what the proof could not check, and why
};

// Fixes the serialized binary model `model_bytes`; `source` names it in messages. Fails when the
// bytes are not a model this tool can rewrite (text format, model-local functions) or the options
// do not fit the model, as lint::Lint does.
absl::StatusOr<FixResult> Fix(std::string_view model_bytes, const std::string& source,
                              const FixOptions& options = {});
// The same for the model file at `path`, which errors name.
absl::StatusOr<FixResult> FixFile(const std::string& path, const FixOptions& options = {});

// `model_bytes`, read from the model file `from`, made to be written as the file `to`: the
// locations of its external data (relative to the model's directory) rewritten to name the same
// files from `to`'s directory; the bytes unchanged when they keep none or the two directories
// are one. ONNX keeps external data in the model's directory or below it (ONNX Runtime refuses a
// location with ".." or an absolute one), so `to` must be in `from`'s directory or in a directory
// above it; elsewhere the error says where the fixed model can go. Weight bytes are neither read
// nor copied.
absl::StatusOr<std::string> MoveExternalData(std::string_view model_bytes, const std::string& from,
                                             const std::string& to);

}  // namespace shapelint::lint

#endif  // SHAPELINT_LINT_FIX_H_
