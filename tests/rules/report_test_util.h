// Shared by the tests that pin the text report: the rule fixtures, running the tool on a model
// with the model's path replaced by a fixed name, and a line diff for failure messages.
#ifndef SHAPELINT_TESTS_RULES_REPORT_TEST_UTIL_H_
#define SHAPELINT_TESTS_RULES_REPORT_TEST_UTIL_H_

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "shapelint/lint/lint.h"
#include "tools/cli_test_util.h"

namespace shapelint::testing {

namespace fs = std::filesystem;

// Every rule fixture, tests/rules/<CODE>/*.onnxtxt, in path order.
inline std::vector<fs::path> RuleFixtures() {
  std::vector<fs::path> files;
  for (const auto& entry :
       fs::recursive_directory_iterator(fs::path(SHAPELINT_SOURCE_DIR) / "tests" / "rules")) {
    if (entry.path().extension() == ".onnxtxt") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

// The fixture's "# export-dims: <sizes>" line, or "" without one.
inline std::string FixtureExportDims(const fs::path& fixture) {
  std::ifstream in(fixture);
  std::string line;
  while (std::getline(in, line)) {
    absl::string_view l = line;
    if (absl::ConsumePrefix(&l, "# export-dims: ")) return std::string(l);
  }
  return "";
}

struct Report {
  int code = -1;
  std::string out;  // what the tool printed, `model` shown as `shown`
  std::string err;
};

// Runs the tool in-process on `model` after `options`, with no configuration file (one in a
// directory above the checkout must not change the report) and no colour. The model's path is
// replaced by `shown` wherever it appears, so that the report is the same in every checkout;
// the version, were it printed, becomes "<version>".
inline Report RunOnModel(const std::vector<std::string>& options, const fs::path& model,
                         const std::string& shown) {
  std::vector<std::string> args = {"--isolated", "--color", "never"};
  args.insert(args.end(), options.begin(), options.end());
  args.push_back(model.string());
  cli::Outcome o = cli::RunCli(args);
  const std::vector<std::pair<std::string, std::string>> redactions = {
      {model.string(), shown},
      {absl::StrCat("onnx-shapelint ", std::string(lint::Version())), "onnx-shapelint <version>"}};
  return Report{o.code, absl::StrReplaceAll(o.out, redactions),
                absl::StrReplaceAll(o.err, redactions)};
}

// The lines that differ between `expected` and `actual`, each with its line number: "-3: ..."
// for a line of `expected` that `actual` lacks, "+3: ..." for one that only `actual` has.
// Lines in common are left out: the test's output wraps long lines, which would bury the
// changes among them. Reports are short: the quadratic longest common subsequence is instant.
inline std::string LineDiff(const std::string& expected, const std::string& actual) {
  std::vector<std::string> a = absl::StrSplit(expected, '\n');
  std::vector<std::string> b = absl::StrSplit(actual, '\n');
  // common[i][j]: the length of the longest common subsequence of a[i..] and b[j..].
  std::vector<std::vector<size_t>> common(a.size() + 1, std::vector<size_t>(b.size() + 1, 0));
  for (size_t i = a.size(); i-- > 0;) {
    for (size_t j = b.size(); j-- > 0;) {
      common[i][j] =
          a[i] == b[j] ? common[i + 1][j + 1] + 1 : std::max(common[i + 1][j], common[i][j + 1]);
    }
  }
  std::string diff;
  size_t i = 0, j = 0;
  while (i < a.size() || j < b.size()) {
    if (i < a.size() && j < b.size() && a[i] == b[j]) {
      ++i;
      ++j;
    } else if (i < a.size() && (j == b.size() || common[i + 1][j] >= common[i][j + 1])) {
      absl::StrAppend(&diff, "-", i + 1, ": ", a[i], "\n");
      ++i;
    } else {
      absl::StrAppend(&diff, "+", j + 1, ": ", b[j], "\n");
      ++j;
    }
  }
  return diff;
}

}  // namespace shapelint::testing

#endif  // SHAPELINT_TESTS_RULES_REPORT_TEST_UTIL_H_
