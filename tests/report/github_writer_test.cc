// --format github, and the evidence of a finding (witness, counterexample, notes) that the text,
// GitHub and SARIF reports share (lib/report/finding_text.h).
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "sample_results.h"
#include "shapelint/report/report.h"

namespace shapelint::report {
namespace {

using Catch::Matchers::Contains;
using testing::PoolError;
using testing::SampleResults;

std::string Github(const std::vector<ModelResult>& results) {
  std::ostringstream out;
  WriteGithub(results, out);
  return out.str();
}

// The text after "  = LABEL: " on each such line of the text report, in order.
std::vector<std::string> TextItems(const std::vector<ModelResult>& results,
                                   const std::string& label) {
  std::ostringstream out;
  WriteText(results, TextOptions{.summary = false}, out);
  std::vector<std::string> items;
  std::istringstream lines(out.str());
  const std::string prefix = "  = " + label + ": ";
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind(prefix, 0) == 0) items.push_back(line.substr(prefix.size()));
  }
  return items;
}

TEST_CASE("github: the whole output for the sample results", "[report][github]") {
  // Checked by hand against the text report of the same results (text_writer_test.cc): each
  // annotation is the finding's block without the path and severity, one line per item.
  const std::string expected =
      "::error file=models/pool.onnx,title=SL001 baked-pool-kernel::main/<AveragePool #0>: "
      "AveragePool kernel_shape=[3, 2] was computed from the export size 6x6 of 'x'"
      "%0Awitness: works only for s2 in [6, 8] and s3 in [6, 7]"
      "%0Acounterexample: at s0=2, s1=3, s2=9, s3=8 (x: [2, 3, 9, 8]): output 'y' is "
      "[2, 3, 3, 4], declared [2, 3, 2, 3]"
      "%0Anote: kernel_shape [3, 2] = [6 / 2, 6 / 3]: adaptive_avg_pool2d to 2x3, decomposed "
      "at export"
      "%0Ahelp: export with dynamo=True, or replace the adaptive pool by a fixed-size pool\n"
      "::warning file=models/pool.onnx,title=SL002 baked-reshape-target::main/flatten: Reshape "
      "target [1, 96] holds 96 = 4 * 24, the export size of 'seq'"
      "%0Awitness: works only for 4*seq == 96"
      "%0Anote: main/shape_const: the literal comes from this initializer"
      "%0Ahelp: compute the target with Shape -> Gather -> Concat, or use 0/-1 in the target\n"
      "::error file=missing.onnx,title=cannot load the model::no such file\n"
      "::notice file=-,title=SL003 declared-shape-mismatch::main/conv1: input 'x' declares dim 1 "
      "dynamic ('C'), but the Conv weight fixes it to 3\n";
  CHECK(Github(SampleResults()) == expected);
}

TEST_CASE("github: controls and bytes that are no UTF-8 are escaped", "[report][github]") {
  std::vector<ModelResult> results(1);
  results[0].path = "m\xff.onnx";
  lint::Finding f = PoolError();
  f.node.label = "n\x1b[2J\xc2\x9b\xe2\x80\xae";
  results[0].findings = {f};
  const std::string out = Github(results);
  CHECK_THAT(out, Contains("::error file=m\\xff.onnx,title="));
  CHECK_THAT(out, Contains("main/n\\x1b[2J\\u009b\\u202e: "));
  CHECK_THAT(out, !Contains("\xff"));
  CHECK_THAT(out, !Contains("\x1b"));
}

TEST_CASE("github: a PyTorch node name and a finding on no node", "[report][github]") {
  std::vector<ModelResult> results(1);
  results[0].path = "m.onnx";
  lint::Finding pool = PoolError();
  pool.node.label = "/avgpool/AveragePool";  // not "main//avgpool/AveragePool"
  lint::Finding model_wide = PoolError();
  model_wide.node = {};
  model_wide.counterexample.reset();
  model_wide.witness.reset();
  model_wide.notes.clear();
  model_wide.fix.clear();
  results[0].findings = {pool, model_wide};
  const std::string out = Github(results);
  CHECK_THAT(out, Contains("baked-pool-kernel::main/avgpool/AveragePool: AveragePool"));
  CHECK_THAT(out, Contains("baked-pool-kernel::AveragePool kernel_shape=[3, 2] was computed from "
                           "the export size 6x6 of 'x'\n"));
}

TEST_CASE("evidence: the text, GitHub and SARIF reports give the same text", "[report][github]") {
  const std::vector<ModelResult> results = SampleResults();
  const std::string github = Github(results);
  std::ostringstream sarif_text;
  WriteSarif(results, sarif_text);
  const nlohmann::json sarif = nlohmann::json::parse(sarif_text.str());
  const std::vector<std::string> counterexamples = TextItems(results, "counterexample");
  REQUIRE(counterexamples.size() == 1);
  CHECK_THAT(github, Contains("%0Acounterexample: " + counterexamples[0] + "%0A"));
  CHECK_THAT(sarif["runs"][0]["results"][0]["message"]["text"].get<std::string>(),
             Contains("Counterexample: " + counterexamples[0]));
  const std::vector<std::string> witnesses = TextItems(results, "witness");
  REQUIRE(witnesses.size() == 2);
  for (size_t i = 0; i < witnesses.size(); ++i) {
    CHECK_THAT(github, Contains("%0Awitness: " + witnesses[i] + "%0A"));
    CHECK(sarif["runs"][0]["results"][i]["properties"]["witness"] == witnesses[i]);
  }
  const std::vector<std::string> notes = TextItems(results, "note");
  REQUIRE(notes.size() == 2);
  for (size_t i = 0; i < notes.size(); ++i) {
    CHECK_THAT(github, Contains("%0Anote: " + notes[i] + "%0A"));
    CHECK(sarif["runs"][0]["results"][i]["properties"]["notes"][0] == notes[i]);
  }
}

}  // namespace
}  // namespace shapelint::report
