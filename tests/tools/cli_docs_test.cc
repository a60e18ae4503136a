// docs/cli.md against the tool: the text report's example is what the tool prints, and --help
// says where the pages it names are for someone who has no clone (a wheel's user).
#include <algorithm>
#include <catch2/catch.hpp>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "rules/report_test_util.h"
#include "tools/cli_test_util.h"
#include "tools/help.h"

namespace shapelint::cli {
namespace {

constexpr absl::string_view kPrompt = "$ onnx-shapelint ";

// The fenced code blocks of the section that starts with `heading`, up to the next "## ".
std::vector<std::string> CodeBlocks(const std::string& page, const std::string& heading) {
  std::vector<std::string> blocks;
  bool in_section = false, in_block = false;
  const std::vector<std::string> lines = absl::StrSplit(page, '\n');
  for (const std::string& line : lines) {
    if (!in_block && absl::StartsWith(line, "## ")) in_section = line == heading;
    if (!in_section) continue;
    if (absl::StartsWith(line, "```")) {
      if (!in_block) blocks.emplace_back();
      in_block = !in_block;
    } else if (in_block) {
      blocks.back() += line + "\n";
    }
  }
  return blocks;
}

TEST_CASE("docs/cli.md: the text report's example is what the tool prints", "[cli][docs]") {
  // A model block (model.onnxtxt), then "$ onnx-shapelint ARGS" and the output. Every argument
  // other than the model names a file that does not exist.
  const std::vector<std::string> blocks =
      CodeBlocks(ReadFile(SHAPELINT_SOURCE_DIR "/docs/cli.md"), "## Text report");
  REQUIRE(blocks.size() == 2);
  const std::string& example = blocks[1];
  REQUIRE(absl::StartsWith(example, kPrompt));
  const size_t end = example.find('\n');
  const std::vector<std::string> args =
      absl::StrSplit(example.substr(kPrompt.size(), end - kPrompt.size()), ' ', absl::SkipEmpty());
  REQUIRE(std::count(args.begin(), args.end(), "model.onnxtxt") == 1);
  TempDir dir;
  dir.Write("model.onnxtxt", blocks[0]);
  std::vector<std::string> run = {"--isolated", "--color", "never"};
  for (const std::string& arg : args) run.push_back((dir.path() / arg).string());
  const Outcome o = RunCli(run);
  CHECK(o.code == 2);  // a model could not be loaded
  CHECK(o.err.empty());
  const std::string printed = absl::StrReplaceAll(o.out, {{dir.path().string() + "/", ""}});
  if (printed != example.substr(end + 1)) {
    FAIL_CHECK("docs/cli.md shows (-), the tool prints (+):\n"
               << testing::LineDiff(example.substr(end + 1), printed));
  }
}

TEST_CASE("--help says where its docs/*.md pages are without a clone", "[cli][docs]") {
  // A wheel installs the pages under share/doc/onnx-shapelint/ (pyproject.toml, CMakeLists.txt):
  // each page --help names must be one of docs/.
  const std::string help = HelpText();
  CHECK(absl::StrContains(help, "https://github.com/onnx-shapelint/onnx-shapelint/tree/main/docs"));
  CHECK(absl::StrContains(help, "share/doc/onnx-shapelint/"));
  const std::regex page(R"re(docs/([a-z-]+\.md))re");
  std::set<std::string> named;
  for (auto it = std::sregex_iterator(help.begin(), help.end(), page); it != std::sregex_iterator();
       ++it) {
    named.insert((*it)[1]);
  }
  CHECK(named.size() >= 5);
  for (const std::string& name : named) {
    INFO(name);
    CHECK(fs::exists(fs::path(SHAPELINT_SOURCE_DIR) / "docs" / name));
  }
}

}  // namespace
}  // namespace shapelint::cli
