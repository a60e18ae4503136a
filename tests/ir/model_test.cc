// Model validation and indexing: what later stages may rely on, and the errors for what they
// may not.
#include <catch2/catch.hpp>
#include <string>

#include "absl/strings/match.h"
#include "absl/types/span.h"
#include "shapelint/ir/load.h"

namespace shapelint::ir {
namespace {

constexpr char kHeader[] = "<ir_version: 8, opset_import: [\"\" : 17]>\n";

absl::StatusOr<std::unique_ptr<Model>> Load(const std::string& graph) {
  return LoadModelFromBytes(std::string(kHeader) + graph, "m.onnxtxt");
}

std::vector<int> Ints(absl::Span<const int> span) { return {span.begin(), span.end()}; }

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
  CHECK(Ints(g.Consumers("x")) == std::vector<int>{1, 2});
  CHECK(g.Consumers("nowhere").empty());
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
  CHECK(Ints(g.Consumers("a")) == std::vector<int>{1});

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

TEST_CASE("values have dense ids; node inputs and outputs refer to them", "[ir]") {
  auto m = Load(R"(
g (float[N] x, int64[1] k) => (float[N] y, int64[1] i) {
  y, i = TopK (x, k)
  d = Dropout (y, , )
  s = Add (d, d)
})");
  INFO(m.status().message());
  REQUIRE(m.ok());
  const Graph& g = (*m)->graph();
  const ValueId x = g.FindValue("x"), k = g.FindValue("k"), y = g.FindValue("y"),
                i = g.FindValue("i"), d = g.FindValue("d"), s = g.FindValue("s");
  for (ValueId id : {x, k, y, i, d, s}) REQUIRE(id != kNoValue);
  CHECK(g.FindValue("ghost") == kNoValue);
  CHECK(g.num_values() == 6);
  CHECK(g.value_name(d) == "d");
  CHECK(std::vector<ValueId>(g.InputIds(0).begin(), g.InputIds(0).end()) ==
        std::vector<ValueId>{x, k});
  CHECK(std::vector<ValueId>(g.OutputIds(0).begin(), g.OutputIds(0).end()) ==
        std::vector<ValueId>{y, i});
  // Omitted optional inputs keep their place.
  CHECK(std::vector<ValueId>(g.InputIds(1).begin(), g.InputIds(1).end()) ==
        std::vector<ValueId>{y, kNoValue, kNoValue});
  CHECK(g.Producer(y) == 0);
  CHECK(g.Producer(x) == -1);
  CHECK(g.Defines(x));
  CHECK(g.Defines(s));
  CHECK(g.Input(x) != nullptr);
  CHECK(g.Input(y) == nullptr);
  CHECK(g.Output(i) != nullptr);
  CHECK(g.Initializer(x) == nullptr);
  // A node reading a value twice is one consumer.
  CHECK(Ints(g.Consumers(d)) == std::vector<int>{2});
  CHECK(Ints(g.Consumers(y)) == std::vector<int>{1});
  CHECK(g.Consumers(s).empty());
}

TEST_CASE("every value is found by its name after the name table grows", "[ir]") {
  // The table is sized for one value per node; Split's four outputs make it outgrow that.
  // Names share long prefixes and differ in one character, so a lookup that compared hashes
  // alone, or compared a name with the wrong value's, would find the wrong id.
  constexpr int kNodes = 600;
  std::string body = "g (float[N] x) => (float[N] out) {\n";
  std::string last = "x";
  for (int i = 0; i < kNodes; ++i) {
    const std::string p = "model_layers_" + std::to_string(i) + "_split_output_";
    body += p + "0, " + p + "1, " + p + "2, " + p + "3 = Split (" + last + ")\n";
    last = p + "3";
  }
  body += "out = Identity (" + last + ")\n}";
  auto text = Load(body);
  INFO(text.status().message());
  REQUIRE(text.ok());
  auto binary = LoadModelFromBytes((*text)->proto().SerializeAsString(), "m.onnx");
  INFO(binary.status().message());
  REQUIRE(binary.ok());
  for (const auto* m : {text->get(), binary->get()}) {
    const Graph& g = m->graph();
    REQUIRE(g.num_values() == 1 + 4 * kNodes + 1);
    for (ValueId id = 0; id < g.num_values(); ++id) {
      const std::string name(g.value_name(id));
      CHECK(g.FindValue(name) == id);
      CHECK(g.FindValue(name + "4") == kNoValue);
      CHECK(g.FindValue(name.substr(0, name.size() - 1)) == kNoValue);
    }
    CHECK(g.FindValue("model_layers_7_split_output_4") == kNoValue);
    CHECK(g.Producer("model_layers_7_split_output_2") == 7);
  }
}

TEST_CASE("a value read two subgraph levels down maps to each enclosing graph's id", "[ir]") {
  auto m = Load(R"(
g (bool c, float[N] x) => (float[N] y) {
  a = Relu (x)
  y = If (c) <
    then_branch = t () => (float[N] o) {
      o = If (c) <
        then_branch = tt () => (float[N] p) { p = Neg (a) },
        else_branch = te () => (float[N] p) { p = Identity (a) }
      >
    },
    else_branch = e () => (float[N] o) { o = Identity (x) }
  >
})");
  INFO(m.status().message());
  REQUIRE(m.ok());
  const Graph& g = m.value()->graph();
  const Graph* t = g.Subgraph(1, "then_branch");
  REQUIRE(t != nullptr);
  const Graph* tt = t->Subgraph(0, "then_branch");
  REQUIRE(tt != nullptr);
  const ValueId in_tt = tt->FindValue("a");
  REQUIRE(in_tt != kNoValue);
  CHECK_FALSE(tt->Defines(in_tt));
  const ValueId in_t = tt->OuterId(in_tt);
  REQUIRE(in_t != kNoValue);
  CHECK(t->value_name(in_t) == "a");
  CHECK_FALSE(t->Defines(in_t));
  const ValueId in_g = t->OuterId(in_t);
  CHECK(in_g == g.FindValue("a"));
  CHECK(g.Defines(in_g));
  CHECK(g.OuterId(in_g) == kNoValue);
  // The outer If and the inner one each depend on 'a' through their branches.
  CHECK(Ints(g.Consumers(in_g)) == std::vector<int>{1});
  CHECK(Ints(t->Consumers(in_t)) == std::vector<int>{0});
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

namespace shapelint::ir {
namespace {

TEST_CASE("model-local functions are expanded at their call sites", "[ir]") {
  auto m = LoadModelFromBytes(R"(<ir_version: 8, opset_import: ["" : 17, "local" : 1]>
g (float[N,4] x) => (float[N,4] y) {
  a = local.Scaled <alpha = 0.5> (x)
  y = local.Scaled (a)
}
<domain: "local", opset_import: ["" : 17]>
Scaled <alpha> (p) => (q) {
  t = Add (p, p)
  q = LeakyRelu <alpha: float = @alpha> (t)
}
)",
                              "f.onnxtxt");
  INFO(m.status().message());
  REQUIRE(m.ok());
  const Graph& g = (*m)->graph();
  REQUIRE(g.num_nodes() == 4);
  // Inner values get the call's namespace; formal parameters become the call's values.
  CHECK(g.node(0).name() == "Scaled_0/Add");
  CHECK(g.node(0).input(0) == "x");
  CHECK(g.node(0).output(0) == "Scaled_0/t");
  CHECK(g.node(1).output(0) == "a");
  CHECK(g.node(3).input(0) == "Scaled_1/t");
  CHECK(g.node(3).output(0) == "y");
  // The first call binds alpha; the second gives none, so the attribute is absent.
  REQUIRE(g.node(1).attribute_size() == 1);
  CHECK(g.node(1).attribute(0)->name() == "alpha");
  CHECK(g.node(1).attribute(0)->f() == 0.5f);
  CHECK(g.node(1).attribute(0)->ref_attr_name().empty());
  CHECK(g.node(3).attribute_size() == 0);
}

TEST_CASE("a recursive function stops expanding instead of growing forever", "[ir]") {
  auto m = LoadModelFromBytes(R"(<ir_version: 8, opset_import: ["" : 17, "local" : 1]>
g (float[N] x) => (float[N] y) {
  y = local.Forever (x)
}
<domain: "local", opset_import: ["" : 17, "local" : 1]>
Forever (p) => (q) {
  q = local.Forever (p)
}
)",
                              "r.onnxtxt");
  REQUIRE(m.ok());
  CHECK((*m)->graph().num_nodes() == 1);
  CHECK((*m)->graph().node(0).op_type() == "Forever");
}

}  // namespace
}  // namespace shapelint::ir
