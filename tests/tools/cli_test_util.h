// Shared by the CLI tests: running the tool in-process, temporary directories, files.
#ifndef SHAPELINT_TESTS_TOOLS_CLI_TEST_UTIL_H_
#define SHAPELINT_TESTS_TOOLS_CLI_TEST_UTIL_H_

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <system_error>
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

// A fresh directory under the system temp dir, removed with everything in it.
class TempDir {
 public:
  TempDir() {
    std::random_device random;
    for (int attempt = 0; attempt < 100; ++attempt) {
      fs::path candidate =
          fs::temp_directory_path() /
          ("shapelint-cli-test-" + std::to_string(random()) + "-" + std::to_string(random()));
      std::error_code ec;
      if (fs::create_directory(candidate, ec)) {
        path_ = candidate;
        return;
      }
    }
    FAIL("cannot create a temporary directory");
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const fs::path& path() const { return path_; }

  // Writes `bytes` to a file in the directory; returns its path.
  std::string Write(const std::string& name, const std::string& bytes) const {
    fs::path p = path_ / name;
    std::ofstream f(p, std::ios::binary);
    f << bytes;
    f.close();
    REQUIRE(f);
    return p.string();
  }

 private:
  fs::path path_;
};

using ::shapelint::testing::ReadFile;

}  // namespace shapelint::cli

#endif  // SHAPELINT_TESTS_TOOLS_CLI_TEST_UTIL_H_
