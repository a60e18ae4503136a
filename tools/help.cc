#include "tools/help.h"

#include <span>
#include <string_view>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "tools/options.h"

namespace shapelint::cli {
namespace {

// An option's text starts in this column; an option whose name and value reach it starts its
// text on the next line.
constexpr size_t kTextColumn = 22;

// Keep in sync with docs/cli.md. The options' own lines come from their tables.
constexpr std::string_view kIntroduction =
    R"(Usage: onnx-shapelint [OPTIONS] MODEL...
       onnx-shapelint --explain CODE
       onnx-shapelint shapes [--format FORMAT] [--dims NAME=SIZE,...] MODEL...
       onnx-shapelint probe [--format FORMAT] --dims SIZES [--dims SIZES]... MODEL...
       onnx-shapelint confirm MODEL [--dims SIZES]
       onnx-shapelint fix MODEL -o OUT [--diff] [--unsafe-fixes] [OPTIONS]

Finds sizes of the example input baked into ONNX models exported with dynamic
axes: graphs that work at the export size and fail, or silently return another
shape, at other sizes of the axes they declare dynamic.

MODEL is a serialized ONNX model (.onnx), a model in ONNX text format
(.onnxtxt), a directory (every *.onnx file under it, recursively), or '-'
for standard input. Models are linted in parallel and reported in the order
given (files of a directory sorted by path). Every model is reported, even
when some cannot be loaded.

Options:
)";

constexpr std::string_view kShapes = R"(
An option's value follows it as the next argument or after '='
(--format=json).

'shapes' prints what the engine infers for every value instead of linting:
its shape as expressions over the input dims, the values of small integer
tensors (shape computations), and notes on ops it does not model.
)";

constexpr std::string_view kProbeConfirmFix = R"(
'probe' evaluates each model at the sizes of each --dims, without running it:
the output shapes there next to the declared ones, and the first node that
would fail, with the reason. SIZES is a comma-separated list of
  NAME=SIZE           an input dim by its name (batch=8)
  INPUT=AxBxC         every dim of a graph input (x=2x3x8x9)
  NAME=LO..HI         every size in a range (batch=1..64): which of them break
Dims not given take sizes at which the model works. Exit 1 when a probe
breaks.

'confirm' lints MODEL and runs each error's counterexample on ONNX Runtime,
through the Python package: pip install PATH/TO/onnx-shapelint onnxruntime,
where PATH/TO/onnx-shapelint is a clone of the repository or a wheel built
from it (docs/python.md).

'fix' writes MODEL repaired to OUT: each finding whose rule has a fix is
rewritten so that the size is computed from the input's shape, and the
result is kept only when ONNX's checker accepts it, its outputs keep their
shapes where MODEL works, and linting it finds no new finding. It takes
--select, --ignore, --export-dims, --dynamic, --static, --config and
--isolated as linting does, and lists what it could not fix, with why.
)";

constexpr std::string_view kExitStatus = R"(
Exit status:
  0  no finding at or above --fail-on
  1  at least one finding at or above --fail-on
  2  usage error, or a model could not be loaded (the others are still
     linted and reported)
'fix' exits 0 when no error is left, 1 when one is, 2 when it cannot run.

The docs/*.md pages named above are in the repository,
https://github.com/onnx-shapelint/onnx-shapelint/tree/main/docs, and pip
installs them with the command, under share/doc/onnx-shapelint/ in the
environment (beside its bin/).
)";

// "  -v, --verbose       Text report: ...", the text's further lines under its first.
std::string OptionLines(const OptionSpec& spec) {
  std::string head = "  ";
  if (!spec.alias.empty()) absl::StrAppend(&head, std::string(spec.alias), ", ");
  absl::StrAppend(&head, std::string(spec.name));
  if (spec.takes_value()) absl::StrAppend(&head, " ", std::string(spec.value_name));
  const std::string indent(kTextColumn, ' ');
  std::string out;
  bool first = true;
  for (absl::string_view line : absl::StrSplit(std::string(spec.help), '\n')) {
    if (first && head.size() < kTextColumn) {
      absl::StrAppend(&out, head, std::string(kTextColumn - head.size(), ' '), line, "\n");
    } else {
      if (first) absl::StrAppend(&out, head, "\n");
      absl::StrAppend(&out, indent, line, "\n");
    }
    first = false;
  }
  return out;
}

std::string ListedOptions(std::span<const OptionSpec> table) {
  std::string out;
  for (const OptionSpec& spec : table) {
    if (!spec.help.empty()) out += OptionLines(spec);
  }
  return out;
}

}  // namespace

std::string HelpText() {
  return absl::StrCat(std::string(kIntroduction), ListedOptions(LintOptionTable()),
                      std::string(kShapes), ListedOptions(ShapesOptionTable()),
                      std::string(kProbeConfirmFix), ListedOptions(FixOptionTable()),
                      std::string(kExitStatus));
}

}  // namespace shapelint::cli
