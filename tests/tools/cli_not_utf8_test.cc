// A model whose node name is not UTF-8, through every command that writes JSON: each writes
// U+FFFD in its place (docs/json-format.md) instead of failing.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tools/cli_test_util.h"

namespace shapelint::cli {
namespace {

// The adaptive pool of tests/corpus/torch, its node named "/AveragePoo\xff".
const std::string kModel =
    SHAPELINT_SOURCE_DIR "/tests/fuzz/regressions/model/node_name_not_utf8.onnx";
const std::string kNodeAsWritten = "/AveragePoo\xef\xbf\xbd";

nlohmann::json Parse(const Outcome& o) {
  INFO(o.out << o.err);
  CHECK(o.err.empty());
  return nlohmann::json::parse(o.out);
}

TEST_CASE("not UTF-8: --write-baseline writes it, --baseline then matches it", "[cli][utf8]") {
  TempDir dir;
  const std::string model = dir.Write("pool.onnx", ReadFile(kModel));
  const std::string baseline = (dir.path() / "baseline.json").string();
  Outcome written = RunCli({"--write-baseline", baseline, model});
  INFO(written.out << written.err);
  CHECK(written.code == kExitClean);
  CHECK(written.err.empty());
  const auto doc = nlohmann::json::parse(ReadFile(baseline));
  CHECK(doc["findings"][0]["node"] == "main/" + kNodeAsWritten);
  Outcome filtered = RunCli({"--baseline", baseline, model});
  CHECK(filtered.code == kExitClean);
  CHECK(filtered.out == "0 errors, 0 warnings in 1 model\n");
}

TEST_CASE("not UTF-8: probe, shapes and every report in JSON", "[cli][utf8]") {
  Outcome probe = RunCli({"probe", "--format", "json", "--dims", "x=2x3x8x9", kModel});
  CHECK(probe.code == kExitFindings);
  CHECK(Parse(probe)["models"][0]["probes"][0]["at"]["failing_node"]["label"] == kNodeAsWritten);
  Outcome shapes = RunCli({"shapes", "--format", "json", kModel});
  CHECK(shapes.code == kExitClean);
  CHECK(Parse(shapes)["models"][0]["values"][1]["producer"] == kNodeAsWritten);
  Outcome json = RunCli({"--format", "json", kModel});
  CHECK(json.code == kExitFindings);
  CHECK(Parse(json)["models"][0]["findings"][0]["node"]["label"] == kNodeAsWritten);
  Outcome sarif = RunCli({"--format", "sarif", kModel});
  CHECK(sarif.code == kExitFindings);
  CHECK(Parse(sarif)["runs"][0]["logicalLocations"][1]["name"] == kNodeAsWritten);
  Outcome statistics = RunCli({"--statistics", "--format", "json", kModel});
  CHECK(statistics.code == kExitFindings);
  CHECK(Parse(statistics)["statistics"][0]["rule"] == "SL001");
}

}  // namespace
}  // namespace shapelint::cli
