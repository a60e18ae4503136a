// Static probing: evaluate a model at given input sizes without running it — the output shapes
// there next to the declared ones, and the first node that would fail, with the reason.
#ifndef SHAPELINT_LINT_PROBE_H_
#define SHAPELINT_LINT_PROBE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "shapelint/ir/model.h"
#include "shapelint/lint/finding.h"

namespace shapelint::lint {

// Sizes for the input dims, parsed from a comma-separated list of
//   NAME=SIZE          a symbol of the input dims (batch=2)
//   INPUT=AxBxC        every dim of a graph input (x=2x3x8x9)
//   NAME=LO..HI        a symbol over a range (batch=1..64); at most one per list
// as one --dims of `probe` (a probe), --export-dims, --static and `shapes --dims` take them.
struct ProbeSpec {
  std::vector<std::pair<std::string, int64_t>> sizes;
  std::vector<std::pair<std::string, std::vector<int64_t>>> shapes;
  std::optional<std::string> range_symbol;
  int64_t range_lo = 0, range_hi = 0;
};

// The largest range a probe walks: every size in it is one static evaluation.
inline constexpr int64_t kMaxProbeRange = 1 << 16;

// Which of the forms above a list may hold: NAME=SIZE always.
struct SizeSyntax {
  bool shapes = false;  // INPUT=AxBxC
  bool ranges = false;  // NAME=LO..HI
};
inline constexpr SizeSyntax kNamedSizes{false, false};  // --static, shapes --dims
inline constexpr SizeSyntax kExportSizes{true, false};  // --export-dims
inline constexpr SizeSyntax kProbeSizes{true, true};    // probe --dims

// Parses a list of sizes of the forms `syntax` allows; empty items are skipped. An error names
// the item at fault and what was expected there ("invalid size 'h=-1' (expected NAME=SIZE
// with SIZE >= 0)"), or says that the list holds no size; callers add the option it came from.
absl::StatusOr<ProbeSpec> ParseSizes(std::string_view text, SizeSyntax syntax);

// One probe: ParseSizes(text, kProbeSizes).
absl::StatusOr<ProbeSpec> ParseProbeSpec(std::string_view text);

// A NAME=SIZE given as a table entry rather than text (`static` in a configuration file, or
// Python's static={...}): the checks ParseSizes makes of one.
absl::Status CheckNamedSize(std::string_view name, int64_t size);

struct ProbeResult {
  std::string spec;  // the probe as given
  // Symbols the probe did not set, and the values they were given: the sizes at which the
  // model works where those are known (the witness), else 1.
  std::vector<std::pair<std::string, int64_t>> defaulted;
  // The model evaluated at the probe (for a range, at its first size that breaks, or at its
  // lower end when none does).
  Counterexample at;
  bool breaks = false;  // a node fails, or an output differs from its declaration
  // For a range: its symbol, and the sizes in it at which the model breaks, as closed
  // intervals.
  std::string range_symbol;
  std::vector<std::pair<int64_t, int64_t>> failing;
};

// Evaluates `model` at each probe: its text as given (kept in the result) and its parsed form.
// The model is analysed once for all of them. An error names the first probe that does not fit
// the model: a symbol or input it does not have, or a shape that contradicts an input's rank
// or static dims. Like lint::Lint, it frees every expression it builds before it returns.
absl::StatusOr<std::vector<ProbeResult>> Probe(
    const ir::Model& model, const std::vector<std::pair<std::string, ProbeSpec>>& probes);

// Where the graph's own sizes change as one input symbol moves from a binding. A size the graph
// computes with a floor (a feature map after a stride-4 convolution, floor(H / 4)) keeps its
// value over several input sizes, so a branch of the module on that size (Swin's "shift only
// where the map is larger than the window") shows only where it changes: moving the input by 1
// or 2 never crosses it. For each symbol and direction, the steps (ascending, at most
// `max_count`, none larger than `max_step`) at which some such size first changes: the first
// is where a size that moving by 1 left alone changes; each next one changes a size that every
// step before left alone (a stride-32 map after a stride-4 one). `at` gives sizes by symbol
// (NAME=SIZE) or by input (INPUT=AxB); a symbol it leaves out has no entry. Only the engine's
// facts are read: nothing is solved, so a step may be where the model does not run.
struct SizeSteps {
  std::string symbol;
  int64_t at = 0;                 // the symbol's size at the binding
  std::vector<int64_t> up, down;  // positive steps: at + step, at - step
};
absl::StatusOr<std::vector<SizeSteps>> SizeStepsAt(const ir::Model& model, const ProbeSpec& at,
                                                   int64_t max_step = 64, int max_count = 3);

}  // namespace shapelint::lint

#endif  // SHAPELINT_LINT_PROBE_H_
