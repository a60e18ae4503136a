#include <catch2/catch.hpp>
#include <cstddef>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "sample_results.h"
#include "shapelint/lint/lint.h"
#include "shapelint/report/report.h"
#include "test_files.h"

namespace shapelint::report {
namespace {

using ::shapelint::testing::ReadFile;

using nlohmann::json;
using testing::PoolError;
using testing::ReshapeWarning;
using testing::SampleResults;

std::string SarifText(const std::vector<ModelResult>& results) {
  std::ostringstream out;
  WriteSarif(results, out);
  return out.str();
}

json Parse(const std::vector<ModelResult>& results) { return json::parse(SarifText(results)); }

bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// A logicalLocation in a result that refers to run.logicalLocations by index: the index must
// exist, and every other property it has must equal the cached object's (SARIF 2.1.0 §3.33.2).
void CheckLogicalReference(const json& ref, const json& cache) {
  REQUIRE(ref.is_object());
  REQUIRE(ref.contains("index"));
  REQUIRE(ref["index"].is_number_integer());
  const int index = ref["index"];
  REQUIRE(index >= 0);
  REQUIRE(index < static_cast<int>(cache.size()));
  for (const auto& [key, value] : ref.items()) {
    if (key == "index") continue;
    INFO("logicalLocations[" << index << "]." << key);
    CHECK(cache[index][key] == value);
  }
}

// A location with a physical location in one of the run's artifacts.
void CheckPhysicalLocation(const json& location, const json& artifacts) {
  REQUIRE(location.contains("physicalLocation"));
  const json& artifact_location = location["physicalLocation"]["artifactLocation"];
  REQUIRE(artifact_location["uri"].is_string());
  CHECK_FALSE(artifact_location["uri"].get<std::string>().empty());
  REQUIRE(artifact_location["index"].is_number_integer());
  const int index = artifact_location["index"];
  REQUIRE(index >= 0);
  REQUIRE(index < static_cast<int>(artifacts.size()));
  CHECK(artifacts[index]["location"]["uri"] == artifact_location["uri"]);
}

// What SARIF 2.1.0 requires of a log with one run, checked by hand from the specification:
// version, the run's tool, rules and results, and every index pointing where it should.
void CheckSarif(const json& log) {
  REQUIRE(log.is_object());
  CHECK(log["$schema"] == "https://json.schemastore.org/sarif-2.1.0.json");
  CHECK(log["version"] == "2.1.0");
  REQUIRE(log["runs"].is_array());
  REQUIRE(log["runs"].size() == 1);
  const json& run = log["runs"][0];

  const json& driver = run["tool"]["driver"];
  REQUIRE(driver["name"].is_string());
  CHECK(driver["name"] == "onnx-shapelint");
  REQUIRE(driver["rules"].is_array());
  std::set<std::string> ids;
  for (const json& rule : driver["rules"]) {
    REQUIRE(rule["id"].is_string());
    CHECK(ids.insert(rule["id"].get<std::string>()).second);  // unique
  }

  // invocations: executionSuccessful is required in each; notifications are messages.
  REQUIRE(run["invocations"].is_array());
  REQUIRE(run["invocations"].size() == 1);
  REQUIRE(run["invocations"][0]["executionSuccessful"].is_boolean());

  const json& artifacts = run["artifacts"];
  REQUIRE(artifacts.is_array());
  std::set<std::string> uris;
  for (const json& artifact : artifacts) {
    REQUIRE(artifact["location"]["uri"].is_string());
    CHECK(uris.insert(artifact["location"]["uri"].get<std::string>()).second);
  }

  const json& cache = run["logicalLocations"];
  REQUIRE(cache.is_array());
  for (size_t i = 0; i < cache.size(); ++i) {
    if (!cache[i].contains("parentIndex")) {
      // Top-level: fullyQualifiedName, if present, equals name.
      if (cache[i].contains("fullyQualifiedName")) {
        CHECK(cache[i]["fullyQualifiedName"] == cache[i]["name"]);
      }
      continue;
    }
    REQUIRE(cache[i]["parentIndex"].is_number_integer());
    const int parent = cache[i]["parentIndex"];
    CHECK(parent >= 0);
    CHECK(parent < static_cast<int>(cache.size()));
    CHECK(parent != static_cast<int>(i));
  }

  REQUIRE(run["results"].is_array());
  const std::set<std::string> levels = {"none", "note", "warning", "error"};
  for (const json& result : run["results"]) {
    REQUIRE(result["message"]["text"].is_string());
    REQUIRE(result["ruleId"].is_string());
    const std::string rule_id = result["ruleId"];
    CHECK(ids.count(rule_id) == 1);
    REQUIRE(result["ruleIndex"].is_number_integer());
    const int rule_index = result["ruleIndex"];
    REQUIRE(rule_index >= 0);
    REQUIRE(rule_index < static_cast<int>(driver["rules"].size()));
    CHECK(driver["rules"][rule_index]["id"] == rule_id);
    REQUIRE(result["level"].is_string());
    CHECK(levels.count(result["level"].get<std::string>()) == 1);

    REQUIRE(result["locations"].is_array());
    REQUIRE(!result["locations"].empty());
    const json& location = result["locations"][0];
    CheckPhysicalLocation(location, artifacts);
    REQUIRE(location["logicalLocations"].is_array());
    REQUIRE(!location["logicalLocations"].empty());
    for (const json& ref : location["logicalLocations"]) CheckLogicalReference(ref, cache);

    if (result.contains("relatedLocations")) {
      for (const json& related : result["relatedLocations"]) {
        CheckPhysicalLocation(related, artifacts);
        CHECK(related["message"]["text"].is_string());
        for (const json& ref : related["logicalLocations"]) CheckLogicalReference(ref, cache);
      }
    }
    if (result.contains("properties")) CHECK(result["properties"].is_object());
  }
}

// The run.logicalLocations entry a result's primary location points at.
const json& Innermost(const json& log, const json& result) {
  const int index = result["locations"][0]["logicalLocations"][0]["index"];
  return log["runs"][0]["logicalLocations"][index];
}

const json& Parent(const json& log, const json& logical) {
  const int index = logical["parentIndex"];
  return log["runs"][0]["logicalLocations"][index];
}

// The first word after "Severity: " on the rule's page: what it reports at most.
std::string PageSeverity(const std::string& page) {
  const std::string marker = "\nSeverity: ";
  const size_t at = page.find(marker);
  if (at == std::string::npos) return "";
  size_t end = at + marker.size();
  while (end < page.size() && page[end] >= 'a' && page[end] <= 'z') ++end;
  return page.substr(at + marker.size(), end - at - marker.size());
}

TEST_CASE("sarif: the sample results are a valid SARIF 2.1.0 log", "[report][sarif]") {
  const json log = Parse(SampleResults());
  CheckSarif(log);
  const json& run = log["runs"][0];
  CHECK(run["tool"]["driver"]["version"] == std::string(lint::Version()));
  // One result per finding: two in the first model, none for the load error and the clean
  // model, one from standard input.
  REQUIRE(run["results"].size() == 3);
  CHECK(run["results"][0]["ruleId"] == "SL001");
  CHECK(run["results"][1]["ruleId"] == "SL002");
  CHECK(run["results"][2]["ruleId"] == "SL003");
  CHECK(run["results"][0]["level"] == "error");
  CHECK(run["results"][1]["level"] == "warning");
  CHECK(run["results"][2]["level"] == "note");
}

TEST_CASE("sarif: the driver lists every rule of the registry with its page", "[report][sarif]") {
  const json log = Parse({});
  CheckSarif(log);
  const json& rules = log["runs"][0]["tool"]["driver"]["rules"];
  const auto& registry = lint::AllRules();
  REQUIRE(rules.size() == registry.size());
  for (size_t i = 0; i < registry.size(); ++i) {
    const std::string code(registry[i].code);
    INFO("rule " << code);
    const json& rule = rules[i];
    CHECK(rule["id"] == code);
    CHECK(rule["name"] == std::string(registry[i].name));
    REQUIRE(rule["shortDescription"]["text"].is_string());
    CHECK_FALSE(rule["shortDescription"]["text"].get<std::string>().empty());
    REQUIRE(rule["fullDescription"]["text"].is_string());
    CHECK_FALSE(rule["fullDescription"]["text"].get<std::string>().empty());

    REQUIRE(rule["helpUri"].is_string());
    const std::string help_uri = rule["helpUri"];
    CHECK(help_uri.rfind("https://", 0) == 0);
    CHECK(EndsWith(help_uri, "/docs/rules/" + code + ".md"));
    const std::string page_path = SHAPELINT_SOURCE_DIR "/docs/rules/" + code + ".md";
    INFO("page " << page_path);
    REQUIRE(std::filesystem::is_regular_file(page_path));

    // The default level is the most severe one the page says the rule reports.
    const std::string severity = PageSeverity(ReadFile(page_path));
    CHECK(rule["defaultConfiguration"]["level"] == severity);
  }
  CHECK(log["runs"][0]["tool"]["driver"]["informationUri"].get<std::string>().rfind("https://",
                                                                                    0) == 0);
}

TEST_CASE("sarif: an error with counterexample and attribute", "[report][sarif]") {
  const json log = Parse(SampleResults());
  const json& result = log["runs"][0]["results"][0];
  const lint::Finding f = PoolError();
  CHECK(result["ruleIndex"] == 0);
  // The counterexample as the text report gives it: the sizes, the input shapes and the output
  // that differs from its declaration.
  CHECK(result["message"]["text"] ==
        "main/<AveragePool #0>: " + f.message +
            ". Counterexample: at s0=2, s1=3, s2=9, s3=8 (x: [2, 3, 9, 8]): output 'y' is "
            "[2, 3, 3, 4], declared [2, 3, 2, 3]");
  CHECK(result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] ==
        "models/pool.onnx");

  // The attribute at fault, in its node, in its graph.
  const json& attribute = Innermost(log, result);
  CHECK(attribute["name"] == "kernel_shape");
  CHECK(attribute["fullyQualifiedName"] == "main/<AveragePool #0>.kernel_shape");
  CHECK(attribute["kind"] == "parameter");
  const json& node = Parent(log, attribute);
  CHECK(node["name"] == "<AveragePool #0>");
  CHECK(node["fullyQualifiedName"] == "main/<AveragePool #0>");
  CHECK(node["kind"] == "function");
  CHECK(node["properties"]["opType"] == "AveragePool");
  CHECK(node["properties"]["nodeIndex"] == 0);
  const json& graph = Parent(log, node);
  CHECK(graph["name"] == "main");
  CHECK(graph["kind"] == "module");
  CHECK_FALSE(graph.contains("parentIndex"));

  const json& p = result["properties"];
  CHECK(p["attribute"] == "kernel_shape");
  CHECK(p["symbols"] == json{"s2", "s3"});
  CHECK(p["witness"] == "works only for s2 in [6, 8] and s3 in [6, 7]");
  CHECK(p["counterexample"]["binding"] == json{{"s0", 2}, {"s1", 3}, {"s2", 9}, {"s3", 8}});
  CHECK(p["counterexample"]["inputs"]["x"] == json{2, 3, 9, 8});
  CHECK(p["counterexample"]["failingNode"] == "main/<AveragePool #0>");
  CHECK(p["counterexample"]["nodeFails"] == false);
  CHECK(p["notes"] == json{f.notes[0].message});
  CHECK(p["fix"] == f.fix);
  // The only note names no node: nothing to relate.
  CHECK_FALSE(result.contains("relatedLocations"));
}

TEST_CASE("sarif: a warning on a node, with a note that points at another", "[report][sarif]") {
  const json log = Parse(SampleResults());
  const json& result = log["runs"][0]["results"][1];
  const lint::Finding f = ReshapeWarning();
  CHECK(result["ruleIndex"] == 1);
  // No counterexample: where, and the message as it is.
  CHECK(result["message"]["text"] == "main/flatten: " + f.message);
  const json& node = Innermost(log, result);
  CHECK(node["fullyQualifiedName"] == "main/flatten");
  CHECK(node["kind"] == "function");
  CHECK_FALSE(result["properties"].contains("attribute"));
  CHECK_FALSE(result["properties"].contains("counterexample"));
  // The witness has no summary: it is built from the ranges and relations.
  CHECK(result["properties"]["witness"] == "works only for 4*seq == 96");
  // The note as the text report gives it, after the node it points at.
  CHECK(result["properties"]["notes"] ==
        json{"main/shape_const: the literal comes from this initializer"});

  REQUIRE(result["relatedLocations"].size() == 1);
  const json& related = result["relatedLocations"][0];
  CHECK(related["message"]["text"] == f.notes[0].message);
  CHECK(related["physicalLocation"]["artifactLocation"]["uri"] == "models/pool.onnx");
  const int index = related["logicalLocations"][0]["index"];
  const json& constant = log["runs"][0]["logicalLocations"][index];
  CHECK(constant["fullyQualifiedName"] == "main/shape_const");
  CHECK(constant["properties"]["opType"] == "Constant");
}

TEST_CASE("sarif: the graph and node are listed once however often they are used",
          "[report][sarif]") {
  std::vector<ModelResult> results(1);
  results[0].path = "m.onnx";
  lint::Finding other = PoolError();
  other.rule = "SL003";
  other.attribute = "strides";
  results[0].findings = {PoolError(), other};
  const json log = Parse(results);
  CheckSarif(log);
  // main, the pool node, its kernel_shape and its strides.
  const json& cache = log["runs"][0]["logicalLocations"];
  CHECK(cache.size() == 4);
  const json& a = Innermost(log, log["runs"][0]["results"][0]);
  const json& b = Innermost(log, log["runs"][0]["results"][1]);
  CHECK(a["fullyQualifiedName"] != b["fullyQualifiedName"]);
  CHECK(a["parentIndex"] == b["parentIndex"]);
}

TEST_CASE("sarif: models that did not load are tool execution notifications", "[report][sarif]") {
  const json log = Parse(SampleResults());
  const json& invocation = log["runs"][0]["invocations"][0];
  CHECK(invocation["executionSuccessful"] == false);
  REQUIRE(invocation["toolExecutionNotifications"].size() == 1);
  const json& notification = invocation["toolExecutionNotifications"][0];
  CHECK(notification["level"] == "error");
  CHECK(notification["message"]["text"] == "missing.onnx: no such file");
  const json& artifact_location =
      notification["locations"][0]["physicalLocation"]["artifactLocation"];
  CHECK(artifact_location["uri"] == "missing.onnx");
  CHECK(artifact_location["index"] == 1);

  std::vector<ModelResult> loaded = SampleResults();
  loaded.erase(loaded.begin() + 1);
  const json clean = Parse(loaded);
  CheckSarif(clean);
  CHECK(clean["runs"][0]["invocations"][0]["executionSuccessful"] == true);
  CHECK_FALSE(clean["runs"][0]["invocations"][0].contains("toolExecutionNotifications"));
}

TEST_CASE("sarif: one artifact per model path, in order, each once", "[report][sarif]") {
  std::vector<ModelResult> results(4);
  results[0].path = "b.onnx";
  results[0].findings = {ReshapeWarning()};
  results[1].path = "a dir/m\xc3\xa9.onnx";  // a space and a non-ASCII byte pair
  results[2].path = "b.onnx";
  results[2].findings = {PoolError()};
  results[3].path = "-";
  results[3].findings = {ReshapeWarning()};
  const json log = Parse(results);
  CheckSarif(log);
  const json& artifacts = log["runs"][0]["artifacts"];
  REQUIRE(artifacts.size() == 3);
  CHECK(artifacts[0]["location"]["uri"] == "b.onnx");
  CHECK(artifacts[1]["location"]["uri"] == "a%20dir/m%C3%A9.onnx");
  CHECK(artifacts[2]["location"]["uri"] == "-");
  CHECK(artifacts[2]["description"]["text"] == "standard input");
  const json& rs = log["runs"][0]["results"];
  REQUIRE(rs.size() == 3);
  CHECK(rs[0]["locations"][0]["physicalLocation"]["artifactLocation"]["index"] == 0);
  CHECK(rs[1]["locations"][0]["physicalLocation"]["artifactLocation"]["index"] == 0);
  CHECK(rs[2]["locations"][0]["physicalLocation"]["artifactLocation"]["index"] == 2);
}

TEST_CASE("sarif: braces in messages are not placeholders", "[report][sarif]") {
  std::vector<ModelResult> results(1);
  results[0].path = "m.onnx";
  lint::Finding f = ReshapeWarning();
  f.message = "target {2,1,3,1}";
  f.notes[0].message = "from {x}";
  results[0].findings = {f};
  const json log = Parse(results);
  const json& result = log["runs"][0]["results"][0];
  CHECK(result["message"]["text"] == "main/flatten: target {{2,1,3,1}}");
  CHECK(result["relatedLocations"][0]["message"]["text"] == "from {{x}}");
}

TEST_CASE("sarif: a rule the registry does not know still resolves", "[report][sarif]") {
  std::vector<ModelResult> results(1);
  results[0].path = "m.onnx";
  lint::Finding f = ReshapeWarning();
  f.rule = "SL999";
  f.name = "future-rule";
  results[0].findings = {f, f};
  const json log = Parse(results);
  CheckSarif(log);
  const json& rules = log["runs"][0]["tool"]["driver"]["rules"];
  REQUIRE(rules.size() == lint::AllRules().size() + 1);
  CHECK(rules.back()["id"] == "SL999");
  CHECK(rules.back()["name"] == "future-rule");
  CHECK(log["runs"][0]["results"][1]["ruleIndex"] == lint::AllRules().size());
}

TEST_CASE("sarif: fingerprints follow the rule and location, not the wording", "[report][sarif]") {
  std::vector<ModelResult> results(1);
  results[0].path = "m.onnx";
  lint::Finding reworded = PoolError();
  reworded.message = "another wording";
  lint::Finding elsewhere = PoolError();
  elsewhere.attribute = "strides";
  results[0].findings = {PoolError(), reworded, elsewhere};
  const json rs = Parse(results)["runs"][0]["results"];
  const json& fp = rs[0]["partialFingerprints"];
  REQUIRE(fp.size() == 1);
  const std::string key = fp.begin().key();
  REQUIRE(fp[key].is_string());
  CHECK(rs[1]["partialFingerprints"][key] == fp[key]);
  CHECK(rs[2]["partialFingerprints"][key] != fp[key]);
}

TEST_CASE("sarif: invalid UTF-8 from the model is replaced, not thrown", "[report][sarif]") {
  std::vector<ModelResult> results(1);
  results[0].path = "bad\xff.onnx";
  lint::Finding f = ReshapeWarning();
  f.node.label = "node\xc3";  // a truncated two-byte sequence
  f.message = "quote \" backslash \\ newline \n tab \t";
  results[0].findings = {f};
  std::string text;
  REQUIRE_NOTHROW(text = SarifText(results));
  const json log = json::parse(text);
  CheckSarif(log);
  CHECK(log["runs"][0]["artifacts"][0]["location"]["uri"] == "bad%FF.onnx");
  CHECK(Innermost(log, log["runs"][0]["results"][0])["name"] == "node\xef\xbf\xbd");
  CHECK(log["runs"][0]["results"][0]["message"]["text"] == "main/node\xef\xbf\xbd: " + f.message);
}

TEST_CASE("sarif: two-space indent, keys in a fixed order, a final newline", "[report][sarif]") {
  const std::string text = SarifText(SampleResults());
  REQUIRE(!text.empty());
  CHECK(text.back() == '\n');
  CHECK(text.rfind("{\n  \"$schema\": ", 0) == 0);
  const auto log = nlohmann::ordered_json::parse(text);
  std::vector<std::string> keys;
  for (const auto& item : log.items()) keys.push_back(item.key());
  CHECK(keys == std::vector<std::string>{"$schema", "version", "runs"});
  keys.clear();
  for (const auto& item : log["runs"][0].items()) keys.push_back(item.key());
  CHECK(keys == std::vector<std::string>{"tool", "invocations", "artifacts", "logicalLocations",
                                         "results"});
  CHECK(SarifText(SampleResults()) == text);
}

TEST_CASE("sarif: matches the golden log", "[report][sarif][golden]") {
  auto log = nlohmann::ordered_json::parse(SarifText(SampleResults()));
  // The version changes with every release and the rules with the registry (checked above);
  // the golden file pins everything else.
  auto& driver = log["runs"][0]["tool"]["driver"];
  driver["version"] = "<version>";
  driver["rules"] = "<lint::AllRules()>";
  const std::string actual = log.dump(2) + "\n";

  const std::string golden_path = SHAPELINT_SOURCE_DIR "/tests/report/golden/basic.sarif";
  const std::string golden = ReadFile(golden_path);
  INFO("golden file: " << golden_path);
  CHECK(actual == golden);
}

// A finding whose size entered at `file` line 7, as an exporter records it.
std::vector<ModelResult> WithSource(const std::string& file) {
  std::vector<ModelResult> results(1);
  results[0].path = "models/pool.onnx";
  lint::Finding f = PoolError();
  f.source = lint::SourceLocation{.file = file,
                                  .line = 7,
                                  .function = "forward",
                                  .code = "return F.adaptive_avg_pool2d(x, (2, 3))"};
  results[0].findings = {f};
  return results;
}

json SarifWithRoot(const std::vector<ModelResult>& results, const std::string& root) {
  std::ostringstream out;
  WriteSarif(results, SarifOptions{.source_root = root}, out);
  return json::parse(out.str());
}

const json& SourceLocationOf(const json& log) {
  const json& related = log["runs"][0]["results"][0]["relatedLocations"];
  REQUIRE(related.size() == 1);
  CHECK(related[0]["physicalLocation"]["region"]["startLine"] == 7);
  return related[0]["physicalLocation"]["artifactLocation"];
}

TEST_CASE("sarif: a source file under the repository is relative to %SRCROOT%", "[report][sarif]") {
  // The absolute path recorded at export names no file of the repository for code scanning.
  const json log = SarifWithRoot(WithSource("/src/repo/models/net work.py"), "/src/repo");
  CHECK(SourceLocationOf(log) == json{{"uri", "models/net%20work.py"}, {"uriBaseId", "%SRCROOT%"}});
  CHECK(log["runs"][0]["originalUriBaseIds"] ==
        json{{"%SRCROOT%", {{"uri", "file:///src/repo/"}}}});
  // A root given with a trailing slash, and a recorded path with a dot in it, are the same.
  const json again = SarifWithRoot(WithSource("/src/repo/./models/net work.py"), "/src/repo/");
  CHECK(SourceLocationOf(again) == SourceLocationOf(log));
  CHECK(again["runs"][0]["originalUriBaseIds"] == log["runs"][0]["originalUriBaseIds"]);
}

TEST_CASE("sarif: a source file elsewhere is an absolute file URI", "[report][sarif]") {
  for (const std::string& root : {std::string("/src/repo"), std::string()}) {
    INFO("root: " << root);
    for (const std::string& file :
         {std::string("/src/other/model.py"), std::string("/src/repository/m.py")}) {
      const json log = SarifWithRoot(WithSource(file), root);
      CHECK(SourceLocationOf(log) == json{{"uri", "file://" + file}});
      // No location needs the root: the run does not name it.
      CHECK_FALSE(log["runs"][0].contains("originalUriBaseIds"));
    }
  }
  // Without options too (the library's WriteSarif(results, out)).
  const json log = Parse(WithSource("/opt/x y/model.py"));
  CHECK(SourceLocationOf(log) == json{{"uri", "file:///opt/x%20y/model.py"}});
  // A relative path, whose base the exporter did not record, stays as it is.
  const json relative = SarifWithRoot(WithSource("corpus/kron.py"), "/src/repo");
  CHECK(SourceLocationOf(relative) == json{{"uri", "corpus/kron.py"}});
  CHECK_FALSE(relative["runs"][0].contains("originalUriBaseIds"));
}

}  // namespace
}  // namespace shapelint::report
