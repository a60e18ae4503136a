// Rules are independent: switching one off changes nothing the others report, and what it
// would have claimed goes to the next rule that runs (rules/rules.def's order) or, for a
// declared shape the graph contradicts, to SL003. Checked on every rule fixture, for every rule
// that fires there: --select CODE alone and --ignore CODE against all rules on.
#include <catch2/catch.hpp>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "report_test_util.h"
#include "shapelint/ir/load.h"
#include "shapelint/lint/lint.h"
#include "shapelint/lint/probe.h"

namespace shapelint::lint {
namespace {

namespace fs = std::filesystem;

// A finding as these checks compare it: everything the text report prints of it.
std::string Whole(const Finding& f) {
  std::string text = absl::StrCat(f.rule, " ", std::string(SeverityName(f.severity)), " ",
                                  f.node.graph, "/", f.node.label, ": ", f.message);
  if (f.witness) absl::StrAppend(&text, "\n  witness: ", f.witness->summary);
  if (f.counterexample) absl::StrAppend(&text, "\n  counterexample: ", f.counterexample->failure);
  for (const Note& n : f.notes) absl::StrAppend(&text, "\n  note: ", n.message);
  return text;
}

// Where a finding is: its rule and node.
std::string Place(const Finding& f) {
  return absl::StrCat(f.rule, " ", f.node.graph, "/", f.node.label);
}

// True when the finding's counterexample shows a graph output that differs from its
// declaration: a contradiction that holds whichever rule explains it.
bool ContradictsOutput(const Finding& f) {
  if (!f.counterexample || f.counterexample->node_fails) return false;
  for (const ShapeAt& o : f.counterexample->outputs) {
    if (o.expected && *o.expected != o.actual) return true;
  }
  return false;
}

struct Run {
  std::vector<Finding> findings;
  std::vector<std::string> Whole(std::string_view rule) const {
    std::vector<std::string> out;
    for (const Finding& f : findings) {
      if (rule.empty() || f.rule == rule) out.push_back(lint::Whole(f));
    }
    return out;
  }
};

Run LintWith(const ir::Model& model, const std::string& export_dims,
             std::optional<std::vector<std::string>> select, std::vector<std::string> ignore) {
  LintOptions options;
  options.select = std::move(select);
  options.ignore = std::move(ignore);
  if (!export_dims.empty()) options.export_dims = *ParseProbeSpec(export_dims);
  auto findings = Lint(model, options);
  REQUIRE(findings.ok());
  return Run{*std::move(findings)};
}

// A rule fixture, linted with every rule on.
struct Fixture {
  std::unique_ptr<ir::Model> model;
  std::string export_dims;
  Run all;

  Run With(std::optional<std::vector<std::string>> select, std::vector<std::string> ignore) const {
    return LintWith(*model, export_dims, std::move(select), std::move(ignore));
  }
};

Fixture Load(const fs::path& file) {
  auto model = ir::LoadModel(file.string());
  REQUIRE(model.ok());
  Fixture fixture{*std::move(model), testing::FixtureExportDims(file), {}};
  fixture.all = fixture.With(std::nullopt, {});
  return fixture;
}

// True when another rule than `code` reported `f`'s node or dims with every rule on: what it
// claimed went to `code` when it ran alone.
bool HandedOver(const Finding& f, const Run& all, const std::string& code) {
  return std::any_of(all.findings.begin(), all.findings.end(), [&](const Finding& g) {
    const bool same_node = g.node.graph == f.node.graph && g.node.index == f.node.index;
    const bool same_dims = std::any_of(g.symbols.begin(), g.symbols.end(), [&](auto& s) {
      return std::find(f.symbols.begin(), f.symbols.end(), s) != f.symbols.end();
    });
    return g.rule != code && (same_node || same_dims);
  });
}

TEST_CASE("a rule selected alone reports what it reports with every rule on",
          "[rules][independence]") {
  for (const fs::path& file : testing::RuleFixtures()) {
    const Fixture fixture = Load(file);
    const Run& all = fixture.all;
    for (const RuleInfo& rule : AllRules()) {
      const std::string code(rule.code);
      INFO(file.filename().string() << " --select " << code);
      const Run alone = fixture.With(std::vector<std::string>{code}, {});
      const std::vector<std::string> expected = all.Whole(code);
      const std::vector<std::string> actual = alone.Whole("");
      // Everything CODE reported, unchanged; or, at the same node, grown by what another rule
      // claimed with all on (SL010 states each relation of a node no other rule claims in one
      // note: alone, it states those too).
      for (const Finding& e : all.findings) {
        if (e.rule != code) continue;
        const std::string f = lint::Whole(e);
        if (std::find(actual.begin(), actual.end(), f) != actual.end()) continue;
        const bool grown = std::any_of(alone.findings.begin(), alone.findings.end(), [&](auto& g) {
          return Place(g) == Place(e) && HandedOver(g, all, code);
        });
        INFO("missing:\n" << f << "\ngot:\n" << absl::StrJoin(actual, "\n"));
        CHECK(grown);
      }
      // More only where another rule reported with all on (at the same node, or about the same
      // dims): what it claimed came to CODE.
      for (const Finding& f : alone.findings) {
        if (std::find(expected.begin(), expected.end(), lint::Whole(f)) != expected.end()) {
          continue;
        }
        INFO("new finding:\n" << lint::Whole(f));
        CHECK(HandedOver(f, all, code));
      }
    }
  }
}

TEST_CASE("an ignored rule leaves the others' findings and hands contradictions on",
          "[rules][independence]") {
  for (const fs::path& file : testing::RuleFixtures()) {
    const Fixture fixture = Load(file);
    const Run& all = fixture.all;
    std::set<std::string> fired;
    for (const Finding& f : all.findings) fired.insert(f.rule);
    for (const std::string& code : fired) {
      INFO(file.filename().string() << " --ignore " << code);
      const Run without = fixture.With(std::nullopt, {code});
      std::set<std::string> places;
      for (const Finding& f : without.findings) {
        CHECK(f.rule != code);
        places.insert(Place(f));
      }
      for (const Finding& f : all.findings) {
        if (f.rule != code) {
          INFO("lost: " << lint::Whole(f));
          CHECK(places.contains(Place(f)));
        } else if (ContradictsOutput(f) && code != "SL003") {
          // The declared output stays contradicted: an error says so, at the same sizes.
          INFO("no error for: " << lint::Whole(f));
          CHECK(std::any_of(without.findings.begin(), without.findings.end(), [](const auto& g) {
            return g.severity == Severity::kError && ContradictsOutput(g);
          }));
        }
      }
    }
  }
}

}  // namespace
}  // namespace shapelint::lint
