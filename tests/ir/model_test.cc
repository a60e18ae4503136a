// Model validation and indexing: what later stages may rely on, and the errors for what they
// may not.
#include "shapelint/ir/model.h"

#include <catch2/catch.hpp>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/types/span.h"
#include "onnx/onnx_pb.h"
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

TEST_CASE("two unnamed calls of one function inside another get names of their own", "[ir]") {
  // Both calls of G were named "F_0/G" before their expansion, and so both made "F_0/G/t":
  // two producers of one value, a valid model refused.
  auto m = LoadModelFromBytes(R"(<ir_version: 8, opset_import: ["" : 17, "local" : 1]>
g (float[N] x) => (float[N] y) {
  y = local.F (x)
}
<domain: "local", opset_import: ["" : 17, "local" : 1]>
F (p) => (q) {
  a = local.G (p)
  q = local.G (a)
}
<domain: "local", opset_import: ["" : 17]>
G (u) => (v) {
  t = Relu (u)
  v = Neg (t)
}
)",
                              "twice.onnxtxt");
  INFO(m.status().message());
  REQUIRE(m.ok());
  const Graph& g = (*m)->graph();
  REQUIRE(g.num_nodes() == 4);
  CHECK(g.node(0).output(0) == "F_0/G_0/t");
  CHECK(g.node(1).output(0) == "F_0/a");
  CHECK(g.node(2).output(0) == "F_0/G_1/t");
  CHECK(g.node(3).output(0) == "y");
}

TEST_CASE("an expansion's names never repeat a name the model has", "[ir]") {
  // The graph names a value "F_0/t" itself (torch.onnx writes names like that), which the
  // unnamed call at index 0 would make too. ONNX's text format has no such names: built here.
  ONNX_NAMESPACE::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(17);
  auto* local = m.add_opset_import();
  local->set_domain("local");
  local->set_version(1);
  auto* g = m.mutable_graph();
  g->set_name("g");
  g->add_input()->set_name("x");
  g->add_output()->set_name("y");
  g->add_output()->set_name("z");
  auto add = [](auto* nodes, const std::string& op, const std::string& domain,
                const std::string& in, const std::string& out) {
    auto* n = nodes->add_node();
    n->set_op_type(op);
    n->set_domain(domain);
    n->add_input(in);
    n->add_output(out);
  };
  add(g, "F", "local", "x", "y");
  add(g, "Neg", "", "x", "F_0/t");
  add(g, "Identity", "", "F_0/t", "z");
  auto* f = m.add_functions();
  f->set_name("F");
  f->set_domain("local");
  f->add_opset_import()->set_version(17);
  f->add_input("p");
  f->add_output("q");
  add(f, "Relu", "", "p", "t");
  add(f, "Neg", "", "t", "q");
  auto model = Model::FromProto(m, "taken.onnx");
  INFO(model.status().message());
  REQUIRE(model.ok());
  CHECK((*model)->graph().node(0).output(0) == "F_0_2/t");
  CHECK((*model)->graph().node(2).output(0) == "F_0/t");
}

TEST_CASE("a recursive function with two calls of itself stays a call", "[ir]") {
  auto m = LoadModelFromBytes(R"(<ir_version: 8, opset_import: ["" : 17, "local" : 1]>
g (float[N] x) => (float[N] y) {
  y = local.Tree (x)
}
<domain: "local", opset_import: ["" : 17, "local" : 1]>
Tree (p) => (q) {
  a = local.Tree (p)
  q = local.Tree (a)
}
)",
                              "tree.onnxtxt");
  INFO(m.status().message());
  REQUIRE(m.ok());
  REQUIRE((*m)->graph().num_nodes() == 1);
  CHECK((*m)->graph().node(0).op_type() == "Tree");
}

// Functions f1..f`levels`: each calls the one below `fan_out` times in a chain; the main graph
// calls the top one. f1 is a Relu.
std::string FanOut(int levels, int fan_out) {
  std::string text = absl::StrCat(
      "<ir_version: 8, opset_import: [\"\" : 17, \"local\" : 1]>\n"
      "g (float[N] x) => (float[N] y) {\n  y = local.f",
      levels, " (x)\n}\n");
  for (int k = 1; k <= levels; ++k) {
    absl::StrAppend(&text, "<domain: \"local\", opset_import: [\"\" : 17, \"local\" : 1]>\nf", k,
                    " (p) => (q) {\n");
    if (k == 1) {
      absl::StrAppend(&text, "  q = Relu (p)\n}\n");
      continue;
    }
    std::string in = "p";
    for (int c = 0; c < fan_out; ++c) {
      const std::string out = c + 1 == fan_out ? "q" : absl::StrCat("a", c);
      absl::StrAppend(&text, "  ", out, " = local.f", k - 1, " (", in, ")\n");
      in = out;
    }
    absl::StrAppend(&text, "}\n");
  }
  return text;
}

TEST_CASE("functions that would expand past the caps refuse the model before expanding", "[ir]") {
  // 16 levels of calls expand; 17 are refused by name.
  auto sixteen = LoadModelFromBytes(FanOut(16, 1), "sixteen.onnxtxt");
  INFO(sixteen.status().message());
  REQUIRE(sixteen.ok());
  CHECK((*sixteen)->graph().num_nodes() == 1);
  auto seventeen = LoadModelFromBytes(FanOut(17, 1), "seventeen.onnxtxt");
  REQUIRE_FALSE(seventeen.ok());
  CHECK(std::string(seventeen.status().message()) ==
        "seventeen.onnxtxt: model-local functions call each other more than 16 levels deep from "
        "the call of local.f17; the model is refused");
  // Each function calling the one below twice, 24 levels (about 5 KB of text): 2^23 Relus, once
  // 871 MB and "op local.fK is not modelled" notes on a model that then linted. Counted first.
  auto doubling = LoadModelFromBytes(FanOut(24, 2), "doubling.onnxtxt");
  REQUIRE_FALSE(doubling.ok());
  CHECK(absl::StrContains(doubling.status().message(), "more than 16 levels deep"));
  // Three calls each, 14 levels: within the depth, 3^13 = 1,594,323 nodes.
  auto tripling = LoadModelFromBytes(FanOut(14, 3), "tripling.onnxtxt");
  REQUIRE_FALSE(tripling.ok());
  CHECK(std::string(tripling.status().message()) ==
        "tripling.onnxtxt: expanding the model-local functions would make more than 1000000 "
        "nodes; the model is refused");
  // 3^10 = 59,049 nodes are within it.
  auto fewer = LoadModelFromBytes(FanOut(11, 3), "fewer.onnxtxt");
  INFO(fewer.status().message());
  REQUIRE(fewer.ok());
  CHECK((*fewer)->graph().num_nodes() == 59049);
}

}  // namespace
}  // namespace shapelint::ir
