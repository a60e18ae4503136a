// Runs every rule fixture: tests/rules/<CODE>/*.onnxtxt. Each fixture states what it expects
// in comments, next to the model and to how the expectation was worked out:
//   # expect: <severity> <code> <value>   a finding on the node that produces <value>
//   # expect: none                         no finding at all (a lookalike)
//   # expect-text: <text>                  appears in a finding's message, witness, notes or
//                                          counterexample ("at B=2, T=9" and its failure)
//   # expect-no-text: <text>               appears in none of them (a note a lookalike must
//                                          not get)
//   # expect-output: <value> [dims] declared [dims]
//                                          the counterexample evaluates that graph output
//   # export-dims: <sizes>                 lint as with --export-dims <sizes>
// The findings must match the expect lines exactly: nothing missing, nothing extra.
#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "lint/analysis.h"
#include "rules/report_test_util.h"
#include "shapelint/ir/load.h"
#include "shapelint/lint/lint.h"

namespace shapelint::lint {
namespace {

namespace fs = std::filesystem;

struct Expectations {
  std::set<std::string> findings;  // "error SL001 y"
  std::vector<std::string> texts;
  std::vector<std::string> absent;
  std::vector<std::string> outputs;  // "y [2, 3, 3, 4] declared [2, 3, 2, 3]"
  std::string export_dims;
  bool none = false;
};

Expectations ReadExpectations(const fs::path& path) {
  Expectations e;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    absl::string_view l = line;
    if (absl::ConsumePrefix(&l, "# expect: ")) {
      if (l == "none") {
        e.none = true;
      } else {
        e.findings.insert(std::string(l));
      }
    } else if (absl::ConsumePrefix(&l, "# expect-text: ")) {
      e.texts.emplace_back(l);
    } else if (absl::ConsumePrefix(&l, "# expect-no-text: ")) {
      e.absent.emplace_back(l);
    } else if (absl::ConsumePrefix(&l, "# expect-output: ")) {
      e.outputs.emplace_back(l);
    } else if (absl::ConsumePrefix(&l, "# export-dims: ")) {
      e.export_dims = std::string(l);
    }
  }
  return e;
}

std::string FindingKey(const ir::Model& model, const Finding& f) {
  std::string value = "-";
  if (f.node.index >= 0 && f.node.graph == "main") {
    const auto& node = model.graph().node(f.node.index);
    if (node.output_size() > 0) value = node.output(0);
  }
  return absl::StrCat(std::string(SeverityName(f.severity)), " ", f.rule, " ", value);
}

std::string AllText(const Finding& f) {
  std::string t = f.message;
  if (f.witness) absl::StrAppend(&t, "\n", f.witness->summary);
  if (f.counterexample) {
    // "at B=2, T=9", as the text report prints the size it probed.
    std::vector<std::string> sizes;
    for (const auto& [s, v] : f.counterexample->binding) sizes.push_back(absl::StrCat(s, "=", v));
    absl::StrAppend(&t, "\nat ", absl::StrJoin(sizes, ", "), "\n", f.counterexample->failure);
  }
  for (const auto& n : f.notes) absl::StrAppend(&t, "\n", n.message);
  return t;
}

std::vector<std::string> OutputsOf(const Finding& f) {
  std::vector<std::string> out;
  if (!f.counterexample) return out;
  for (const auto& o : f.counterexample->outputs) {
    if (!o.expected) continue;
    out.push_back(
        absl::StrCat(o.value, " ", FormatDims(o.actual), " declared ", FormatDims(*o.expected)));
  }
  return out;
}

TEST_CASE("every rule fixture gives exactly the findings it expects", "[rules]") {
  auto files = testing::RuleFixtures();
  REQUIRE(files.size() >= 10);
  for (const fs::path& file : files) {
    DYNAMIC_SECTION(file.parent_path().filename().string() << "/" << file.filename().string()) {
      Expectations expected = ReadExpectations(file);
      REQUIRE((expected.none || !expected.findings.empty()));
      auto model = ir::LoadModel(file.string());
      REQUIRE(model.ok());
      LintOptions options;
      if (!expected.export_dims.empty()) {
        auto spec = ParseProbeSpec(expected.export_dims);
        REQUIRE(spec.ok());
        options.export_dims = *spec;
      }
      auto linted = Lint(**model, options);
      REQUIRE(linted.ok());
      const std::vector<Finding>& findings = *linted;

      std::set<std::string> actual;
      std::string text;
      std::vector<std::string> outputs;
      for (const Finding& f : findings) {
        actual.insert(FindingKey(**model, f));
        absl::StrAppend(&text, AllText(f), "\n");
        for (auto& o : OutputsOf(f)) outputs.push_back(o);
        // An error must be demonstrable.
        if (f.severity == Severity::kError) CHECK(f.counterexample.has_value());
      }
      INFO("findings:\n" << text);
      CHECK(absl::StrJoin(actual, "\n") == absl::StrJoin(expected.findings, "\n"));
      for (const std::string& t : expected.texts) {
        INFO("expected text: " << t);
        CHECK(absl::StrContains(text, t));
      }
      for (const std::string& t : expected.absent) {
        INFO("text expected absent: " << t);
        CHECK(!absl::StrContains(text, t));
      }
      for (const std::string& o : expected.outputs) {
        INFO("expected output: " << o << "\nactual outputs: " << absl::StrJoin(outputs, "; "));
        CHECK(std::find(outputs.begin(), outputs.end(), o) != outputs.end());
      }
    }
  }
}

// The rule catalogue stays complete: a registry line, a source file, a doc page with the
// four sections, and fixtures that fire and fixtures that stay silent, for every rule.
TEST_CASE("every rule has its source, doc page and firing and silent fixtures", "[rules]") {
  const fs::path root(SHAPELINT_SOURCE_DIR);
  std::set<std::string> codes;
  for (const RuleInfo& rule : AllRules()) {
    INFO("rule " << rule.code << " " << rule.name);
    CHECK(codes.insert(std::string(rule.code)).second);
    std::string file = std::string(rule.name);
    std::replace(file.begin(), file.end(), '-', '_');
    CHECK(fs::exists(root / "rules" / (file + ".cc")));
    fs::path doc = root / "docs" / "rules" / (std::string(rule.code) + ".md");
    REQUIRE(fs::exists(doc));
    std::ifstream in(doc);
    std::stringstream content;
    content << in.rdbuf();
    for (const char* section :
         {"## What it does", "## Why it matters", "## Example", "## How to fix"}) {
      CHECK(absl::StrContains(content.str(), section));
    }
    CHECK(absl::StrContains(content.str(), std::string(rule.name)));
    int firing = 0, silent = 0;
    fs::path dir = root / "tests" / "rules" / std::string(rule.code);
    REQUIRE(fs::is_directory(dir));
    for (const auto& entry : fs::directory_iterator(dir)) {
      // The golden reports beside the fixtures (report_goldens_test.cc) are no fixtures.
      if (entry.path().extension() != ".onnxtxt") continue;
      Expectations e = ReadExpectations(entry.path());
      (e.none ? silent : firing) += 1;
    }
    CHECK(firing >= 1);
    CHECK(silent >= 1);
  }
}

}  // namespace
}  // namespace shapelint::lint
