// The whole text report of every rule fixture, pinned. Next to tests/rules/<CODE>/<name>.onnxtxt,
// <name>.report holds the command that was run, everything it printed and its exit code:
//
//   $ onnx-shapelint --isolated --color never [--export-dims <sizes>] <name>.onnxtxt
//   <the report, as printed, with the fixture named by its file name>
//   exit: <code>
//
// --export-dims is given when the fixture has an "# export-dims:" line. The expect lines say
// which findings there are; the golden pins every word of them, so that a change to a message,
// a witness or a counterexample shows up as a diff to read.
//
// With SHAPELINT_UPDATE_GOLDENS=1 in the environment the test writes the goldens instead of
// comparing them (and removes those whose fixture is gone): `tools/dev update-goldens`, then
// review `git diff tests/rules` by hand (docs/guide.md, "Tests").
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "rules/report_test_util.h"
#include "test_files.h"

namespace shapelint::testing {
namespace {

constexpr char kUpdateVariable[] = "SHAPELINT_UPDATE_GOLDENS";
constexpr char kGoldenExtension[] = ".report";

bool UpdatingGoldens() {
  const char* value = std::getenv(kUpdateVariable);
  return value != nullptr && std::string(value) != "" && std::string(value) != "0";
}

std::string HowToUpdate() {
  return absl::StrCat("run tools/dev update-goldens (or ", kUpdateVariable,
                      "=1 shapelint_tests '[goldens]'), then review git diff tests/rules by hand");
}

// What the golden of `fixture` holds: the command, the report and the exit code.
std::string GoldenText(const fs::path& fixture) {
  std::vector<std::string> options;
  if (std::string dims = FixtureExportDims(fixture); !dims.empty()) {
    options = {"--export-dims", dims};
  }
  const std::string name = fixture.filename().string();
  Report report = RunOnModel(options, fixture, name);
  // The golden pins standard output; a fixture has nothing to say on standard error.
  INFO("standard error:\n" << report.err);
  CHECK(report.err.empty());
  std::vector<std::string> command = {"$ onnx-shapelint --isolated --color never"};
  command.insert(command.end(), options.begin(), options.end());
  command.push_back(name);
  return absl::StrCat(absl::StrJoin(command, " "), "\n", report.out, "exit: ", report.code, "\n");
}

void WriteGolden(const fs::path& golden, const std::string& text) {
  if (fs::exists(golden) && ReadFile(golden) == text) return;
  std::ofstream out(golden, std::ios::binary);
  out << text;
  out.close();
  REQUIRE(out);
  WARN("wrote " << fs::relative(golden, SHAPELINT_SOURCE_DIR).string());
}

void CompareGolden(const fs::path& golden, const std::string& text) {
  const std::string shown = fs::relative(golden, SHAPELINT_SOURCE_DIR).string();
  if (!fs::exists(golden)) {
    FAIL_CHECK("missing golden file " << shown << ": " << HowToUpdate());
    return;
  }
  const std::string expected = ReadFile(golden);
  if (expected == text) return;
  FAIL_CHECK(shown << " differs from what the tool prints (- golden, + now):\n"
                   << LineDiff(expected, text) << "If the change is right, " << HowToUpdate());
}

TEST_CASE("every rule fixture's text report matches its golden file", "[rules][goldens]") {
  const std::vector<fs::path> fixtures = RuleFixtures();
  REQUIRE(fixtures.size() >= 10);
  const bool update = UpdatingGoldens();
  for (const fs::path& fixture : fixtures) {
    fs::path golden = fixture;
    golden.replace_extension(kGoldenExtension);
    INFO("fixture " << fs::relative(fixture, SHAPELINT_SOURCE_DIR).string());
    const std::string text = GoldenText(fixture);
    if (update) {
      WriteGolden(golden, text);
    } else {
      CompareGolden(golden, text);
    }
  }
}

// A golden without its fixture pins nothing: the fixture was renamed or removed.
TEST_CASE("every golden report has its rule fixture", "[rules][goldens]") {
  const fs::path root = fs::path(SHAPELINT_SOURCE_DIR) / "tests" / "rules";
  std::set<fs::path> orphans;
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    fs::path fixture = entry.path();
    if (fixture.extension() != kGoldenExtension) continue;
    fixture.replace_extension(".onnxtxt");
    if (!fs::exists(fixture)) orphans.insert(entry.path());
  }
  for (const fs::path& orphan : orphans) {
    const std::string shown = fs::relative(orphan, SHAPELINT_SOURCE_DIR).string();
    if (UpdatingGoldens()) {
      fs::remove(orphan);
      WARN("removed " << shown);
    } else {
      FAIL_CHECK(shown << " has no fixture beside it: " << HowToUpdate());
    }
  }
}

}  // namespace
}  // namespace shapelint::testing
