// onnx-shapelint: the process entry point. Everything else lives in cli.cc, where tests reach it.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "tools/cli.h"

int main(int argc, char** argv) {
  // The report goes through std::cout only; C stdio is not mixed in.
  std::ios::sync_with_stdio(false);

  shapelint::cli::Environment env;
  env.stdout_is_tty = isatty(fileno(stdout)) != 0;
  // https://no-color.org: set and non-empty disables colour.
  const char* no_color = std::getenv("NO_COLOR");
  env.no_color = no_color != nullptr && no_color[0] != '\0';
  env.exits_after_run = true;

  std::vector<std::string> args(argv + (argc > 0 ? 1 : 0), argv + argc);
  int code = shapelint::cli::Run(args, std::cout, std::cerr, env);
  std::cout.flush();
  // A report that could not be written (full disk, say) must not look like a clean run.
  if (!std::cout) {
    std::cerr << "onnx-shapelint: error: cannot write the report to standard output\n";
    return shapelint::cli::kExitError;
  }
  return code;
}
