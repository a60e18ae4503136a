// The engine behind lint::Lint: which rules run, in which order they claim, and the levels
// they may report at, on a registry of rules made up for the test.
#include <catch2/catch.hpp>
#include <memory>
#include <string>
#include <vector>

#include "lint/rule.h"
#include "lint/selection.h"
#include "shapelint/ir/load.h"
#include "shapelint/lint/lint.h"

namespace shapelint::lint {
namespace {

// A pool baked at 6x6 (SL001's README example): one failure to claim, declared output y.
const char kModel[] = R"(<ir_version: 8, opset_import: ["" : 17]>
g (float[N,C,H,W] x) => (float[N,C,2,3] y) {
  y = AveragePool <kernel_shape = [3, 2], strides = [3, 2]> (x)
}
)";

std::unique_ptr<ir::Model> Load() {
  auto model = ir::LoadModelFromBytes(kModel, "engine.onnxtxt", ir::ModelFormat::kText);
  REQUIRE(model.ok());
  return *std::move(model);
}

// Claims every node it is offered, and reports each cause it owns with `evidence` (and, for an
// error's evidence, a counterexample, which the severity policy asks of an error).
class Greedy : public Rule {
 public:
  Greedy(const RuleInfo& info, Evidence evidence) : Rule(info), evidence_(evidence) {}
  bool ClaimsNode(const BlameSite&, int) const override { return true; }
  void Check(const Analysis& analysis, std::vector<Finding>& out) const override {
    for (const Cause& cause : analysis.causes()) {
      if (!Owns(cause)) continue;
      Finding f = FindingAt(analysis, *cause.graph, cause.node, evidence_, "mine");
      if (evidence_ == Evidence::kContradiction) f.counterexample = Counterexample{};
      out.push_back(std::move(f));
    }
  }

 private:
  Evidence evidence_;
};

std::unique_ptr<Rule> MakeErrorRule(const RuleInfo& info) {
  return std::make_unique<Greedy>(info, Evidence::kContradiction);
}
std::unique_ptr<Rule> MakeNoteRule(const RuleInfo& info) {
  return std::make_unique<Greedy>(info, Evidence::kDesign);
}

const std::vector<RuleFactory> kRegistry = {
    {{"XY001", "first-claimer", "claims everything", Severity::kError}, MakeErrorRule},
    {{"XY002", "second-claimer", "claims everything too", Severity::kError}, MakeErrorRule},
    {{"XY003", "quiet-one", "claims everything, notes only", Severity::kNote}, MakeNoteRule},
};

std::vector<std::string> Rules(const std::vector<Finding>& findings) {
  std::vector<std::string> rules;
  for (const Finding& f : findings) rules.push_back(f.rule);
  return rules;
}

TEST_CASE("engine: the first rule that runs claims; the next takes over when it does not run",
          "[lint][engine]") {
  auto model = Load();
  LintOptions options;
  auto all = RunRules(*model, options, kRegistry);
  REQUIRE(all.ok());
  CHECK(Rules(*all) == std::vector<std::string>{"XY001"});
  options.ignore = {"XY001"};
  auto without_first = RunRules(*model, options, kRegistry);
  REQUIRE(without_first.ok());
  CHECK(Rules(*without_first) == std::vector<std::string>{"XY002"});
  options.ignore = {"XY00"};  // a prefix: every rule
  auto none = RunRules(*model, options, kRegistry);
  REQUIRE(none.ok());
  CHECK(none->empty());
}

TEST_CASE("engine: unset selects every rule, an empty list none", "[lint][engine]") {
  auto model = Load();
  LintOptions options;
  options.select = std::vector<std::string>{};
  auto none = RunRules(*model, options, kRegistry);
  REQUIRE(none.ok());
  CHECK(none->empty());
  options.select = std::vector<std::string>{"second-claimer", "xy003"};
  auto two = RunRules(*model, options, kRegistry);
  REQUIRE(two.ok());
  CHECK(Rules(*two) == std::vector<std::string>{"XY002"});
}

TEST_CASE("engine: a selector that names no rule is an error", "[lint][engine]") {
  auto model = Load();
  for (const char* selector : {"XY9", "nope", "X"}) {
    INFO(selector);
    LintOptions options;
    options.select = std::vector<std::string>{selector};
    auto selected = RunRules(*model, options, kRegistry);
    CHECK(selected.status().code() == absl::StatusCode::kInvalidArgument);
    CHECK_THAT(std::string(selected.status().message()), Catch::Contains("names no rule"));
    options.select.reset();
    options.ignore = {selector};
    CHECK_FALSE(RunRules(*model, options, kRegistry).ok());
  }
}

TEST_CASE("engine: a rule that reports above its level is a bug, not a finding", "[lint][engine]") {
  auto model = Load();
  const std::vector<RuleFactory> registry = {
      {{"XY004", "loud-one", "says note, reports errors", Severity::kNote}, MakeErrorRule}};
  auto linted = RunRules(*model, {}, registry);
  CHECK(linted.status().code() == absl::StatusCode::kInternal);
  CHECK_THAT(std::string(linted.status().message()),
             Catch::Contains("XY004 reported error 'mine', above its level note"));
}

TEST_CASE("selectors: codes, names, prefixes and ALL, in any case", "[lint][engine]") {
  const std::vector<RuleInfo> rules = {kRegistry[0].info, kRegistry[1].info, kRegistry[2].info};
  CHECK(CodesMatching(rules, "ALL") == std::vector<std::string>{"XY001", "XY002", "XY003"});
  CHECK(CodesMatching(rules, "xy00") == std::vector<std::string>{"XY001", "XY002", "XY003"});
  CHECK(CodesMatching(rules, "XY002") == std::vector<std::string>{"XY002"});
  CHECK(CodesMatching(rules, "Quiet-One") == std::vector<std::string>{"XY003"});
  CHECK(CodesMatching(rules, "X").empty());  // one letter is no prefix
  CHECK(CodesMatching(rules, "XY0021").empty());
  CHECK(CodesMatching(rules, "").empty());
}

// The library's own registry takes what the command line takes.
TEST_CASE("lint::Lint takes prefixes and ALL like --select", "[lint][engine]") {
  auto model = Load();
  LintOptions options;
  options.select = std::vector<std::string>{"SL00"};
  auto prefix = Lint(*model, options);
  REQUIRE(prefix.ok());
  CHECK(Rules(*prefix) == std::vector<std::string>{"SL001"});
  options.select = std::vector<std::string>{"SL99"};
  CHECK_FALSE(Lint(*model, options).ok());
}

}  // namespace
}  // namespace shapelint::lint
