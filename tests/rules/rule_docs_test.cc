// The rule documentation against the tool and the registry (rules/rules.def, read through
// lint::AllRules()):
//
// - Every docs/rules/<CODE>.md page's "## Example" shows models and what the tool prints for
//   them. A code block whose first line is "$ onnx-shapelint [options] model.onnxtxt" (options
//   separated by spaces, without quotes) is an output; the code block before it is the model it
//   is run on, whole, in ONNX's text format.
//   The test writes that model to model.onnxtxt, runs the command (with --isolated and
//   --color never added) and compares everything it prints with the block. The page may wrap
//   a long line: a line that starts with four spaces continues the line before it, and the
//   test joins the two with one space, in the page and in the tool's output alike.
// - Every page's "Severity:" paragraph begins with the rule's level ("Severity: error ...",
//   "Severity: warning ...", "Severity: note ...") and names no level above it.
// - The README's rule table has one row per rule, in code order: the page's link, the name,
//   and the summary (code spans unwrapped), which the README may follow with one remark in
//   parentheses ("(needs `--export-dims`)").
#include <catch2/catch.hpp>
#include <filesystem>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "rules/report_test_util.h"
#include "shapelint/lint/lint.h"
#include "test_files.h"
#include "tools/cli_test_util.h"

namespace shapelint::testing {
namespace {

constexpr char kModelName[] = "model.onnxtxt";
constexpr char kCommand[] = "$ onnx-shapelint ";

std::vector<std::string> Lines(const std::string& text) { return absl::StrSplit(text, '\n'); }

// The lines of the section that starts with `heading`, up to the next "## " heading.
std::vector<std::string> Section(const std::string& page, const std::string& heading) {
  std::vector<std::string> section;
  bool inside = false;
  for (const std::string& line : Lines(page)) {
    if (absl::StartsWith(line, "## ")) inside = line == heading;
    if (inside) section.push_back(line);
  }
  return section;
}

// The fenced code blocks among `lines`, each as its lines without the fences.
std::vector<std::vector<std::string>> CodeBlocks(const std::vector<std::string>& lines) {
  std::vector<std::vector<std::string>> blocks;
  bool inside = false;
  for (const std::string& line : lines) {
    if (absl::StartsWith(line, "```")) {
      if (!inside) blocks.emplace_back();
      inside = !inside;
    } else if (inside) {
      blocks.back().push_back(line);
    }
  }
  return blocks;
}

// `text` with every line that starts with four spaces joined to the line before it.
std::string Unwrap(const std::string& text) {
  std::string joined;
  for (const std::string& line : Lines(text)) {
    absl::string_view rest = line;
    if (!joined.empty() && absl::ConsumePrefix(&rest, "    ")) {
      joined.pop_back();  // the newline that ended the line it continues
      absl::StrAppend(&joined, " ", absl::StripLeadingAsciiWhitespace(rest), "\n");
    } else {
      absl::StrAppend(&joined, line, "\n");
    }
  }
  joined.pop_back();  // Lines() gave one line more than there were newlines
  return joined;
}

struct Example {
  std::string model;    // ONNX text format
  std::string command;  // "$ onnx-shapelint ... model.onnxtxt", unwrapped
  std::string output;   // what the page shows the tool printing, unwrapped
};

// The page's examples: each output block with the model block before it.
std::vector<Example> Examples(const std::string& page) {
  constexpr char kUnpaired[] =
      "a model block with no output block after it (one whose first line is \"$ onnx-shapelint "
      "... model.onnxtxt\")";
  std::vector<Example> examples;
  std::string model;
  for (const std::vector<std::string>& block : CodeBlocks(Section(page, "## Example"))) {
    std::string text = absl::StrCat(absl::StrJoin(block, "\n"), "\n");
    if (!absl::StartsWith(text, kCommand)) {
      if (!model.empty()) FAIL_CHECK(kUnpaired << ":\n" << model);
      model = text;
      continue;
    }
    if (model.empty()) {
      FAIL_CHECK("an output block with no model block before it:\n" << text);
      continue;
    }
    text = Unwrap(text);
    const size_t end = text.find('\n');
    examples.push_back({model, text.substr(0, end), text.substr(end + 1)});
    model.clear();
  }
  if (!model.empty()) FAIL_CHECK(kUnpaired << ":\n" << model);
  return examples;
}

void CheckExample(const Example& example) {
  INFO(example.command);
  std::vector<std::string> options =
      absl::StrSplit(example.command.substr(sizeof(kCommand) - 1), ' ', absl::SkipEmpty());
  if (options.empty() || options.back() != kModelName) {
    FAIL_CHECK("the command must end with the model, named " << kModelName);
    return;
  }
  options.pop_back();
  cli::TempDir dir;
  const fs::path model = dir.Write(kModelName, example.model);
  Report report = RunOnModel(options, model, kModelName);
  INFO((report.err.empty() ? "" : "standard error:\n" + report.err));
  const std::string printed = Unwrap(report.out);
  if (printed != example.output) {
    FAIL_CHECK("the page shows (-), the tool prints (+), lines unwrapped:\n"
               << LineDiff(example.output, printed));
  }
}

std::string RulePage(const lint::RuleInfo& rule) {
  return ReadFile(fs::path(SHAPELINT_SOURCE_DIR) / "docs" / "rules" /
                  absl::StrCat(std::string(rule.code), ".md"));
}

TEST_CASE("every rule page's Example shows what the tool prints", "[rules][docs]") {
  for (const lint::RuleInfo& rule : lint::AllRules()) {
    INFO("docs/rules/" << rule.code << ".md");
    const std::vector<Example> examples = Examples(RulePage(rule));
    if (examples.empty()) FAIL_CHECK("no example: \"## Example\" shows no model and output");
    for (const Example& example : examples) CheckExample(example);
  }
}

// The paragraph that starts with "Severity:", on one line.
std::string SeverityParagraph(const std::string& page) {
  std::vector<std::string> lines;
  for (const std::string& line : Lines(page)) {
    if (lines.empty() && !absl::StartsWith(line, "Severity:")) continue;
    if (line.empty()) break;
    lines.push_back(line);
  }
  return absl::StrJoin(lines, " ");
}

TEST_CASE("every rule page's Severity line starts with the rule's level", "[rules][docs]") {
  constexpr lint::Severity kLevels[] = {lint::Severity::kNote, lint::Severity::kWarning,
                                        lint::Severity::kError};
  for (const lint::RuleInfo& rule : lint::AllRules()) {
    const std::string level(lint::SeverityName(rule.level));
    const std::string paragraph = SeverityParagraph(RulePage(rule));
    INFO("docs/rules/" << rule.code << ".md: " << paragraph);
    INFO("rules/rules.def gives " << rule.code << " the level " << level);
    absl::string_view rest = paragraph;
    if (!absl::ConsumePrefix(&rest, "Severity: " + level) ||
        !(rest.empty() || rest.front() == ' ' || rest.front() == '.' || rest.front() == ',')) {
      FAIL_CHECK("the paragraph must start with \"Severity: " << level << "\"");
    }
    // A level above the rule's own would be a level it never reports at.
    for (lint::Severity above : kLevels) {
      if (static_cast<int>(above) <= static_cast<int>(rule.level)) continue;
      const std::string name(lint::SeverityName(above));
      INFO("names the level " << name << ", above the rule's");
      CHECK_FALSE(absl::StrContains(paragraph, name));
    }
  }
}

// The rows of the README's table with the header "| code | name | what |", as cells.
std::vector<std::vector<std::string>> RuleTable(const std::string& readme) {
  std::vector<std::vector<std::string>> rows;
  bool inside = false;
  for (const std::string& line : Lines(readme)) {
    if (line == "| code | name | what |") {
      inside = true;
    } else if (inside && absl::StartsWith(line, "|---")) {
      continue;
    } else if (inside && absl::StartsWith(line, "| ")) {
      std::vector<std::string> cells = absl::StrSplit(line, '|');
      // "| a | b |" splits into "", " a ", " b ", "".
      std::vector<std::string> row(cells.begin() + 1, cells.end() - 1);
      for (std::string& cell : row) cell = std::string(absl::StripAsciiWhitespace(cell));
      rows.push_back(row);
    } else if (inside) {
      break;
    }
  }
  return rows;
}

void CheckRow(const std::vector<std::string>& row, const lint::RuleInfo& rule) {
  const std::string code(rule.code);
  INFO("README.md: | " << absl::StrJoin(row, " | ") << " |");
  INFO("rules/rules.def: " << code << " \"" << rule.name << "\" \"" << rule.summary << "\"");
  CHECK(row[0] == absl::StrCat("[", code, "](docs/rules/", code, ".md)"));
  CHECK(row[1] == absl::StrCat("`", std::string(rule.name), "`"));
  const std::string summary = absl::StrReplaceAll(row[2], {{"`", ""}});
  absl::string_view remark = summary;
  if (!absl::ConsumePrefix(&remark, std::string(rule.summary))) {
    FAIL_CHECK("the summary is not rules.def's");
  } else if (!remark.empty()) {
    // Past the summary, at most one remark in parentheses.
    INFO("after the summary: '" << remark << "'");
    CHECK((absl::StartsWith(remark, " (") && absl::EndsWith(remark, ")") &&
           remark.find('(', 2) == remark.npos));
  }
}

TEST_CASE("the README's rule table gives every rule as rules.def does", "[rules][docs]") {
  const auto rows = RuleTable(ReadFile(fs::path(SHAPELINT_SOURCE_DIR) / "README.md"));
  const std::vector<lint::RuleInfo>& rules = lint::AllRules();
  // The codes first, so that a missing or extra row is reported as that, not as a mismatch in
  // every row after it.
  std::vector<std::string> listed, registered;
  for (const auto& row : rows) {
    listed.push_back(row.size() == 3 ? row[0] : absl::StrJoin(row, " | "));
  }
  for (const lint::RuleInfo& rule : rules) {
    const std::string code(rule.code);
    registered.push_back(absl::StrCat("[", code, "](docs/rules/", code, ".md)"));
  }
  INFO("the table's rows must be the rules of rules/rules.def, in its order");
  REQUIRE(absl::StrJoin(listed, "\n") == absl::StrJoin(registered, "\n"));
  for (size_t i = 0; i < rules.size(); ++i) CheckRow(rows[i], rules[i]);
}

}  // namespace
}  // namespace shapelint::testing
