// Configuration files, suppressions and baselines, through the command line.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "shapelint/lint/config.h"
#include "tools/cli_test_util.h"

namespace shapelint::cli {
namespace {

using Catch::Matchers::Contains;

const std::string kPool = SHAPELINT_SOURCE_DIR "/tests/corpus/torch/adaptive_avg_pool2d.onnx";
// x[..., :5] with W = 10 at export: an SL007 warning when told the export dims.
const std::string kHalf =
    SHAPELINT_SOURCE_DIR "/tests/rules/SL007/slice_half_width_no_export_dims.onnxtxt";

// A repository: root/.onnx-shapelint.json (or pyproject.toml) and models in root/models/...
struct Repo {
  TempDir dir;
  std::string pool, nested_pool, half;
  Repo() {
    fs::create_directories(dir.path() / "models" / "legacy");
    pool = dir.Write("models/pool.onnx", ReadFile(kPool));
    nested_pool = dir.Write("models/legacy/pool.onnx", ReadFile(kPool));
    half = dir.Write("models/half.onnxtxt", ReadFile(kHalf));
  }
};

TEST_CASE("config: the nearest file applies, per-path entries and the command line on top",
          "[cli][config]") {
  Repo repo;
  repo.dir.Write(".onnx-shapelint.json", R"({
    // comments are allowed
    "fail-on": "warning",
    "export-dims": "x=2x4x8x10",
    "per-path": { "models/legacy/**": { "ignore": ["baked-pool-kernel", "SL003"] } }
  })");
  // pool.onnx: the SL001 error; legacy/pool.onnx: ignored there, with SL003, which would report
  // the output contradiction instead; half: SL007 warning, which fails the run under
  // fail-on = warning.
  Outcome o = RunCli({"--format", "json", repo.pool, repo.nested_pool});
  INFO(o.out << o.err);
  CHECK(o.code == kExitFindings);
  const auto doc = nlohmann::json::parse(o.out);
  CHECK(doc["models"][0]["findings"].size() == 1);
  CHECK(doc["models"][1]["findings"].empty());
  Outcome half = RunCli({repo.half});
  CHECK(half.code == kExitFindings);
  CHECK_THAT(half.out, Contains("warning[SL007]"));
  // The command line wins: --fail-on error makes the warning pass.
  CHECK(RunCli({"--fail-on", "error", repo.half}).code == kExitClean);
  // --isolated: no export dims, no warning.
  CHECK_THAT(RunCli({"--isolated", "--fail-on=warning", repo.half}).out, !Contains("SL007"));
  // A closer file wins over a farther one.
  repo.dir.Write("models/legacy/.onnx-shapelint.json", R"({"select": ["SL002"]})");
  CHECK(RunCli({repo.nested_pool}).code == kExitClean);
}

TEST_CASE("config: pyproject.toml's [tool.onnx-shapelint] table", "[cli][config]") {
  Repo repo;
  repo.dir.Write("pyproject.toml", R"(
[project]
name = "models"

[tool.onnx-shapelint]
# SL003 too: without SL001 it would report the declared output the pool contradicts.
ignore = ["SL001", "declared-shape-mismatch"]

[[tool.onnx-shapelint.suppress]]
rule = "SL007"
node = "<Slice #3>"
reason = "the first five features are meant"
)");
  CHECK(RunCli({repo.pool}).code == kExitClean);
  Outcome o = RunCli({"--fail-on", "warning", "--export-dims", "x=2x4x8x10", repo.half});
  INFO(o.out);
  CHECK(o.code == kExitClean);
  CHECK_THAT(o.out, !Contains("SL007"));
  // A pyproject.toml without the table is no configuration: the search goes on upwards.
  repo.dir.Write("models/pyproject.toml", "[project]\nname = \"inner\"\n");
  CHECK(RunCli({repo.pool}).code == kExitClean);
}

TEST_CASE("config: mistakes are errors that name the file and the key", "[cli][config]") {
  struct Case {
    const char* text;
    const char* message;
  };
  const Case cases[] = {
      {R"({"selekt": ["SL001"]})", "selekt: unknown key"},
      {R"({"select": ["SL999"]})", "select: unknown rule 'SL999'"},
      {R"({"fail-on": "fatal"})", "fail-on: expected \"error\", \"warning\" or \"note\""},
      {R"({"export-dims": "x=2xQ"})", "export-dims: invalid size"},
      {R"({"per-path": {"a/*": {"per-path": {}}}})", "per-path.\"a/*\".per-path: unknown key"},
      {R"({"suppress": [{"rule": "SL001"}]})", "suppress[0]: needs \"rule\" and \"node\""},
      {R"({"export-dims": "n=1..4"})",
       "export-dims: invalid size 'n=1..4' (expected NAME=SIZE or INPUT=AxBxC: a size, not a "
       "range)"},
      {R"({"static": {"batch": -1}})", "static.batch: invalid size -1 for 'batch' (expected >= 0)"},
      {R"({"static": {"batch": "1"}})", "static.batch: expected a size"},
      {R"([1, 2])", "top level: expected an object"},
      {R"({"select": )", "not valid JSON"},
  };
  for (const Case& c : cases) {
    Repo repo;
    const std::string config = repo.dir.Write(".onnx-shapelint.json", c.text);
    Outcome o = RunCli({repo.pool});
    INFO(c.text << "\n" << o.out << o.err);
    CHECK(o.code == kExitError);
    CHECK_THAT(o.out, Contains("configuration: " + config + ": "));
    CHECK_THAT(o.out, Contains(c.message));
  }
  Repo repo;
  const std::string bad_toml = repo.dir.Write("pyproject.toml", "[tool.onnx-shapelint\n");
  Outcome o = RunCli({repo.pool});
  CHECK(o.code == kExitError);
  CHECK_THAT(o.out, Contains(bad_toml + ": line 1"));
}

TEST_CASE("config: a finder over many models answers as FindConfig does", "[config]") {
  TempDir dir;
  for (const char* sub : {"a", "b/c/d", "b/c/x", "e/f"}) fs::create_directories(dir.path() / sub);
  const std::string root = dir.Write(".onnx-shapelint.json", R"({"select": ["SL002"]})");
  const std::string inner = dir.Write("b/c/d/.onnx-shapelint.json", R"({"ignore": ["SL001"]})");
  dir.Write("b/c/pyproject.toml", "[project]\nname = \"no table\"\n");
  const std::string broken = dir.Write("e/.onnx-shapelint.json", "{");
  // Sibling and nested models, in an order that finds the cached directories from below.
  const std::vector<std::string> models = {
      dir.Write("a/m.onnx", ""),     dir.Write("a/n.onnx", ""),     dir.Write("b/c/m.onnx", ""),
      dir.Write("b/c/d/m.onnx", ""), dir.Write("b/c/x/m.onnx", ""), dir.Write("b/m.onnx", ""),
      dir.Write("e/f/m.onnx", ""),   dir.Write("e/m.onnx", "")};
  const std::vector<std::string> expected = {root, root, root, inner, root, root, broken, broken};
  lint::ConfigFinder finder;
  for (size_t i = 0; i < models.size(); ++i) {
    INFO(models[i]);
    auto direct = lint::FindConfig(models[i]);
    auto shared = finder.Find(models[i]);
    REQUIRE(direct.ok() == shared.ok());
    if (!direct.ok()) {
      CHECK_THAT(std::string(shared.status().message()), Contains(broken));
      CHECK(shared.status() == direct.status());
      continue;
    }
    REQUIRE(*direct);
    REQUIRE(*shared != nullptr);
    CHECK((*direct)->file == expected[i]);
    CHECK((*shared)->file == expected[i]);
  }
  // Each file was read once: the finder hands out the same configuration to every model under
  // it.
  auto first = finder.Find(models[0]);
  auto again = finder.Find(models[5]);
  REQUIRE(first.ok());
  REQUIRE(again.ok());
  CHECK(first->get() == again->get());
}

TEST_CASE("baseline: written once, then only new findings fail", "[cli][config]") {
  Repo repo;
  const std::string baseline = (repo.dir.path() / "baseline.json").string();
  Outcome write = RunCli({"--write-baseline", baseline, repo.pool});
  INFO(write.out << write.err);
  CHECK(write.code == kExitClean);
  CHECK_THAT(write.out, Contains("error[SL001]"));  // the report is still printed
  const auto doc = nlohmann::json::parse(ReadFile(baseline));
  CHECK(doc["baseline_version"] == 1);
  REQUIRE(doc["findings"].size() == 1);
  CHECK(doc["findings"][0]["path"] == "models/pool.onnx");
  CHECK(doc["findings"][0]["rule"] == "SL001");
  CHECK(doc["findings"][0]["count"] == 1);
  // The recorded finding no longer fails; the same finding in another model is new.
  CHECK(RunCli({"--baseline", baseline, repo.pool}).code == kExitClean);
  Outcome both = RunCli({"--baseline", baseline, repo.pool, repo.nested_pool});
  CHECK(both.code == kExitFindings);
  CHECK_THAT(both.out, Contains("1 error, 0 warnings in 2 models"));
  // A file that is not a baseline is an error, not an empty baseline.
  const std::string bogus = repo.dir.Write("bogus.json", R"({"findings": []})");
  Outcome bad = RunCli({"--baseline", bogus, repo.pool});
  CHECK(bad.code == kExitError);
  CHECK_THAT(bad.err, Contains("not a baseline"));
}

TEST_CASE("config: globs", "[config]") {
  using lint::GlobMatch;
  CHECK(GlobMatch("models/*.onnx", "models/a.onnx"));
  CHECK_FALSE(GlobMatch("models/*.onnx", "models/sub/a.onnx"));
  CHECK(GlobMatch("models/**/*.onnx", "models/a.onnx"));
  CHECK(GlobMatch("models/**/*.onnx", "models/sub/deep/a.onnx"));
  CHECK(GlobMatch("**", "anything/at/all"));
  CHECK(GlobMatch("legacy/**", "legacy/x/y.onnx"));
  CHECK_FALSE(GlobMatch("legacy/**", "other/legacy/y.onnx"));
  CHECK(GlobMatch("m?del.onnx", "model.onnx"));
  CHECK_FALSE(GlobMatch("m?del.onnx", "m/del.onnx"));
}

}  // namespace
}  // namespace shapelint::cli
