// Model validation and indexing: what later stages may rely on, and the errors for what they
// may not.
#include <catch2/catch.hpp>
#include <string>

#include "absl/strings/match.h"
#include "shapelint/ir/load.h"

namespace shapelint::ir {
namespace {

constexpr char kHeader[] = "<ir_version: 8, opset_import: [\"\" : 17]>\n";

absl::StatusOr<std::unique_ptr<Model>> Load(const std::string& graph) {
  return LoadModelFromBytes(std::string(kHeader) + graph, "m.onnxtxt");
}

TEST_CASE("nodes are ordered after their producers, file order kept otherwise", "[ir]") {
  auto m = Load(R"(
g (float[N] x) => (float[N] z) {
  z = Add (y, c)
  y = Relu (x)
  c = Neg (x)
})");
  REQUIRE(m.ok());
  const Graph& g = (*m)->graph();
  // y (1) and c (2) are ready first, in file order; z (0) follows.
  CHECK(g.topological_order() == std::vector<int>{1, 2, 0});
  CHECK(g.Producer("y") == 1);
  CHECK(g.Producer("x") == -1);
  CHECK(g.Consumers("x") == std::vector<int>{1, 2});
  CHECK(g.Input("x") != nullptr);
  CHECK(g.Output("z") != nullptr);
  CHECK(g.NodeLabel(0) == "<Add #0>");
  CHECK((*m)->OpsetVersion("") == 17);
  CHECK((*m)->OpsetVersion("ai.onnx") == 17);
  CHECK((*m)->OpsetVersion("com.microsoft") == -1);
}

TEST_CASE("invalid graphs are errors that name the file, node and value", "[ir]") {
  struct Case {
    const char* graph;
    const char* message;
  };
  const Case cases[] = {
      {"g (float[N] x) => (float[N] y) { y = Add (x, nothing) }",
       "node '<Add #0>' (Add) reads 'nothing', which no node, graph input or initializer"},
      {"g (float[N] x) => (float[N] y) { a = Relu (b)\n b = Relu (a)\n y = Relu (a) }",
       "cycle: node '<Relu #0>' (Relu) reads 'b'"},
      {"g (float[N] x) => (float[N] y) { y = Relu (y) }", "reads its own output 'y'"},
      {"g (float[N] x) => (float[N] y) { y = Relu (x)\n y = Neg (x) }",
       "value 'y' is produced by both node '<Relu #0>' (Relu) and node '<Neg #1>' (Neg)"},
      {"g (float[N] x) => (float[N] y) { x = Relu (x)\n y = Neg (x) }",
       "writes 'x', which is already a graph input"},
      {"g (float[N] x) => (float[N] y, float[N] w) { y = Relu (x) }",
       "graph output 'w' of main is not produced by any node"},
  };
  for (const Case& c : cases) {
    auto m = Load(c.graph);
    INFO(c.graph);
    REQUIRE_FALSE(m.ok());
    INFO(m.status().message());
    CHECK(absl::StartsWith(m.status().message(), "m.onnxtxt: "));
    CHECK(absl::StrContains(m.status().message(), c.message));
  }
}

TEST_CASE("subgraphs resolve outer values and are validated too", "[ir]") {
  auto ok = Load(R"(
g (bool c, float[N] x) => (float[N] y) {
  a = Relu (x)
  y = If (c) <
    then_branch = t () => (float[N] o) { o = Neg (a) },
    else_branch = e () => (float[N] o) { o = Identity (x) }
  >
})");
  INFO(ok.status().message());
  REQUIRE(ok.ok());
  const Graph& g = (*ok)->graph();
  // The If reads 'a' through its branch, so it comes after the Relu.
  CHECK(g.topological_order() == std::vector<int>{0, 1});
  REQUIRE(g.Subgraphs(1).size() == 2);
  CHECK(g.Subgraphs(1)[0]->path() == "main/<If #1>.then_branch");
  CHECK(g.Consumers("a") == std::vector<int>{1});

  auto bad = Load(R"(
g (bool c, float[N] x) => (float[N] y) {
  y = If (c) <
    then_branch = t () => (float[N] o) { o = Neg (ghost) },
    else_branch = e () => (float[N] o) { o = Identity (x) }
  >
})");
  REQUIRE_FALSE(bad.ok());
  CHECK(absl::StrContains(bad.status().message(), "reads 'ghost'"));
}

TEST_CASE("bad bytes are load errors, never crashes", "[ir]") {
  auto empty = LoadModelFromBytes("", "e.onnx");
  REQUIRE_FALSE(empty.ok());
  CHECK(empty.status().message() == "e.onnx: empty file");

  auto text = LoadModelFromBytes("<ir_version: 8> g (float[N] x) => (float[N] y) { y = Relu (x) ",
                                 "t.onnxtxt");
  REQUIRE_FALSE(text.ok());
  CHECK(absl::StartsWith(text.status().message(), "t.onnxtxt: invalid ONNX text format"));

  auto garbage = LoadModelFromBytes("\x0a\xff\xff\xff\xff\x0f garbage", "g.onnx");
  REQUIRE_FALSE(garbage.ok());
  CHECK(absl::StrContains(garbage.status().message(), "g.onnx: "));

  // A valid protobuf message that is not a model: no graph.
  auto no_graph = LoadModelFromBytes(std::string("\x08\x07", 2), "n.onnx");  // ir_version: 7
  REQUIRE_FALSE(no_graph.ok());
  CHECK(absl::StrContains(no_graph.status().message(), "n.onnx: not an ONNX model"));
}

}  // namespace
}  // namespace shapelint::ir
