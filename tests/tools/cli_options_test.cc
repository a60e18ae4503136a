// The option tables (tools/options.h): --help is written from them, and arguments are read by
// them, for linting and for the subcommands alike.
#include <catch2/catch.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "tools/cli_test_util.h"
#include "tools/options.h"

namespace shapelint::cli {
namespace {

using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;

// The longest line --help may print for an option, as a terminal of 80 columns shows it.
constexpr size_t kMaxHelpLine = 79;

const std::string kPool = SHAPELINT_SOURCE_DIR "/tests/rules/SL001/adaptive_pool_dynamo.onnxtxt";

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::string Head(const OptionSpec& spec) {
  std::string head = "  ";
  if (!spec.alias.empty()) head += std::string(spec.alias) + ", ";
  head += std::string(spec.name);
  if (spec.takes_value()) head += " " + std::string(spec.value_name);
  return head;
}

// Each listed option of `table` in --help: its name, alias and value, then its text from
// column 22, each line of it as the table has it, in the table's order, from line `at` on.
// Returns the line after the last option.
size_t CheckListed(const std::vector<std::string>& help, std::span<const OptionSpec> table,
                   size_t at) {
  for (const OptionSpec& spec : table) {
    if (spec.help.empty()) continue;
    const std::string head = Head(spec);
    INFO(head);
    while (at < help.size() && !(help[at].rfind(head + " ", 0) == 0 || help[at] == head)) ++at;
    REQUIRE(at < help.size());
    std::vector<std::string> text = Lines(std::string(spec.help));
    if (help[at] == head) ++at;  // a long head has its text on the lines below
    for (const std::string& line : text) {
      REQUIRE(at < help.size());
      CHECK(help[at].size() <= kMaxHelpLine);
      CHECK(help[at].substr(22) == line);
      CHECK(help[at].find_first_not_of(' ', head.size()) >= 22);
      ++at;
    }
  }
  return at;
}

TEST_CASE("options: --help lists every option of the tables, as the tables say it",
          "[cli][options]") {
  const std::vector<std::string> help = Lines(RunCli({"--help"}).out);
  const size_t shapes_section = CheckListed(help, LintOptionTable(), 0);
  CheckListed(help, ShapesOptionTable(), shapes_section);
  // Every lint option is listed: none is accepted without --help saying so.
  for (const OptionSpec& spec : LintOptionTable()) CHECK_FALSE(spec.help.empty());
}

TEST_CASE("options: the subcommands print the same help", "[cli][options]") {
  const std::string help = RunCli({"--help"}).out;
  CHECK(RunCli({"shapes", "--help"}).out == help);
  CHECK(RunCli({"probe", "-h", "--no-such-option"}).out == help);
}

TEST_CASE("options: a subcommand takes its own options only", "[cli][options]") {
  Outcome o = RunCli({"shapes", "--select", "SL001", kPool});
  CHECK(o.code == kExitError);
  CHECK_THAT(o.err, StartsWith("onnx-shapelint: error: unknown option '--select' for shapes\n"));
  Outcome probe = RunCli({"probe", "--format=sarif", "--dims", "s2=8", kPool});
  CHECK(probe.code == kExitError);
  CHECK_THAT(probe.err, Contains("invalid value 'sarif' for --format (expected text or json)"));
}

TEST_CASE("options: subcommands read values and '--' as linting does", "[cli][options]") {
  CHECK(RunCli({"shapes", "--format=json", "--dims=s2=8", kPool}).code == kExitClean);
  Outcome missing = RunCli({"shapes", "--dims", "--format", "json", kPool});
  CHECK(missing.code == kExitError);
  CHECK_THAT(missing.err, Contains("option '--dims' needs a value"));
  Outcome flag = RunCli({"probe", "--help=yes"});
  CHECK(flag.code == kExitError);
  CHECK_THAT(flag.err, Contains("option '--help' takes no value"));
  // After "--", an argument that starts with '-' is a model.
  Outcome ended = RunCli({"shapes", "--", "-no-such-model.onnx"});
  CHECK(ended.code == kExitError);
  CHECK(ended.err.empty());
  CHECK(ended.out == "-no-such-model.onnx: error: no such file\n");
}

}  // namespace
}  // namespace shapelint::cli
