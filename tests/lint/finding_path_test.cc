// lint::PathsOf: which nodes a finding's path goes through, and the shapes on its edges.
#include "shapelint/lint/finding_path.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "shapelint/ir/load.h"
#include "shapelint/lint/lint.h"

namespace shapelint::lint {
namespace {

struct Linted {
  std::unique_ptr<ir::Model> model;
  std::vector<Finding> findings;
  std::vector<FindingPath> paths;
};

Linted LintFixture(const std::string& relative, const LintOptions& options = {}) {
  Linted l;
  auto model = ir::LoadModel(absl::StrCat(SHAPELINT_SOURCE_DIR, "/", relative));
  INFO(model.status());
  REQUIRE(model.ok());
  l.model = *std::move(model);
  auto findings = Lint(*l.model, options);
  REQUIRE(findings.ok());
  l.findings = *std::move(findings);
  auto paths = PathsOf(*l.model, options, l.findings);
  REQUIRE(paths.ok());
  l.paths = *std::move(paths);
  REQUIRE(l.paths.size() == l.findings.size());
  return l;
}

std::vector<std::string> Ops(const FindingPath& path) {
  std::vector<std::string> ops;
  for (const NodeRef& n : path.nodes) ops.push_back(n.op_type);
  return ops;
}

const PathEdge* EdgeOf(const FindingPath& path, const std::string& value) {
  for (const PathEdge& e : path.edges) {
    if (e.tensor.name == value) return &e;
  }
  return nullptr;
}

TEST_CASE("finding path: from the finding's node to the node that fails", "[lint][path]") {
  Linted l = LintFixture("tests/rules/SL005/tile_far_from_failure.onnxtxt");
  REQUIRE(l.findings.size() == 1);
  const FindingPath& p = l.paths[0];
  CHECK(Ops(p) == std::vector<std::string>{"Tile", "Relu", "Transpose", "MatMul"});
  CHECK(p.connected);
  CHECK(p.nodes.front().index == l.findings[0].node.index);
  CHECK(p.nodes.back().index == l.findings[0].counterexample->failing_node.index);
  // Edges: what the Tile reads, then one tensor between each two nodes, then the MatMul's
  // other operand and its output.
  int along = 0;
  for (const PathEdge& e : p.edges) {
    if (e.from >= 0 && e.to == e.from + 1) ++along;
  }
  CHECK(along == 3);
  CHECK(p.edges.back().from == 3);
  CHECK(p.edges.back().to == -1);
  CHECK_FALSE(p.counterexample.empty());
}

TEST_CASE("finding path: from the Constant a note points at", "[lint][path]") {
  Linted l = LintFixture("tests/rules/SL011/slice_to_specialized_length.onnxtxt");
  const FindingPath* sl007 = nullptr;
  for (size_t i = 0; i < l.findings.size(); ++i) {
    if (l.findings[i].rule == "SL007") sl007 = &l.paths[i];
  }
  REQUIRE(sl007 != nullptr);
  CHECK(Ops(*sl007) == std::vector<std::string>{"Constant", "Slice", "Add"});
  // The literal end, 10, the same at both sizes; the sliced tensor 10 wide at both, where x
  // is 11 wide at the counterexample.
  const PathEdge* end = EdgeOf(*sl007, "end");
  REQUIRE(end != nullptr);
  CHECK(end->from == 0);
  CHECK(end->to == 1);
  CHECK(end->tensor.values_at_witness == SizesAt{10});
  CHECK(end->tensor.values_at_counterexample == SizesAt{10});
  const PathEdge* sliced = EdgeOf(*sl007, "sliced");
  REQUIRE(sliced != nullptr);
  CHECK(sliced->tensor.at_witness->back() == 10);
  CHECK(sliced->tensor.at_counterexample->back() == 10);
  const PathEdge* x = nullptr;
  for (const PathEdge& e : sl007->edges) {
    if (e.tensor.name == "x" && e.to == 2) x = &e;
  }
  REQUIRE(x != nullptr);
  CHECK(x->source == PathEdge::Source::kGraphInput);
  CHECK(x->tensor.at_counterexample->back() != 10);
}

TEST_CASE("finding path: the finding's node alone when nothing joins it to the failure",
          "[lint][path]") {
  Linted l = LintFixture("tests/rules/SL001/vgg_tail.onnxtxt");
  REQUIRE(l.findings.size() == 1);
  Finding f = l.findings[0];
  // The first Conv is upstream of the pool, not downstream.
  f.counterexample->failing_node = {.name = "", .op_type = "Conv", .index = 0, .graph = "main"};
  auto paths = PathsOf(*l.model, {}, {f});
  REQUIRE(paths.ok());
  const FindingPath& p = (*paths)[0];
  CHECK(Ops(p) == std::vector<std::string>{"AveragePool"});
  CHECK_FALSE(p.connected);

  // A node the model does not have: no path at all.
  f.node.index = 1000;
  paths = PathsOf(*l.model, {}, {f});
  REQUIRE(paths.ok());
  CHECK((*paths)[0].nodes.empty());
  CHECK((*paths)[0].edges.empty());
}

TEST_CASE("finding path: on to where the graph fails, the baked attribute drawn", "[lint][path]") {
  // adaptive_avg_pool2d(x, (2, 3)) decomposed at 6 x 6, then a Linear over the 12 features. At
  // H = 9 the pool returns 3 x 3 (SL001's counterexample is that change, at the pool) and the
  // Gemm is where ONNX Runtime stops: 18 features against 12.
  auto model = ir::LoadModelFromBytes(R"(<ir_version: 8, opset_import: ["" : 17]>
head (float[N,2,H,W] x) => (float[N,10] y) {
  p = AveragePool <kernel_shape = [3, 2], strides = [3, 2]> (x)
  f = Flatten <axis = 1> (p)
  w = Constant <value = float[10, 12] {0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0}> ()
  y = Gemm <transB = 1> (f, w)
}
)",
                                      "head.onnxtxt", ir::ModelFormat::kText);
  REQUIRE(model.ok());
  Finding f;
  f.rule = "SL001";
  f.node = {.name = "", .op_type = "AveragePool", .index = 0, .graph = "main"};
  f.attribute = "kernel_shape";
  Counterexample c;
  c.binding = {{"H", 9}, {"N", 2}, {"W", 6}};
  c.failing_node = f.node;
  c.failure = "the pool gives [3, 3] here";
  f.counterexample = c;
  auto paths = PathsOf(**model, {}, {f});
  REQUIRE(paths.ok());
  const FindingPath& p = (*paths)[0];
  CHECK(Ops(p) == std::vector<std::string>{"AveragePool", "Flatten", "Gemm"});
  CHECK(p.connected);
  CHECK(p.ends_in_failure);
  CHECK(p.literal == "kernel_shape = [3, 2]");
  // Where the graph runs on at the counterexample, the path ends at the finding's node.
  f.counterexample->binding = {{"H", 7}, {"N", 2}, {"W", 6}};
  paths = PathsOf(**model, {}, {f});
  REQUIRE(paths.ok());
  CHECK(Ops((*paths)[0]) == std::vector<std::string>{"AveragePool"});
  CHECK_FALSE((*paths)[0].ends_in_failure);
}

TEST_CASE("finding path: the export size is the witness, with --export-dims too", "[lint][path]") {
  Linted l = LintFixture("tests/corpus/torch/adaptive_avg_pool2d.onnx");
  REQUIRE(l.findings.size() == 1);
  const FindingPath& p = l.paths[0];
  CHECK(Ops(p) == std::vector<std::string>{"AveragePool"});
  const PathEdge* y = EdgeOf(p, "y");
  REQUIRE(y != nullptr);
  CHECK(y->graph_output);
  CHECK(y->tensor.at_witness->at(2) == 2);
  CHECK(y->tensor.at_counterexample->at(2) == 3);

  LintOptions options;
  auto dims = ParseSizes("x=1x3x7x6", kExportSizes);
  REQUIRE(dims.ok());
  options.export_dims = *dims;
  Linted at_export = LintFixture("tests/corpus/torch/adaptive_avg_pool2d.onnx", options);
  REQUIRE(at_export.paths.size() == 1);
  const PathEdge* x = EdgeOf(at_export.paths[0], "x");
  REQUIRE(x != nullptr);
  CHECK(x->tensor.at_witness == SizesAt{1, 3, 7, 6});
}

}  // namespace
}  // namespace shapelint::lint
