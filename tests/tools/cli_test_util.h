// Shared by the CLI tests: running the tool in-process, and the shared temporary directories and
// files (test_files.h).
#ifndef SHAPELINT_TESTS_TOOLS_CLI_TEST_UTIL_H_
#define SHAPELINT_TESTS_TOOLS_CLI_TEST_UTIL_H_

#include <catch2/catch.hpp>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "test_files.h"
#include "tools/cli.h"

namespace shapelint::cli {

namespace fs = std::filesystem;

struct Outcome {
  int code = -1;
  std::string out;
  std::string err;
};

inline Outcome RunCli(const std::vector<std::string>& args, const Environment& env = {}) {
  std::ostringstream out, err;
  Outcome o;
  o.code = Run(args, out, err, env);
  o.out = out.str();
  o.err = err.str();
  return o;
}

using ::shapelint::testing::ReadFile;
using ::shapelint::testing::TempDir;

}  // namespace shapelint::cli

#endif  // SHAPELINT_TESTS_TOOLS_CLI_TEST_UTIL_H_
