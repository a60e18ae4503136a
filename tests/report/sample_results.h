// Hand-built findings shared by the writer tests and the golden JSON test.
#ifndef SHAPELINT_TESTS_REPORT_SAMPLE_RESULTS_H_
#define SHAPELINT_TESTS_REPORT_SAMPLE_RESULTS_H_

#include <vector>

#include "shapelint/lint/finding.h"
#include "shapelint/report/report.h"

namespace shapelint::report::testing {

inline lint::NodeRef PoolNode() {
  return {.name = "",
          .op_type = "AveragePool",
          .index = 0,
          .graph = "main",
          .label = "<AveragePool #0>"};
}

// The AveragePool whose kernel was computed from a 6x6 export: [2, 3] there, [3, 4] at 9x8.
inline lint::Finding PoolError() {
  lint::Finding f;
  f.rule = "SL001";
  f.name = "baked-pool-kernel";
  f.severity = lint::Severity::kError;
  f.evidence = lint::Evidence::kContradiction;
  f.message = "AveragePool kernel_shape=[3, 2] was computed from the export size 6x6 of 'x'";
  f.node = PoolNode();
  f.attribute = "kernel_shape";
  f.symbols = {"s2", "s3"};
  lint::Witness w;
  w.ranges = {{.symbol = "s2", .value = 6, .min = 6, .max = 8},
              {.symbol = "s3", .value = 6, .min = 6, .max = 7}};
  w.summary = "works only for s2 in [6, 8] and s3 in [6, 7]";
  f.witness = w;
  lint::Counterexample cx;
  cx.binding = {{"s0", 2}, {"s1", 3}, {"s2", 9}, {"s3", 8}};
  cx.inputs = {{"x", {2, 3, 9, 8}}};
  cx.failing_node = PoolNode();
  cx.failure = "output 'y' is [2, 3, 3, 4], declared [2, 3, 2, 3]";
  cx.outputs = {
      {.value = "y", .actual = {2, 3, 3, 4}, .expected = std::vector<int64_t>{2, 3, 2, 3}}};
  f.counterexample = cx;
  f.notes = {{.message = "kernel_shape [3, 2] = [6 / 2, 6 / 3]: adaptive_avg_pool2d to 2x3, "
                         "decomposed at export",
              .node = std::nullopt}};
  f.fix = "export with dynamo=True, or replace the adaptive pool by a fixed-size pool";
  f.expressions = {
      {.label = "requires", .text = "floor(s2 / 3) == 2 (graph output 'y' declares axis 2 as 2)"},
      {.label = "input 'x'", .text = "float[s0, s1, s2, s3]"}};
  return f;
}

// A Reshape with a literal target: no counterexample, a blame note that points at a node.
inline lint::Finding ReshapeWarning() {
  lint::Finding f;
  f.rule = "SL002";
  f.name = "baked-reshape-target";
  f.severity = lint::Severity::kWarning;
  f.message = "Reshape target [1, 96] holds 96 = 4 * 24, the export size of 'seq'";
  f.node = {
      .name = "flatten", .op_type = "Reshape", .index = 7, .graph = "main", .label = "flatten"};
  f.attribute = "";
  f.symbols = {"seq"};
  lint::Witness w;
  w.ranges = {{.symbol = "seq", .value = 24, .min = 1, .max = std::nullopt}};
  w.relations = {"4*seq == 96"};
  f.witness = w;
  f.notes = {{.message = "the literal comes from this initializer",
              .node = lint::NodeRef{.name = "shape_const",
                                    .op_type = "Constant",
                                    .index = 6,
                                    .graph = "main",
                                    .label = "shape_const"}}};
  f.fix = "compute the target with Shape -> Gather -> Concat, or use 0/-1 in the target";
  return f;
}

// Two models with findings, one that could not be loaded, one clean.
inline std::vector<ModelResult> SampleResults() {
  std::vector<ModelResult> results(4);
  results[0].path = "models/pool.onnx";
  results[0].findings = {PoolError(), ReshapeWarning()};
  results[1].path = "missing.onnx";
  results[1].error = "no such file";
  results[2].path = "clean.onnx";
  lint::Finding note;
  note.rule = "SL003";
  note.name = "declared-shape-mismatch";
  note.severity = lint::Severity::kNote;
  note.evidence = lint::Evidence::kDesign;
  note.message = "input 'x' declares dim 1 dynamic ('C'), but the Conv weight fixes it to 3";
  note.node = {.name = "conv1", .op_type = "Conv", .index = 0, .graph = "main", .label = "conv1"};
  note.attribute = "input 1";
  note.symbols = {"C"};
  results[3].path = "-";
  results[3].findings = {note};
  return results;
}

}  // namespace shapelint::report::testing

#endif  // SHAPELINT_TESTS_REPORT_SAMPLE_RESULTS_H_
