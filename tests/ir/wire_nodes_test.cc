// Nodes read from the wire format must be exactly the nodes protobuf's parser reads: every
// model of the export corpus and ONNX's test data, and hand-written edge cases of the format.
#include "ir/wire_nodes.h"

#include <onnx/onnx_pb.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <string>
#include <vector>

#include "shapelint/ir/load.h"
#include "test_files.h"

namespace shapelint::ir {
namespace {

using ::shapelint::testing::ReadFile;

using ONNX_NAMESPACE::GraphProto;
using ONNX_NAMESPACE::ModelProto;
using ONNX_NAMESPACE::NodeProto;
using ONNX_NAMESPACE::TensorProto;

// Node by node, what the wire path reads against the NodeProtos protobuf parses.
void CheckSameNodes(const Graph& graph, const GraphProto& expected, const std::string& label) {
  INFO(label);
  REQUIRE(graph.num_nodes() == expected.node_size());
  for (int i = 0; i < graph.num_nodes(); ++i) {
    const Node n = graph.node(i);
    const NodeProto& want = expected.node(i);
    INFO("node " << i << " " << want.op_type());
    CHECK(n.op_type() == want.op_type());
    CHECK(n.domain() == want.domain());
    CHECK(n.name() == want.name());
    REQUIRE(n.input_size() == want.input_size());
    for (int k = 0; k < n.input_size(); ++k) CHECK(n.input(k) == want.input(k));
    REQUIRE(n.output_size() == want.output_size());
    for (int k = 0; k < n.output_size(); ++k) CHECK(n.output(k) == want.output(k));
    REQUIRE(n.attribute_size() == want.attribute_size());
    for (int k = 0; k < n.attribute_size(); ++k) {
      CHECK(n.attribute(k)->SerializeAsString() == want.attribute(k).SerializeAsString());
    }
  }
}

// Loads `bytes` both ways and compares; returns false when the model does not load.
bool CheckBothWays(const std::string& bytes, const std::string& label) {
  ModelProto parsed;
  if (!parsed.ParseFromString(bytes)) return false;
  auto model = LoadModelFromBytes(bytes, label, ModelFormat::kBinary);
  if (!model.ok()) return false;
  // The wire path applies to models without functions; the others keep their NodeProtos.
  if (parsed.functions_size() == 0) {
    CHECK((*model)->proto().graph().node_size() == 0);
    CheckSameNodes((*model)->graph(), parsed.graph(), label);
  }
  // CompleteProto puts the nodes back (all but doc strings): re-indexing it gives the same graph.
  auto again = Model::FromProto((*model)->CompleteProto(), label);
  REQUIRE(again.ok());
  if (parsed.functions_size() == 0) CheckSameNodes((*again)->graph(), parsed.graph(), label);
  CHECK((*again)->graph().topological_order() == (*model)->graph().topological_order());
  return true;
}

TEST_CASE("wire nodes equal protobuf's on every model of the export corpus", "[ir]") {
  const std::filesystem::path dir =
      std::filesystem::path(SHAPELINT_SOURCE_DIR) / "tests/corpus/exports";
  int checked = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".onnx") continue;
    if (CheckBothWays(ReadFile(entry.path()), entry.path().filename().string())) ++checked;
  }
  CHECK(checked >= 100);
}

TEST_CASE("wire nodes equal protobuf's on ONNX's test data", "[ir]") {
  const std::filesystem::path dir = std::filesystem::path(SHAPELINT_ONNX_TESTDATA_DIR) / "node";
  // Missing test data fails here as in the engine's testdata test, which says what to install.
  REQUIRE(std::filesystem::exists(dir));
  int models = 0, checked = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    const auto path = entry.path() / "model.onnx";
    if (!std::filesystem::exists(path)) continue;
    ++models;
    if (CheckBothWays(ReadFile(path), entry.path().filename().string())) ++checked;
  }
  CHECK(models > 900);
  CHECK(checked == models);
}

// A model with one Add node written field by field, so that the format's corners can be hit.
std::string Tag(int field, int wire_type) {
  return std::string(1, static_cast<char>(field << 3 | wire_type));
}
std::string Len(int field, const std::string& content) {
  return Tag(field, 2) + std::string(1, static_cast<char>(content.size())) + content;
}

std::string ModelWithNode(const std::string& node) {
  GraphProto g;
  auto* x = g.add_input();
  x->set_name("x");
  x->mutable_type()->mutable_tensor_type()->set_elem_type(1);
  auto* y = g.add_output();
  y->set_name("y");
  y->mutable_type()->mutable_tensor_type()->set_elem_type(1);
  ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(17);
  std::string graph = Len(1, node) + g.SerializeAsString();
  std::string out = m.SerializeAsString();
  // Graph field 7, length as a two-byte varint when needed.
  out += Tag(7, 2);
  size_t n = graph.size();
  while (n >= 0x80) {
    out.push_back(static_cast<char>((n & 0x7f) | 0x80));
    n >>= 7;
  }
  out.push_back(static_cast<char>(n));
  return out + graph;
}

TEST_CASE("wire nodes follow protobuf on the format's corners", "[ir]") {
  SECTION("a repeated name keeps the last, fields of another wire type are skipped") {
    const std::string node = Len(1, "x") + Len(1, "x") + Len(2, "y") + Len(3, "first") +
                             Len(4, "Add") + Len(3, "second") + Tag(3, 0) +
                             std::string(1, '\x05') +               // name as a varint: unknown
                             Tag(15, 0) + std::string(1, '\x01') +  // an unknown field
                             Len(6, "doc");
    const std::string bytes = ModelWithNode(node);
    REQUIRE(CheckBothWays(bytes, "corners"));
    auto model = LoadModelFromBytes(bytes, "corners", ModelFormat::kBinary);
    REQUIRE(model.ok());
    CHECK((*model)->graph().node(0).name() == "second");
  }
  SECTION("an unknown group field is stepped over, as protobuf keeps it as an unknown field") {
    // Field 14 as a group holding a varint field and a nested group, then the op type.
    const std::string group =
        Tag(14, 3) + Tag(1, 0) + std::string(1, '\x07') + Tag(2, 3) + Tag(2, 4) + Tag(14, 4);
    const std::string bytes = ModelWithNode(Len(1, "x") + Len(2, "y") + group + Len(4, "Relu"));
    REQUIRE(CheckBothWays(bytes, "group"));
    auto model = LoadModelFromBytes(bytes, "group", ModelFormat::kBinary);
    REQUIRE(model.ok());
    CHECK((*model)->graph().node(0).op_type() == "Relu");
  }
  SECTION("field number 0, which protobuf refuses in any wire type, is refused") {
    for (int wire_type : {0, 1, 2, 5}) {
      INFO(wire_type);
      std::string field = Tag(0, wire_type);
      field += wire_type == 0   ? std::string(1, '\x01')
               : wire_type == 1 ? std::string(8, '\x01')
               : wire_type == 2 ? std::string(1, '\x00')
                                : std::string(4, '\x01');
      const std::string bytes = ModelWithNode(Len(1, "x") + Len(2, "y") + Len(4, "Relu") + field);
      ModelProto parsed;
      CHECK_FALSE(parsed.ParseFromString(bytes));
      CHECK_FALSE(LoadModelFromBytes(bytes, "zero", ModelFormat::kBinary).ok());
    }
  }
  SECTION("a tag longer than five bytes is refused, as protobuf refuses it") {
    // Field 15, varint, written in six bytes with redundant continuation bytes.
    const std::string tag = std::string("\xf8\x80\x80\x80\x80") + std::string(1, '\x00');
    const std::string bytes =
        ModelWithNode(Len(1, "x") + Len(2, "y") + Len(4, "Relu") + tag + std::string(1, '\x01'));
    ModelProto parsed;
    CHECK_FALSE(parsed.ParseFromString(bytes));
    CHECK_FALSE(LoadModelFromBytes(bytes, "long-tag", ModelFormat::kBinary).ok());
  }
  SECTION("a group without its end tag is refused") {
    const std::string bytes =
        ModelWithNode(Len(1, "x") + Len(2, "y") + Len(4, "Relu") + Tag(14, 3));
    ModelProto parsed;
    CHECK_FALSE(parsed.ParseFromString(bytes));
    CHECK_FALSE(LoadModelFromBytes(bytes, "open", ModelFormat::kBinary).ok());
  }
  SECTION("a node cut short is refused with the parser's message") {
    std::string node = Len(1, "x") + Len(2, "y") + Len(4, "Add");
    node += Tag(3, 2) + std::string(1, '\x09') + "abc";  // says 9 bytes, has 3
    auto model = LoadModelFromBytes(ModelWithNode(node), "cut.onnx", ModelFormat::kBinary);
    REQUIRE_FALSE(model.ok());
    CHECK(
        std::string(model.status().message()).find("cut.onnx: cannot be parsed as an ONNX model") !=
        std::string::npos);
  }
  SECTION("a broken attribute inside a sound node is refused") {
    std::string node = Len(1, "x") + Len(2, "y") + Len(4, "Add");
    node += Len(5, Tag(1, 2) + std::string(1, '\x7f'));  // attribute name longer than it
    auto model = LoadModelFromBytes(ModelWithNode(node), "attr.onnx", ModelFormat::kBinary);
    REQUIRE_FALSE(model.ok());
    CHECK(std::string(model.status().message()).find("attr.onnx: cannot be parsed") !=
          std::string::npos);
  }
  SECTION("two graph fields, which protobuf merges, are parsed whole") {
    const std::string bytes = ModelWithNode(Len(1, "x") + Len(2, "t") + Len(4, "Relu")) +
                              Len(7, Len(1, Len(1, "t") + Len(2, "y") + Len(4, "Neg")));
    REQUIRE_FALSE(SplitMainGraphNodes(bytes).has_value());
    auto model = LoadModelFromBytes(bytes, "merged", ModelFormat::kBinary);
    REQUIRE(model.ok());
    REQUIRE((*model)->graph().num_nodes() == 2);
    CHECK((*model)->graph().node(1).op_type() == "Neg");
  }
}

TEST_CASE("splitting leaves every other field of the model and graph in place", "[ir]") {
  const std::string bytes = ModelWithNode(Len(1, "x") + Len(2, "y") + Len(4, "Relu"));
  auto split = SplitMainGraphNodes(bytes);
  REQUIRE(split.has_value());
  REQUIRE(split->nodes.size() == 1);
  ModelProto whole, without;
  REQUIRE(whole.ParseFromString(bytes));
  REQUIRE(without.ParseFromString(split->without_nodes));
  whole.mutable_graph()->clear_node();
  CHECK(whole.SerializeAsString() == without.SerializeAsString());
  NodeProto node;
  REQUIRE(node.ParseFromString(std::string(split->nodes[0])));
  CHECK(node.op_type() == "Relu");
}

// A weight stored in another file, as exporters write it.
TensorProto External(const std::string& name, bool located) {
  TensorProto t;
  t.set_name(name);
  t.set_data_type(TensorProto::FLOAT);
  t.add_dims(4096);
  for (const auto& [key, value] : {std::pair<std::string, std::string>{"location", "w.bin"},
                                   {"offset", "4096"},
                                   {"length", "16384"}}) {
    auto* entry = t.add_external_data();
    entry->set_key(key);
    entry->set_value(value);
  }
  if (located) t.set_data_location(TensorProto::EXTERNAL);
  return t;
}

TEST_CASE("external initializers lose where their bytes are, nothing else", "[ir]") {
  ModelProto m;
  GraphProto* g = m.mutable_graph();
  for (int i = 0; i < 100; ++i) *g->add_initializer() = External("w" + std::to_string(i), true);
  *g->add_initializer() = External("not_external", false);  // location DEFAULT: kept whole
  g->add_node()->set_op_type("Relu");
  auto split = SplitMainGraphNodes(m.SerializeAsString());
  REQUIRE(split.has_value());
  ModelProto parsed;
  REQUIRE(parsed.ParseFromString(split->without_nodes));
  ModelProto expected = m;
  expected.mutable_graph()->clear_node();
  for (int i = 0; i < 100; ++i)
    expected.mutable_graph()->mutable_initializer(i)->clear_external_data();
  CHECK(parsed.SerializeAsString() == expected.SerializeAsString());
  CHECK(parsed.graph().initializer(7).data_location() == TensorProto::EXTERNAL);
  CHECK(parsed.graph().initializer(100).external_data_size() == 3);
}

}  // namespace
}  // namespace shapelint::ir
