#include <catch2/catch.hpp>
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

std::string Text(const std::vector<ModelResult>& results, bool color = false) {
  std::ostringstream out;
  WriteText(results, TextOptions{.color = color}, out);
  return out.str();
}

std::vector<ModelResult> One(const lint::Finding& f, std::string path = "m.onnx") {
  std::vector<ModelResult> results(1);
  results[0].path = std::move(path);
  results[0].findings = {f};
  return results;
}

TEST_CASE("text: the whole report for the sample results", "[report][text]") {
  const std::string expected =
      "models/pool.onnx: main/<AveragePool #0>: error[SL001] baked-pool-kernel: AveragePool "
      "kernel_shape=[3, 2] was computed from the export size 6x6 of 'x'\n"
      "  = witness: works only for s2 in [6, 8] and s3 in [6, 7]\n"
      "  = counterexample: at s0=2, s1=3, s2=9, s3=8 (x: [2, 3, 9, 8]): output 'y' is "
      "[2, 3, 3, 4], declared [2, 3, 2, 3]\n"
      "  = note: kernel_shape [3, 2] = [6 / 2, 6 / 3]: adaptive_avg_pool2d to 2x3, decomposed "
      "at export\n"
      "  = help: export with dynamo=True, or replace the adaptive pool by a fixed-size pool\n"
      "\n"
      "models/pool.onnx: main/flatten: warning[SL002] baked-reshape-target: Reshape target "
      "[1, 96] holds 96 = 4 * 24, the export size of 'seq'\n"
      "  = witness: works only for 4*seq == 96\n"
      "  = note: main/shape_const: the literal comes from this initializer\n"
      "  = help: compute the target with Shape -> Gather -> Concat, or use 0/-1 in the target\n"
      "\n"
      "missing.onnx: error: no such file\n"
      "\n"
      "<stdin>: main/conv1: note[SL003] declared-shape-mismatch: input 'x' declares dim 1 "
      "dynamic ('C'), but the Conv weight fixes it to 3\n"
      "\n"
      "1 error, 1 warning, 1 note in 3 models; 1 model could not be loaded\n";
  CHECK(Text(SampleResults()) == expected);
}

TEST_CASE("text: a range that repeats says where it works again", "[report][text]") {
  std::vector<ModelResult> results = SampleResults();
  lint::Witness& w = *results[0].findings[0].witness;
  w.summary.clear();       // built from the ranges
  w.ranges[0].every = 64;  // s2 in [6, 8]
  w.ranges[1].min = 7;     // s3 = 7
  w.ranges[1].max = 7;
  w.ranges[1].every = 2;
  CHECK_THAT(Text(results), Contains("works only for s2 in [6, 8] (and again every 64: [70, 72], "
                                     "...) and s3 = 7 (and again every 2: 9, 11, ...)"));
}

TEST_CASE("text: --verbose adds the expressions before the help line", "[report][text]") {
  std::ostringstream out;
  WriteText(One(PoolError()), TextOptions{.summary = false, .verbose = true}, out);
  CHECK_THAT(out.str(),
             Contains("decomposed at export\n"
                      "  = requires: floor(s2 / 3) == 2 (graph output 'y' declares axis 2 as 2)\n"
                      "  = input 'x': float[s0, s1, s2, s3]\n"
                      "  = help: export with"));
  CHECK_THAT(Text(One(PoolError())), !Contains("requires"));
}

TEST_CASE("text: no colour codes unless asked", "[report][text]") {
  CHECK_THAT(Text(SampleResults()), !Contains("\x1b"));
  std::string colored = Text(SampleResults(), /*color=*/true);
  CHECK_THAT(colored, Contains("\x1b[1;31merror[SL001]\x1b[0m baked-pool-kernel"));
  CHECK_THAT(colored, Contains("\x1b[1;33mwarning[SL002]\x1b[0m"));
  CHECK_THAT(colored, Contains("\x1b[1;36mnote[SL003]\x1b[0m"));
  CHECK_THAT(colored, Contains("missing.onnx: \x1b[1;31merror\x1b[0m: no such file"));
  CHECK_THAT(colored, Contains("  = \x1b[1mwitness:\x1b[0m works only for"));
}

TEST_CASE("text: a clean run prints only the summary", "[report][text]") {
  std::vector<ModelResult> results(2);
  results[0].path = "a.onnx";
  results[1].path = "b.onnx";
  CHECK(Text(results) == "0 errors, 0 warnings in 2 models\n");
  CHECK(Text({}) == "0 errors, 0 warnings in 0 models\n");
}

TEST_CASE("text: only load errors", "[report][text]") {
  std::vector<ModelResult> results(1);
  results[0].path = "-";
  results[0].error = "empty file";
  CHECK(Text(results) == "<stdin>: error: empty file\n\n1 model could not be loaded\n");
}

TEST_CASE("text: a counterexample where a node fails", "[report][text]") {
  lint::Finding f = PoolError();
  lint::Counterexample& cx = *f.counterexample;
  cx.binding = {{"h", 448}};
  cx.inputs = {{"x", {1, 3, 448, 448}}, {"mask", {1, 448}}};
  cx.failing_node = {.name = "fc", .op_type = "Gemm", .index = 12, .graph = "main", .label = "fc"};
  cx.failure = "Gemm inner dimension: 32768 vs 25088";
  cx.node_fails = true;
  cx.outputs.clear();
  CHECK_THAT(Text(One(f)), Contains("  = counterexample: at h=448 (x: [1, 3, 448, 448], mask: "
                                    "[1, 448]): main/fc fails: Gemm inner dimension: 32768 vs "
                                    "25088\n"));
}

TEST_CASE("text: an output that matches its declaration is not a mismatch", "[report][text]") {
  lint::Finding f = PoolError();
  f.counterexample->outputs = {
      {.value = "y", .actual = {2, 3}, .expected = std::vector<int64_t>{2, 3}},
      {.value = "aux", .actual = {5}, .expected = std::nullopt}};
  f.counterexample->failure = "output 'z' changes shape";
  std::string text = Text(One(f));
  // The node runs there (node_fails is false): it is named, not said to fail.
  CHECK_THAT(text, Contains("(x: [2, 3, 9, 8]): main/<AveragePool #0>: output 'z' "
                            "changes shape\n"));
  CHECK_THAT(text, !Contains("declared"));
}

TEST_CASE("text: witness written from ranges when it has no summary", "[report][text]") {
  lint::Finding f = PoolError();
  f.witness->summary.clear();
  f.witness->ranges = {{.symbol = "h", .value = 224, .min = 224, .max = 224},
                       {.symbol = "w", .value = 224, .min = 200, .max = 230},
                       {.symbol = "n", .value = 4, .min = std::nullopt, .max = 8},
                       {.symbol = "c", .value = 3, .min = 2, .max = std::nullopt},
                       {.symbol = "b", .value = 1, .min = std::nullopt, .max = std::nullopt}};
  f.witness->relations = {"h == w"};
  CHECK_THAT(Text(One(f)), Contains("  = witness: works only for h = 224 and w in [200, 230] "
                                    "and n <= 8 and c >= 2 and h == w\n"));

  f.witness->ranges = {{.symbol = "b", .value = 1, .min = 1, .max = std::nullopt}};
  f.witness->relations.clear();
  CHECK_THAT(Text(One(f)), !Contains("witness"));  // nothing to say
}

TEST_CASE("text: a finding without node, rule name, fix or evidence", "[report][text]") {
  lint::Finding f;
  f.rule = "SL009";
  f.severity = lint::Severity::kWarning;
  f.message = "the model declares no output shape";
  CHECK(Text(One(f)) ==
        "m.onnx: warning[SL009]: the model declares no output shape\n"
        "\n"
        "0 errors, 1 warning in 1 model\n");
}

TEST_CASE("text: unlabelled nodes get a label from op type and index", "[report][text]") {
  lint::Finding f = PoolError();
  f.node = {.name = "", .op_type = "Reshape", .index = 4, .graph = "", .label = ""};
  CHECK_THAT(Text(One(f)), Contains("m.onnx: <Reshape #4>: error[SL001]"));
}

TEST_CASE("text: PyTorch node names do not double the separator", "[report][text]") {
  lint::Finding f = PoolError();
  f.node = {.name = "/avgpool/AveragePool",
            .op_type = "AveragePool",
            .index = 30,
            .graph = "main",
            .label = "/avgpool/AveragePool"};
  CHECK_THAT(Text(One(f)), Contains("m.onnx: main/avgpool/AveragePool: error[SL001]"));
}

TEST_CASE("text: a witness summary written as a sentence is not prefixed", "[report][text]") {
  lint::Finding f = PoolError();
  f.witness->summary = "works only for h = 224";
  std::string text = Text(One(f));
  CHECK_THAT(text, Contains("  = witness: works only for h = 224\n"));
  CHECK_THAT(text, !Contains("works only for works"));
}

TEST_CASE("text: a note names its node only when its message does not", "[report][text]") {
  lint::Finding f = PoolError();
  lint::NodeRef gemm{
      .name = "", .op_type = "Gemm", .index = 9, .graph = "main", .label = "<Gemm #9>"};
  f.notes = {{.message = "the size flows into Gemm '<Gemm #9>'", .node = gemm},
             {.message = "its weight fixes the inner dimension", .node = gemm}};
  std::string text = Text(One(f));
  CHECK_THAT(text, Contains("  = note: the size flows into Gemm '<Gemm #9>'\n"));
  CHECK_THAT(text, Contains("  = note: main/<Gemm #9>: its weight fixes the inner dimension\n"));
}

TEST_CASE("text: control characters from the model are escaped", "[report][text]") {
  lint::Finding f = PoolError();
  f.node.label = "evil\x1b[2Jname";
  f.message = "line one\nline two";
  std::string text = Text(One(f, "dir/\x07model.onnx"));
  CHECK_THAT(text, !Contains("\x1b"));
  CHECK_THAT(text, !Contains("\x07"));
  CHECK_THAT(text, Contains("dir/\\x07model.onnx: main/evil\\x1b[2Jname: error[SL001]"));
  // Our own multi-line text stays readable: continuation lines are indented.
  CHECK_THAT(text, Contains("baked-pool-kernel: line one\n    line two\n"));
}

TEST_CASE("text: C1 controls, bidirectional overrides and invalid UTF-8 are escaped",
          "[report][text]") {
  lint::Finding f = PoolError();
  // U+009B (CSI in C1), U+0085 (NEL), U+202E (right-to-left override), U+2066 (an isolate),
  // a stray continuation byte and a lead byte cut short; e-acute and a CJK character stay.
  f.node.label =
      "a\xc2\x9b"
      "2Jb\xc2\x85"
      "c\xe2\x80\xae"
      "d\xe2\x81\xa6"
      "e\x80"
      "f\xe2\x80";
  f.message =
      "caf\xc3\xa9 \xe5\xbd\xa2 \xe2\x80\xae"
      "reversed";
  const std::string text = Text(One(f));
  CHECK_THAT(text, Contains("main/a\\u009b2Jb\\u0085c\\u202ed\\u2066e\\x80f\\xe2\\x80: error"));
  CHECK_THAT(text, Contains("caf\xc3\xa9 \xe5\xbd\xa2 \\u202ereversed"));
  CHECK_THAT(text, !Contains("\xc2\x9b"));
  CHECK_THAT(text, !Contains("\xe2\x80\xae"));
}

TEST_CASE("text: summary counts and plurals", "[report][text]") {
  lint::Finding e = PoolError();
  lint::Finding w = testing::ReshapeWarning();
  std::vector<ModelResult> results(2);
  results[0].path = "a.onnx";
  results[0].findings = {e, e};
  results[1].path = "b.onnx";
  results[1].findings = {w, w, w};
  std::string text = Text(results);
  CHECK_THAT(text, Contains("\n2 errors, 3 warnings in 2 models\n"));
}

}  // namespace
}  // namespace shapelint::report
