// Reading a test's input files whole.
#ifndef SHAPELINT_TESTS_TEST_FILES_H_
#define SHAPELINT_TESTS_TEST_FILES_H_

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

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

}  // namespace shapelint::testing

#endif  // SHAPELINT_TESTS_TEST_FILES_H_
