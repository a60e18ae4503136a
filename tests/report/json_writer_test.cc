#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_replace.h"
#include "sample_results.h"
#include "shapelint/lint/lint.h"
#include "shapelint/report/report.h"
#include "test_files.h"

namespace shapelint::report {
namespace {

using nlohmann::json;
using testing::SampleResults;

std::string JsonText(const std::vector<ModelResult>& results) {
  std::ostringstream out;
  WriteJson(results, out);
  return out.str();
}

json Parse(const std::vector<ModelResult>& results) { return json::parse(JsonText(results)); }

std::vector<std::string> Keys(const nlohmann::ordered_json& j) {
  std::vector<std::string> keys;
  for (const auto& item : j.items()) keys.push_back(item.key());
  return keys;
}

TEST_CASE("json: document header and summary", "[report][json]") {
  json doc = Parse(SampleResults());
  CHECK(doc["tool"]["name"] == "onnx-shapelint");
  CHECK(doc["tool"]["version"] == std::string(lint::Version()));
  CHECK(doc["schema_version"] == kJsonSchemaVersion);
  REQUIRE(doc["models"].size() == 4);
  CHECK(doc["summary"] ==
        json{{"models", 4}, {"errors", 1}, {"warnings", 1}, {"notes", 1}, {"load_errors", 1}});
}

TEST_CASE("json: models keep their order, path and load error", "[report][json]") {
  json models = Parse(SampleResults())["models"];
  CHECK(models[0]["path"] == "models/pool.onnx");
  CHECK(models[0]["error"].is_null());
  CHECK(models[0]["findings"].size() == 2);
  CHECK(models[1]["path"] == "missing.onnx");
  CHECK(models[1]["error"] == "no such file");
  CHECK(models[1]["findings"] == json::array());
  CHECK(models[2]["findings"] == json::array());
  CHECK(models[3]["path"] == "-");
}

TEST_CASE("json: an error finding with witness and counterexample", "[report][json]") {
  json f = Parse(SampleResults())["models"][0]["findings"][0];
  CHECK(f["rule"] == "SL001");
  CHECK(f["name"] == "baked-pool-kernel");
  CHECK(f["severity"] == "error");
  CHECK(f["node"] == json{{"name", ""},
                          {"op_type", "AveragePool"},
                          {"index", 0},
                          {"graph", "main"},
                          {"label", "<AveragePool #0>"}});
  CHECK(f["attribute"] == "kernel_shape");
  CHECK(f["symbols"] == json{"s2", "s3"});

  const json& w = f["witness"];
  CHECK(w["summary"] == "works only for s2 in [6, 8] and s3 in [6, 7]");
  REQUIRE(w["ranges"].size() == 2);
  CHECK(w["ranges"][1] == json{{"symbol", "s3"},
                               {"value", 6},
                               {"min", 6},
                               {"max", 7},
                               {"every", nullptr},
                               {"congruent_from", nullptr},
                               {"also", json::array()},
                               {"more", false}});
  CHECK(w["relations"] == json::array());

  const json& cx = f["counterexample"];
  CHECK(cx["binding"] == json{{"s0", 2}, {"s1", 3}, {"s2", 9}, {"s3", 8}});
  CHECK(cx["inputs"]["x"] == json{2, 3, 9, 8});
  CHECK(cx["failing_node"]["label"] == "<AveragePool #0>");
  CHECK(cx["failure"] == "output 'y' is [2, 3, 3, 4], declared [2, 3, 2, 3]");
  REQUIRE(cx["outputs"].size() == 1);
  CHECK(cx["outputs"][0] ==
        json{{"value", "y"}, {"actual", {2, 3, 3, 4}}, {"expected", {2, 3, 2, 3}}});

  REQUIRE(f["notes"].size() == 1);
  CHECK(f["notes"][0]["node"].is_null());
  CHECK(f["fix"] == "export with dynamo=True, or replace the adaptive pool by a fixed-size pool");
}

TEST_CASE("json: a range that repeats gives its period", "[report][json]") {
  std::vector<ModelResult> results = SampleResults();
  lint::Witness& w = *results[0].findings[0].witness;
  w.summary.clear();  // the writers build it from the ranges
  w.ranges[0].every = 64;
  w.ranges[0].congruent_from = 6;
  const json range = Parse(results)["models"][0]["findings"][0]["witness"]["ranges"][0];
  CHECK(range["every"] == 64);
  CHECK(range["congruent_from"] == 6);
  CHECK(range["min"] == 6);
  CHECK(range["max"] == 8);
}

TEST_CASE("json: absent parts are null, unbounded ranges too", "[report][json]") {
  json models = Parse(SampleResults())["models"];
  json warning = models[0]["findings"][1];
  CHECK(warning["severity"] == "warning");
  CHECK(warning["attribute"].is_null());
  CHECK(warning["counterexample"].is_null());
  CHECK(warning["witness"]["ranges"][0]["min"] == 1);
  CHECK(warning["witness"]["ranges"][0]["max"].is_null());
  CHECK(warning["witness"]["relations"] == json{"4*seq == 96"});
  CHECK(warning["notes"][0]["node"]["label"] == "shape_const");

  json note = models[3]["findings"][0];
  CHECK(note["severity"] == "note");
  CHECK(note["witness"].is_null());
  CHECK(note["notes"] == json::array());
  CHECK(note["fix"].is_null());
}

TEST_CASE("json: an output without a declaration has expected null", "[report][json]") {
  std::vector<ModelResult> results(1);
  results[0].path = "m.onnx";
  lint::Finding f = testing::PoolError();
  f.counterexample->outputs.push_back({.value = "aux", .actual = {2, 7}, .expected = std::nullopt});
  results[0].findings = {f};
  json outputs = Parse(results)["models"][0]["findings"][0]["counterexample"]["outputs"];
  REQUIRE(outputs.size() == 2);
  CHECK(outputs[1]["actual"] == json{2, 7});
  CHECK(outputs[1]["expected"].is_null());
}

TEST_CASE("json: keys come in the documented order", "[report][json]") {
  auto doc = nlohmann::ordered_json::parse(JsonText(SampleResults()));
  CHECK(Keys(doc) == std::vector<std::string>{"tool", "schema_version", "models", "summary"});
  CHECK(Keys(doc["models"][0]) == std::vector<std::string>{"path", "error", "findings"});
  CHECK(Keys(doc["models"][0]["findings"][0]) ==
        std::vector<std::string>{"rule", "name", "severity", "evidence", "message", "node",
                                 "attribute", "symbols", "symbol_axes", "witness", "counterexample",
                                 "notes", "fix", "expressions", "source"});
  CHECK(Keys(doc["models"][0]["findings"][0]["counterexample"]) ==
        std::vector<std::string>{"binding", "inputs", "failing_node", "failure", "node_fails",
                                 "input_contract", "outputs"});
  CHECK(Keys(doc["summary"]) ==
        std::vector<std::string>{"models", "errors", "warnings", "notes", "load_errors"});
}

TEST_CASE("json: an empty run is still a complete document", "[report][json]") {
  std::string text = JsonText({});
  REQUIRE(!text.empty());
  CHECK(text.back() == '\n');
  json doc = json::parse(text);
  CHECK(doc["models"] == json::array());
  CHECK(doc["summary"]["models"] == 0);
}

TEST_CASE("json: invalid UTF-8 from the model is replaced, not thrown", "[report][json]") {
  std::vector<ModelResult> results(1);
  results[0].path = "bad\xff.onnx";
  lint::Finding f = testing::ReshapeWarning();
  f.node.name = "node\xc3";  // a truncated two-byte sequence
  f.message = "quote \" backslash \\ newline \n tab \t";
  results[0].findings = {f};
  std::string text;
  REQUIRE_NOTHROW(text = JsonText(results));
  json doc = json::parse(text);
  CHECK(doc["models"][0]["path"] == "bad\xef\xbf\xbd.onnx");  // U+FFFD
  CHECK(doc["models"][0]["findings"][0]["node"]["name"] == "node\xef\xbf\xbd");
  CHECK(doc["models"][0]["findings"][0]["message"] == f.message);
}

TEST_CASE("json: matches the golden document", "[report][json][golden]") {
  std::string actual = JsonText(SampleResults());
  // The version changes with every release; the golden file pins everything else.
  const std::string version = "\"version\": \"" + std::string(lint::Version()) + "\"";
  actual = absl::StrReplaceAll(actual, {{version, "\"version\": \"<version>\""}});

  const std::string golden_path = SHAPELINT_SOURCE_DIR "/tests/report/golden/basic.json";
  INFO("golden file: " << golden_path);
  CHECK(actual == ::shapelint::testing::ReadFile(golden_path));
}

}  // namespace
}  // namespace shapelint::report
