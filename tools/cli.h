// The onnx-shapelint command line, callable in-process so tests can run it without a subprocess.
#ifndef SHAPELINT_TOOLS_CLI_H_
#define SHAPELINT_TOOLS_CLI_H_

#include <cstddef>
#include <ostream>
#include <string>
#include <vector>

namespace shapelint::cli {

// Exit codes (documented in --help and docs/cli.md).
inline constexpr int kExitClean = 0;     // no finding at or above --fail-on
inline constexpr int kExitFindings = 1;  // findings at or above --fail-on
inline constexpr int kExitError = 2;     // usage error, or a model could not be loaded

// What Run needs to know about the process it runs in. main() fills it in; tests choose it.
struct Environment {
  bool stdout_is_tty = false;  // --color=auto colours only a terminal...
  bool no_color = false;       // ...and only when NO_COLOR is unset or empty
  // The process exits right after Run: a one-model run need not free the model (main() sets
  // this; an in-process caller that runs the tool again must not).
  bool exits_after_run = false;
};

// Runs the tool on `args` (without argv[0]), writing the report to `out` and usage problems to
// `err`. Returns the exit code. Model "-" is read from std::cin.
int Run(const std::vector<std::string>& args, std::ostream& out, std::ostream& err,
        const Environment& env = {});

// The order in which a run over many models starts them: the largest file first, so that a
// model that takes most of the run does not start last while the other threads run out of
// work. Files of equal size keep the given order; files whose size cannot be read ("-" for
// standard input, a path that is missing) count as empty. Reports keep the given order.
std::vector<size_t> LargestFirst(const std::vector<std::string>& paths);

}  // namespace shapelint::cli

#endif  // SHAPELINT_TOOLS_CLI_H_
