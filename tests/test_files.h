// A test's files: its inputs, read whole, and the files it writes, in a directory of its own.
#ifndef SHAPELINT_TESTS_TEST_FILES_H_
#define SHAPELINT_TESTS_TEST_FILES_H_

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <system_error>

namespace shapelint::testing {

// The bytes of `path`. A file that cannot be read fails the test where it is read, rather than
// giving the test an empty input that it might pass on.
inline std::string ReadFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  INFO("reading " << path.string());
  REQUIRE(in);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  REQUIRE_FALSE(in.bad());
  return bytes.str();
}

// A fresh directory under the system temp dir, removed with everything in it.
class TempDir {
 public:
  TempDir() {
    std::random_device random;
    for (int attempt = 0; attempt < 100; ++attempt) {
      std::filesystem::path candidate =
          std::filesystem::temp_directory_path() /
          ("shapelint-test-" + std::to_string(random()) + "-" + std::to_string(random()));
      std::error_code ec;
      if (std::filesystem::create_directory(candidate, ec)) {
        path_ = candidate;
        return;
      }
    }
    FAIL("cannot create a temporary directory");
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::filesystem::path& path() const { return path_; }

  // Writes `bytes` to a file in the directory; returns its path.
  std::string Write(const std::string& name, const std::string& bytes) const {
    std::filesystem::path p = path_ / name;
    std::ofstream f(p, std::ios::binary);
    f << bytes;
    f.close();
    REQUIRE(f);
    return p.string();
  }

 private:
  std::filesystem::path path_;
};

}  // namespace shapelint::testing

#endif  // SHAPELINT_TESTS_TEST_FILES_H_
