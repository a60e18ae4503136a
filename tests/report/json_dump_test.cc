// One policy for text that is not UTF-8 in every JSON document the tool writes
// (lib/report/json_dump.h): each invalid sequence becomes U+FFFD, and no writer throws.
#include "report/json_dump.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "sample_results.h"
#include "shapelint/infer/engine.h"
#include "shapelint/ir/load.h"
#include "shapelint/lint/probe.h"
#include "shapelint/report/baseline.h"
#include "shapelint/report/probe.h"
#include "shapelint/report/report.h"
#include "shapelint/report/shapes.h"
#include "shapelint/sym/expr.h"
#include "test_files.h"

namespace shapelint::report {
namespace {

using nlohmann::json;

constexpr char kReplacement[] = "\xef\xbf\xbd";  // U+FFFD in UTF-8

// The adaptive pool of tests/corpus/torch, its node named "/AveragePoo\xff".
const std::string kModelPath =
    SHAPELINT_SOURCE_DIR "/tests/fuzz/regressions/model/node_name_not_utf8.onnx";
const std::string kNodeName = "/AveragePoo\xff";
const std::string kNodeNameAsWritten = std::string("/AveragePoo") + kReplacement;

std::unique_ptr<ir::Model> NotUtf8Model() {
  auto model = ir::LoadModelFromBytes(::shapelint::testing::ReadFile(kModelPath), kModelPath);
  REQUIRE(model.ok());
  REQUIRE((*model)->graph().NodeLabel(0) == kNodeName);
  return *std::move(model);
}

// One model with a finding at a node whose name is not UTF-8.
std::vector<ModelResult> NotUtf8Results() {
  std::vector<ModelResult> results(1);
  results[0].path = "models/pool\xff.onnx";
  lint::Finding f = testing::PoolError();
  f.rule = "SL\xff";
  f.name = "name\xc3";  // a truncated two-byte sequence
  f.node.name = f.node.label = kNodeName;
  f.counterexample->failing_node = f.node;
  results[0].findings = {f};
  return results;
}

TEST_CASE("json dump: invalid sequences become U+FFFD, the rest stays", "[report][utf8]") {
  CHECK(AsWrittenInJson("plain") == "plain");
  CHECK(AsWrittenInJson("caf\xc3\xa9") == "caf\xc3\xa9");  // valid UTF-8 is kept as it is
  CHECK(AsWrittenInJson("a\xff"
                        "b") == std::string("a") + kReplacement + "b");
  CHECK(AsWrittenInJson("a\xc3") == std::string("a") + kReplacement);
  CHECK(AsWrittenInJson("quote \" and \\ and \n") == "quote \" and \\ and \n");
  Json doc = Json::object();
  doc["name"] =
      "a\xff"
      "b";
  CHECK(DumpJson(doc, kJsonOneLine) == std::string("{\"name\":\"a") + kReplacement + "b\"}");
  CHECK(DumpJson(doc) == std::string("{\n  \"name\": \"a") + kReplacement + "b\"\n}");
}

TEST_CASE("json dump: --format json and sarif", "[report][utf8]") {
  std::ostringstream json_text, sarif_text;
  REQUIRE_NOTHROW(WriteJson(NotUtf8Results(), json_text));
  REQUIRE_NOTHROW(WriteSarif(NotUtf8Results(), sarif_text));
  const json doc = json::parse(json_text.str());
  CHECK(doc["models"][0]["findings"][0]["node"]["name"] == kNodeNameAsWritten);
  CHECK(doc["models"][0]["findings"][0]["rule"] == std::string("SL") + kReplacement);
  const json log = json::parse(sarif_text.str());
  CHECK(log["runs"][0]["results"][0]["ruleId"] == std::string("SL") + kReplacement);
}

TEST_CASE("json dump: --statistics --format json", "[report][utf8]") {
  std::ostringstream out;
  REQUIRE_NOTHROW(WriteStatisticsJson(NotUtf8Results(), out));
  const json doc = json::parse(out.str());
  CHECK(doc["statistics"][0]["rule"] == std::string("SL") + kReplacement);
  CHECK(doc["statistics"][0]["name"] == std::string("name") + kReplacement);
}

TEST_CASE("json dump: a baseline is written, and matches the findings it recorded",
          "[report][utf8]") {
  ::shapelint::testing::TempDir dir;
  const std::string path = (dir.path() / "baseline.json").string();
  const Baseline baseline = Baseline::Of(NotUtf8Results(), path);
  std::string text;
  REQUIRE_NOTHROW(text = baseline.ToJson());
  const json doc = json::parse(text);
  CHECK(doc["findings"][0]["node"] == "main/" + kNodeNameAsWritten);
  CHECK_THAT(doc["findings"][0]["path"].get<std::string>(),
             Catch::Matchers::EndsWith(std::string("models/pool") + kReplacement + ".onnx"));

  absl::StatusOr<Baseline> read = Baseline::Read(dir.Write("baseline.json", text));
  REQUIRE(read.ok());
  std::vector<ModelResult> again = NotUtf8Results();
  CHECK(read->Filter(again) == 1);
  CHECK(again[0].findings.empty());
}

TEST_CASE("json dump: probe --format json", "[report][utf8]") {
  const std::unique_ptr<ir::Model> model = NotUtf8Model();
  lint::ProbeSpec spec;
  spec.shapes = {{"x", {2, 3, 8, 9}}};
  auto probes = lint::Probe(*model, {{"x=2x3x8x9", spec}});
  REQUIRE(probes.ok());
  REQUIRE((*probes)[0].breaks);
  std::ostringstream out;
  REQUIRE_NOTHROW(WriteProbeJson({{.path = kModelPath, .probes = *probes}}, out));
  const json doc = json::parse(out.str());
  CHECK(doc["models"][0]["probes"][0]["at"]["failing_node"]["label"] == kNodeNameAsWritten);
}

TEST_CASE("json dump: shapes --format json", "[report][utf8]") {
  const std::unique_ptr<ir::Model> model = NotUtf8Model();
  sym::InternScope scope;
  const infer::Inference inference = infer::Infer(*model);
  std::ostringstream out;
  REQUIRE_NOTHROW(WriteShapesJson({{kModelPath, model.get(), &inference, nullptr}}, out));
  const json doc = json::parse(out.str());
  CHECK(doc["models"][0]["values"][1]["producer"] == kNodeNameAsWritten);
}

}  // namespace
}  // namespace shapelint::report
