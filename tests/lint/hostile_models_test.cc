// Hostile and broken models, each with the outcome it must have: a finding, an unknown fact
// with a note, or a load error that names the file (exit code 2 in the CLI). Never a crash, a
// hang or work beyond the documented caps. docs/limits.md lists every case and where it is
// tested; the cases tested elsewhere (cycles, duplicate names, wrong attribute types, dims near
// INT64_MAX) are named there.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cctype>
#include <cstdint>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/unknown_field_set.h"
#include "onnx/onnx_pb.h"
#include "shapelint/infer/engine.h"
#include "shapelint/ir/load.h"
#include "shapelint/lint/lint.h"
#include "shapelint/lint/probe.h"
#include "test_files.h"

namespace shapelint::lint {
namespace {

using ::shapelint::testing::ReadFile;

using ONNX_NAMESPACE::TensorProto;

// Loads `bytes`; if they load, infers and lints them. Returns the load error, or "" and the
// engine notes joined by newlines in `notes`.
std::string LoadAndLint(std::string_view bytes, const std::string& path,
                        std::string* notes = nullptr) {
  auto model = ir::LoadModelFromBytes(bytes, path);
  if (!model.ok()) return std::string(model.status().message());
  const infer::Inference inference = infer::Infer(**model);
  if (notes != nullptr) {
    for (const auto& n : inference.notes) absl::StrAppend(notes, n.message, "\n");
  }
  auto findings = Lint(**model);
  CHECK(findings.ok());
  return "";
}

std::string Text(const std::string& graph) {
  return "<ir_version: 8, opset_import: [\"\" : 17]>\n" + graph;
}

// An empty model (ir_version 8, opset 17) with graph input `name` of float[dims...]; a dim is
// a dim_param when it is a name, a dim_value otherwise.
ONNX_NAMESPACE::ModelProto ModelWithInput(const std::string& name,
                                          const std::vector<std::string>& dims) {
  ONNX_NAMESPACE::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(17);
  auto* x = m.mutable_graph()->add_input();
  x->set_name(name);
  auto* tt = x->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(TensorProto::FLOAT);
  for (const std::string& d : dims) {
    auto* dim = tt->mutable_shape()->add_dim();
    if (std::isalpha(static_cast<unsigned char>(d[0]))) {
      dim->set_dim_param(d);
    } else {
      dim->set_dim_value(std::stoll(d));
    }
  }
  return m;
}

// Appends node `op` (inputs) -> output to `m`'s graph.
void AddNode(ONNX_NAMESPACE::ModelProto& m, const std::string& op,
             const std::vector<std::string>& inputs, const std::string& output) {
  auto* n = m.mutable_graph()->add_node();
  n->set_op_type(op);
  for (const auto& i : inputs) n->add_input(i);
  n->add_output(output);
}

TEST_CASE("truncated and bit-flipped models load or fail with the file's name", "[hostile]") {
  const std::string model =
      ReadFile(SHAPELINT_SOURCE_DIR "/tests/corpus/torch/adaptive_avg_pool2d.onnx");
  REQUIRE(model.size() > 100);
  std::mt19937 random(7);
  int loaded = 0, refused = 0;
  for (size_t cut = 0; cut < model.size(); cut += model.size() / 64 + 1) {
    const std::string error = LoadAndLint(model.substr(0, cut), "cut.onnx");
    if (error.empty()) {
      ++loaded;
    } else {
      CHECK(absl::StartsWith(error, "cut.onnx: "));
      ++refused;
    }
  }
  for (int i = 0; i < 256; ++i) {
    std::string flipped = model;
    const size_t bit = random() % (flipped.size() * 8);
    flipped[bit / 8] = static_cast<char>(flipped[bit / 8] ^ (1 << (bit % 8)));
    const std::string error = LoadAndLint(flipped, "flip.onnx");
    if (error.empty()) {
      ++loaded;
    } else {
      CHECK(absl::StartsWith(error, "flip.onnx: "));
      ++refused;
    }
  }
  // Both outcomes occur: a flip in a name or a float still parses, a cut mid-field does not.
  CHECK(loaded > 0);
  CHECK(refused > 0);
}

TEST_CASE("zero-sized dims are sizes like any other", "[hostile]") {
  std::string notes;
  CHECK(LoadAndLint(Text(R"(
g (float[0,3] x) => (float[0,3] y) {
  y = Relu (x)
  s = ReduceSum <keepdims = 0> (x)
})"),
                    "zero.onnxtxt", &notes) == "");
  CHECK(notes.empty());
}

TEST_CASE("an output declared at the example with a size past any run gives it to no symbol",
          "[hostile]") {
  // The declaration reads as the exporter's record of the export sizes (axes that are numbers
  // where the graph follows the inputs): T = 5 is taken from it, and SL007 reads the Gather's
  // index 4 as T - 1; no one exported at a batch of 2^63 - 1, so B is not taken, and no
  // witness or counterexample holds it.
  auto model = ir::LoadModelFromBytes(Text(R"(
last (float[B,T,D] x) => (float[B,D] y, float[9223372036854775807,5,8] z) {
  index = Constant <value = int64 {4}> ()
  y = Gather <axis = 1> (x, index)
  z = Relu (x)
})"),
                                      "huge.onnxtxt");
  REQUIRE(model.ok());
  auto findings = Lint(**model);
  REQUIRE(findings.ok());
  const auto sl007 = std::find_if(findings->begin(), findings->end(),
                                  [](const Finding& f) { return f.rule == "SL007"; });
  REQUIRE(sl007 != findings->end());
  REQUIRE(sl007->counterexample.has_value());
  for (const auto& [symbol, size] : sl007->counterexample->binding) {
    INFO(symbol);
    CHECK(size < 1000);
  }
}

TEST_CASE("a negative declared dim is unknown, with a note", "[hostile]") {
  auto m = ModelWithInput("x", {"-3", "N"});
  AddNode(m, "Relu", {"x"}, "y");
  m.mutable_graph()->add_output()->set_name("y");
  std::string notes;
  CHECK(LoadAndLint(m.SerializeAsString(), "neg.onnx", &notes) == "");
  CHECK(absl::StrContains(notes, "graph input 'x' declares axis 0 as -3"));
}

TEST_CASE("a dim_param that is never a positive size is unknown, with a note", "[hostile]") {
  for (const std::string param : {"s0-s0-1", "0*s0-5", "-s0", "-1"}) {
    INFO(param);
    auto m = ModelWithInput("x", {"s0"});
    m.mutable_graph()
        ->mutable_input(0)
        ->mutable_type()
        ->mutable_tensor_type()
        ->mutable_shape()
        ->add_dim()
        ->set_dim_param(param);
    AddNode(m, "Relu", {"x"}, "y");
    m.mutable_graph()->add_output()->set_name("y");
    auto model = ir::LoadModelFromBytes(m.SerializeAsString(), "param.onnx");
    REQUIRE(model.ok());
    const infer::Inference inference = infer::Infer(**model);
    std::string notes;
    for (const auto& n : inference.notes) absl::StrAppend(&notes, n.message, "\n");
    CHECK(absl::StrContains(notes, absl::StrCat("graph input 'x' declares axis 1 as '", param,
                                                "', which is never a positive size")));
    const infer::TensorFact* y = inference.Find("y");
    REQUIRE(y != nullptr);
    REQUIRE(y->shape);
    REQUIRE(y->shape->size() == 2);
    // Its own symbol, as an unnamed dynamic dim gets: no size, never a negative one.
    CHECK((*y->shape)[1]->ToString() == "x:1");
    auto findings = Lint(**model);
    REQUIRE(findings.ok());
    CHECK(findings->empty());
  }
  // Sizes that may be 0 or positive stay as declared.
  for (const std::string param : {"s0-s0", "s0-1", "s0*2"}) {
    auto m = ModelWithInput("x", {param});
    AddNode(m, "Relu", {"x"}, "y");
    std::string notes;
    CHECK(LoadAndLint(m.SerializeAsString(), "param.onnx", &notes) == "");
    CHECK(notes.empty());
  }
}

TEST_CASE("a Reshape to a product that overflows int64 is unknown, with a note", "[hostile]") {
  std::string notes;
  CHECK(LoadAndLint(Text(R"(
g (float[N] x) => (float[?,?] y) {
  shape = Constant <value = int64[2] {4611686018427387904, 4}> ()
  y = Reshape (x, shape)
})"),
                    "overflow.onnxtxt", &notes) == "");
  CHECK(absl::StrContains(notes, "overflowed int64"));
}

// ONNX text with `levels` Ifs, each in the then-branch of the one above.
std::string NestedIfsText(int levels) {
  std::string head;
  std::vector<std::string> tails;  // innermost first
  for (int level = levels; level >= 1; --level) {
    absl::StrAppend(&head, "o", level, " = If (c) <then_branch = t", level, " () => (float[?] o",
                    level - 1, ") { ");
    tails.push_back(absl::StrCat(" }, else_branch = e", level, " () => (float[?] o", level - 1,
                                 ") { o", level - 1, " = Neg (x) }>"));
  }
  std::string tail;
  for (auto it = tails.rbegin(); it != tails.rend(); ++it) tail += *it;
  return Text(absl::StrCat("g (float[N] x, bool c) => (float[?] o", levels, ") {\n  ", head,
                           "o0 = Relu (x)", tail, "\n}"));
}

// Protobuf wire format written back to front, so that a model nested thousands of levels deep
// is built in linear time: each level prepends its own fields around what is already there.
class BackToFront {
 public:
  void Raw(std::string_view bytes) { reversed_.append(bytes.rbegin(), bytes.rend()); }
  void Varint(uint64_t v) {
    std::string s;
    do {
      s.push_back(static_cast<char>((v & 0x7f) | (v > 0x7f ? 0x80 : 0)));
      v >>= 7;
    } while (v != 0);
    Raw(s);
  }
  void Int(int field, uint64_t v) {
    Varint(v);
    Varint(static_cast<uint64_t>(field) << 3);
  }
  void String(int field, std::string_view s) {
    Raw(s);
    Varint(s.size());
    Varint(static_cast<uint64_t>(field) << 3 | 2);
  }
  // Turns everything written since `mark` into the content of length-delimited `field`.
  void Wrap(int field, size_t mark) {
    Varint(reversed_.size() - mark);
    Varint(static_cast<uint64_t>(field) << 3 | 2);
  }
  size_t size() const { return reversed_.size(); }
  std::string Bytes() const { return std::string(reversed_.rbegin(), reversed_.rend()); }

 private:
  std::string reversed_;
};

// A binary model with `levels` Ifs, each in the then-branch of the one above. Field numbers
// from onnx.proto: GraphProto node 1, input 11, output 12; NodeProto input 1, output 2,
// op_type 4, attribute 5; AttributeProto name 1, g 6, type 20 (GRAPH = 5); ModelProto
// ir_version 1, graph 7, opset_import 8 (version 2).
std::string NestedIfsBinary(int levels) {
  BackToFront w;
  auto node = [&](std::string_view op, std::string_view in, const std::string& out) {
    const size_t mark = w.size();
    w.String(4, op);
    w.String(2, out);
    w.String(1, in);
    w.Wrap(1, mark);
  };
  auto graph_output = [&](const std::string& name) {
    const size_t mark = w.size();
    w.String(1, name);
    w.Wrap(12, mark);
  };
  // The innermost graph: o0 = Relu (x).
  graph_output("o0");
  node("Relu", "x", "o0");
  for (int level = 1; level <= levels; ++level) {
    // The graph so far becomes the then-branch of a new If.
    const std::string out = absl::StrCat("o", level);
    w.Wrap(6, 0);
    w.Int(20, 5);
    w.String(1, "then_branch");
    w.Wrap(5, 0);
    const size_t else_mark = w.size();
    const size_t else_graph = w.size();
    graph_output(absl::StrCat("e", level));
    node("Neg", "x", absl::StrCat("e", level));
    w.Wrap(6, else_graph);
    w.Int(20, 5);
    w.String(1, "else_branch");
    w.Wrap(5, else_mark);
    w.String(4, "If");
    w.String(2, out);
    w.String(1, "c");
    w.Wrap(1, 0);
    graph_output(out);
  }
  for (const char* name : {"c", "x"}) {
    const size_t mark = w.size();
    w.String(1, name);
    w.Wrap(11, mark);
  }
  w.Wrap(7, 0);
  const size_t opset = w.size();
  w.Int(2, 17);
  w.Wrap(8, opset);
  w.Int(1, 8);
  return w.Bytes();
}

TEST_CASE("10,000 nested Ifs are refused with a message, binary or text", "[hostile]") {
  // The text would make ONNX's recursive parser overflow the stack: refused before parsing.
  const std::string text_error = LoadAndLint(NestedIfsText(10000), "deep.onnxtxt");
  CHECK(absl::StartsWith(text_error, "deep.onnxtxt: invalid ONNX text format: brackets nest"));
  // Protobuf stops at 256 nested messages, about 85 levels of If.
  const std::string binary_error = LoadAndLint(NestedIfsBinary(10000), "deep.onnx");
  CHECK(absl::StartsWith(binary_error, "deep.onnx: cannot be parsed"));
  CHECK(absl::StrContains(binary_error, "nested deeper than"));
  // 70 levels parse, and the model's own limit refuses them by name.
  const std::string seventy = LoadAndLint(NestedIfsBinary(70), "seventy.onnx");
  CHECK(absl::StrContains(seventy, "subgraphs nested deeper than 64 levels"));
  // 40 levels are a model like any other, in both forms.
  CHECK(LoadAndLint(NestedIfsBinary(40), "forty.onnx") == "");
  CHECK(LoadAndLint(NestedIfsText(40), "forty.onnxtxt") == "");
}

TEST_CASE("100,000 nodes in one chain lint in one pass", "[hostile]") {
  // The million-node case is measured in tools/bench (docs/limits.md); here the chain checks
  // that nothing recurses per node (a recursive walk would overflow the stack long before).
  auto m = ModelWithInput("v0", {"N"});
  constexpr int kNodes = 100000;
  for (int i = 0; i < kNodes; ++i) {
    AddNode(m, i % 2 == 0 ? "Relu" : "Neg", {absl::StrCat("v", i)}, absl::StrCat("v", i + 1));
  }
  m.mutable_graph()->add_output()->set_name(absl::StrCat("v", kNodes));
  std::string notes;
  CHECK(LoadAndLint(m.SerializeAsString(), "chain.onnx", &notes) == "");
  CHECK(notes.empty());
}

TEST_CASE("a chain that nests one more floor and min per block stays linear", "[hostile]") {
  // v' = Slice(Concat(v, v), 0, Shape(v) + Shape(v) / 2): each block's dim nests the last one
  // twice. Asking whether such a dim is non-negative once walked the shared expression as a
  // tree, doubling the work per block (18 blocks took 8 s); the expression caps then make the
  // dim unknown after 64 levels.
  std::string text =
      "<ir_version: 8, opset_import: [\"\" : 17]>\n"
      "g (float[N] v0) => (float[?] y) <int64[1] two = {2}, int64[1] zero = {0}> {\n";
  constexpr int kBlocks = 200;
  for (int i = 0; i < kBlocks; ++i) {
    absl::StrAppend(&text, "  c", i, " = Concat <axis = 0> (v", i, ", v", i, ")\n  s", i,
                    " = Shape (v", i, ")\n  h", i, " = Div (s", i, ", two)\n  e", i, " = Add (s", i,
                    ", h", i, ")\n  v", i + 1, " = Slice (c", i, ", zero, e", i, ")\n");
  }
  absl::StrAppend(&text, "  y = Identity (v", kBlocks, ")\n}\n");
  std::string notes;
  CHECK(LoadAndLint(text, "growing.onnxtxt", &notes) == "");
  CHECK(absl::StrContains(notes, "grew past the cap"));
}

TEST_CASE("an initializer whose raw data disagrees with its dims is unknown, with a note",
          "[hostile]") {
  auto m = ModelWithInput("x", {"N", "4"});
  auto* s = m.mutable_graph()->add_initializer();
  s->set_name("s");
  s->set_data_type(TensorProto::INT64);
  s->add_dims(3);
  s->set_raw_data(std::string(16, '\x01'));  // two int64, where three are declared
  AddNode(m, "Reshape", {"x", "s"}, "y");
  m.mutable_graph()->add_output()->set_name("y");
  std::string notes;
  CHECK(LoadAndLint(m.SerializeAsString(), "raw.onnx", &notes) == "");
  CHECK(absl::StrContains(notes,
                          "initializer 's' holds 16 bytes of raw data where its dims ask "
                          "for 3 elements of 8 bytes"));
}

TEST_CASE("a Constant without a value is unknown, with a note", "[hostile]") {
  std::string notes;
  CHECK(LoadAndLint(Text(R"(
g (float[N,4] x) => (float[?] y) {
  s = Constant ()
  y = Reshape (x, s)
})"),
                    "empty.onnxtxt", &notes) == "");
  CHECK(absl::StrContains(notes, "a Constant without a value attribute"));
}

TEST_CASE("unknown domains and opsets newer than modelled are read with a note", "[hostile]") {
  std::string notes;
  CHECK(LoadAndLint(R"(<ir_version: 8, opset_import: ["" : 99, "com.acme" : 3]>
g (float[N] x) => (float[N] y) {
  t = com.acme.Frob (x)
  y = Relu (x)
})",
                    "future.onnxtxt", &notes) == "");
  CHECK(absl::StrContains(notes, "imports opset 99 of the default domain"));
  CHECK(absl::StrContains(notes, "op com.acme.Frob is not modelled yet"));
}

// A pool whose node metadata says torch exported it from an adaptive pool (SL001 reads it
// without a failure), with its data input `input` (none when empty) and output y.
ONNX_NAMESPACE::ModelProto RecordedAdaptivePool(const std::vector<std::string>& inputs) {
  auto m = ModelWithInput("x", {"1", "3", "H", "W"});
  m.set_ir_version(10);
  auto* n = m.mutable_graph()->add_node();
  n->set_op_type("AveragePool");
  for (const auto& i : inputs) n->add_input(i);
  n->add_output("y");
  for (const char* name : {"kernel_shape", "strides"}) {
    auto* a = n->add_attribute();
    a->set_name(name);
    a->set_type(ONNX_NAMESPACE::AttributeProto::INTS);
    a->add_ints(2);
    a->add_ints(2);
  }
  // NodeProto.metadata_props (field 9, IR 10) is newer than the onnx.proto this builds
  // against: written as the unknown field the loader reads it from.
  auto add_metadata = [n](const std::string& key, const std::string& value) {
    ONNX_NAMESPACE::StringStringEntryProto entry;
    entry.set_key(key);
    entry.set_value(value);
    n->GetReflection()->MutableUnknownFields(n)->AddLengthDelimited(9, entry.SerializeAsString());
  };
  add_metadata("pkg.torch.onnx.class_hierarchy",
               "['Net', 'torch.nn.modules.pooling.AdaptiveAvgPool2d']");
  add_metadata("pkg.torch.onnx.stack_trace",
               "File \"net.py\", line 9, in forward\n    return F.adaptive_avg_pool2d(x, (4, 4))");
  m.mutable_graph()->add_output()->set_name("y");
  return m;
}

TEST_CASE("a pool recorded as adaptive with no data input lints without a finding on it",
          "[hostile]") {
  // No input, an omitted one, and the input present (the case the rule is for: a finding).
  for (const auto& inputs : std::vector<std::vector<std::string>>{{}, {""}, {"x"}}) {
    INFO(inputs.size());
    const std::string bytes = RecordedAdaptivePool(inputs).SerializeAsString();
    CHECK(LoadAndLint(bytes, "pool.onnx") == "");
    auto model = ir::LoadModelFromBytes(bytes, "pool.onnx");
    REQUIRE(model.ok());
    LintOptions options;
    options.fix_its = true;
    auto findings = Lint(**model, options);
    REQUIRE(findings.ok());
    const bool reported = std::any_of(findings->begin(), findings->end(),
                                      [](const Finding& f) { return f.rule == "SL001"; });
    CHECK(reported == (inputs.size() == 1 && !inputs[0].empty()));
  }
}

TEST_CASE("a Transpose perm that is not a permutation is unknown, with a note", "[hostile]") {
  // A small tracked int64 tensor (torch's pads) through the Transpose into Reshape and Pad:
  // its elements are permuted by perm, so a repeated axis read past the end of them.
  for (const std::string perm : {"0, 0", "1, 1", "0, 2", "0", "1, 0, 2", "-3, 0"}) {
    INFO(perm);
    std::string notes;
    CHECK(LoadAndLint(Text(absl::StrCat(R"(
g (float[N,C] x) => (float[?,?] y) {
  c = Constant <value = int64[2,2] {0, 1, 2, 3}> ()
  t = Transpose <perm = [)",
                                        perm, R"(]> (c)
  flat = Constant <value = int64[1] {-1}> ()
  pads = Reshape (t, flat)
  y = Pad (x, pads)
})")),
                      "perm.onnxtxt", &notes) == "");
    CHECK(absl::StrContains(
        notes, absl::StrCat("Transpose's perm [", perm, "] is not a permutation of the 2 axes")));
  }
  // A valid perm, negative axes counted from the end, permutes the elements.
  const std::string model = Text(R"(
g (float[N,C] x) => (float[?,?] y) {
  c = Constant <value = int64[2,2] {0, 1, 2, 3}> ()
  t = Transpose <perm = [-1, 0]> (c)
  flat = Constant <value = int64[1] {-1}> ()
  pads = Reshape (t, flat)
  y = Pad (x, pads)
})");
  auto loaded = ir::LoadModelFromBytes(model, "perm.onnxtxt");
  REQUIRE(loaded.ok());
  const infer::Inference inference = infer::Infer(**loaded);
  CHECK(inference.notes.empty());
  const infer::TensorFact* y = inference.Find("y");
  REQUIRE(y != nullptr);
  REQUIRE(y->shape);
  REQUIRE(y->shape->size() == 2);
  // pads [[0, 1], [2, 3]] transposed: begins 0, 2 and ends 1, 3.
  CHECK((*y->shape)[0]->ToString() == "N + 1");
  CHECK((*y->shape)[1]->ToString() == "C + 5");
}

TEST_CASE("a probe range at INT64_MAX ends, its sizes unknown where they overflow", "[hostile]") {
  const std::string text = Text(R"(
g (float[N] x) => (float[?] y) {
  one = Constant <value = float[1] {1}> ()
  y = Concat <axis = 0> (x, one)
})");
  auto model = ir::LoadModelFromBytes(text, "range.onnxtxt");
  REQUIRE(model.ok());
  for (const std::string range : {"N=9223372036854775807..9223372036854775807",
                                  "N=9223372036854775800..9223372036854775807"}) {
    INFO(range);
    auto spec = ParseProbeSpec(range);
    REQUIRE(spec.ok());
    auto probes = Probe(**model, {{range, *spec}});
    REQUIRE(probes.ok());
    REQUIRE(probes->size() == 1);
    // N + 1 overflows at the top size: unknown, so nothing is said to break there.
    CHECK((*probes)[0].failing.empty());
  }
}

TEST_CASE("each declaration of a duplicated output shows its own counterexample", "[hostile]") {
  auto model = ir::LoadModelFromBytes(Text(R"(
g (float[N,3] x) => (float[N,2] y, float[5,3] y) {
  y = Relu (x)
})"),
                                      "dup.onnxtxt");
  REQUIRE(model.ok());
  auto findings = Lint(**model);
  REQUIRE(findings.ok());
  REQUIRE(findings->size() == 2);
  for (const Finding& f : *findings) {
    INFO(f.message);
    CHECK(f.rule == "SL003");
    REQUIRE(f.counterexample);
    // f.attribute is "output 'y' axis A": the failure is about the same axis.
    CHECK(absl::StrContains(f.counterexample->failure,
                            "'y' axis " + f.attribute.substr(f.attribute.size() - 1)));
  }
}

TEST_CASE("ir_version 1 and 12 lint like any other version", "[hostile]") {
  for (int version : {1, 12}) {
    const std::string text = absl::StrCat("<ir_version: ", version, R"(, opset_import: ["" : 17]>
g (float[N,8] x) => (float[N,8] y) {
  y = Relu (x)
})");
    std::string notes;
    INFO(version);
    CHECK(LoadAndLint(text, "v.onnxtxt", &notes) == "");
    CHECK(notes.empty());
  }
}

}  // namespace
}  // namespace shapelint::lint
