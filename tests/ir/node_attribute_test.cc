// Node's typed attribute reads: the same values whether the model keeps an attribute serialized
// (a binary model's main graph, read from its bytes) or holds it parsed (text models, protos),
// and an absent attribute told apart from one of another type.
#include <onnx/onnx_pb.h>

#include <catch2/catch.hpp>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "shapelint/ir/load.h"
#include "shapelint/ir/model.h"

namespace shapelint::ir {
namespace {

using ONNX_NAMESPACE::AttributeProto;
using ONNX_NAMESPACE::ModelProto;
using ONNX_NAMESPACE::NodeProto;
using ONNX_NAMESPACE::TensorProto;

AttributeProto* Add(NodeProto& node, const std::string& name, AttributeProto::AttributeType type) {
  AttributeProto* a = node.add_attribute();
  a->set_name(name);
  a->set_type(type);
  return a;
}

// One node with an attribute of each type, and the cases a writer may get wrong: a name given
// twice, a type that is not the one the reader expects, no type at all.
ModelProto OddlyAttributedModel() {
  ModelProto model;
  model.set_ir_version(8);
  model.add_opset_import()->set_version(17);
  auto& graph = *model.mutable_graph();
  graph.set_name("g");
  graph.add_input()->set_name("x");
  graph.add_output()->set_name("y");
  NodeProto& node = *graph.add_node();
  node.set_op_type("Custom");
  node.add_input("x");
  node.add_output("y");
  Add(node, "axis", AttributeProto::INT)->set_i(-2);
  AttributeProto* perm = Add(node, "perm", AttributeProto::INTS);
  for (int64_t v : {int64_t{3}, int64_t{-1}, int64_t{300000000000}}) perm->add_ints(v);
  Add(node, "alpha", AttributeProto::FLOAT)->set_f(0.25f);
  AttributeProto* scales = Add(node, "scales", AttributeProto::FLOATS);
  scales->add_floats(1.5f);
  scales->add_floats(-2.0f);
  Add(node, "mode", AttributeProto::STRING)->set_s("edge");
  TensorProto& value = *Add(node, "value", AttributeProto::TENSOR)->mutable_t();
  value.set_data_type(TensorProto::INT64);
  value.add_dims(2);
  value.add_int64_data(4);
  value.add_int64_data(5);
  Add(node, "axis", AttributeProto::INT)->set_i(7);  // the first "axis" counts
  Add(node, "pads", AttributeProto::STRING)->set_s("1");
  Add(node, "pads", AttributeProto::INTS)->add_ints(1);  // behind one of another type
  node.add_attribute()->set_name("untyped");
  node.mutable_attribute(node.attribute_size() - 1)->set_i(1);
  return model;
}

// The index of "value" among the node's attributes.
constexpr int kValue = 5;

// The value read, or nullopt: what CHECK compares.
template <typename T>
std::optional<T> Value(AttributeValue<T> read) {
  return std::move(read).ToOptional();
}

struct Loaded {
  const char* what;
  std::unique_ptr<Model> model;
  bool serialized;  // attributes kept as their bytes
};

std::vector<Loaded> LoadBothWays(const ModelProto& proto) {
  auto parsed = Model::FromProto(proto, "m.onnx");
  REQUIRE(parsed.ok());
  auto binary = LoadModelFromBytes(proto.SerializeAsString(), "m.onnx");
  INFO(binary.status().message());
  REQUIRE(binary.ok());
  std::vector<Loaded> models;
  models.push_back({"parsed", *std::move(parsed), false});
  models.push_back({"serialized", *std::move(binary), true});
  for (const Loaded& m : models) {
    // Each path is the one the test means to take.
    CHECK(m.model->graph().node(0).attribute_bytes(kValue).empty() == !m.serialized);
  }
  return models;
}

TEST_CASE("typed attribute reads give each type's value, from bytes or protos alike", "[ir]") {
  for (const Loaded& m : LoadBothWays(OddlyAttributedModel())) {
    INFO(m.what);
    const Node n = m.model->graph().node(0);
    CHECK(Value(n.IntAttribute("axis")) == -2);
    CHECK(Value(n.IntsAttribute("perm")) == std::vector<int64_t>{3, -1, 300000000000});
    CHECK(Value(n.FloatAttribute("alpha")) == 0.25f);
    CHECK(Value(n.FloatsAttribute("scales")) == std::vector<float>{1.5f, -2.0f});
    CHECK(Value(n.StringAttribute("mode")) == "edge");
    const auto axis = n.IntAttribute("axis");
    REQUIRE(axis.has_value());
    CHECK_FALSE(axis.absent());
    CHECK_FALSE(axis.has_other_type());
  }
}

TEST_CASE("an absent attribute is told from one of another type", "[ir]") {
  for (const Loaded& m : LoadBothWays(OddlyAttributedModel())) {
    INFO(m.what);
    const Node n = m.model->graph().node(0);
    const auto missing = n.IntAttribute("missing");
    CHECK_FALSE(missing.has_value());
    CHECK(missing.absent());
    CHECK_FALSE(missing.has_other_type());
    CHECK(n.IntAttribute("missing").value_or(9) == 9);

    const auto mode = n.IntAttribute("mode");
    CHECK_FALSE(mode.has_value());
    CHECK_FALSE(mode.absent());
    CHECK(mode.has_other_type());
    CHECK(mode.other_type() == AttributeProto::STRING);
    CHECK(n.StringAttribute("axis").other_type() == AttributeProto::INT);
    CHECK(n.IntsAttribute("alpha").other_type() == AttributeProto::FLOAT);
    CHECK(n.FloatAttribute("perm").other_type() == AttributeProto::INTS);
    CHECK(n.FloatsAttribute("value").other_type() == AttributeProto::TENSOR);
    // An attribute that sets no type has none of the types read.
    CHECK(n.IntAttribute("untyped").has_other_type());
    CHECK(n.IntAttribute("untyped").other_type() == AttributeProto::UNDEFINED);
  }
}

TEST_CASE("of attributes with one name, the first counts, whatever its type", "[ir]") {
  for (const Loaded& m : LoadBothWays(OddlyAttributedModel())) {
    INFO(m.what);
    const Node n = m.model->graph().node(0);
    CHECK(Value(n.IntAttribute("axis")) == -2);
    const auto pads = n.IntsAttribute("pads");
    CHECK(pads.has_other_type());
    CHECK(pads.other_type() == AttributeProto::STRING);
    CHECK(std::move(pads).ToOptional() == std::nullopt);
  }
}

TEST_CASE("a tensor attribute is parsed only when it is kept serialized and a tensor", "[ir]") {
  for (const Loaded& m : LoadBothWays(OddlyAttributedModel())) {
    INFO(m.what);
    const Node n = m.model->graph().node(0);
    AttributeProto message;
    std::vector<size_t> asked;
    auto parse_into = [&](size_t size) {
      asked.push_back(size);
      return &message;
    };
    const auto value = n.TensorAttribute("value", parse_into);
    REQUIRE(value.has_value());
    const TensorProto& t = **value;
    CHECK(t.data_type() == TensorProto::INT64);
    CHECK(std::vector<int64_t>(t.dims().begin(), t.dims().end()) == std::vector<int64_t>{2});
    CHECK(std::vector<int64_t>(t.int64_data().begin(), t.int64_data().end()) ==
          std::vector<int64_t>{4, 5});
    if (m.serialized) {
      CHECK(asked == std::vector<size_t>{n.attribute_serialized_size(kValue)});
      CHECK(*value == &message.t());
    } else {
      CHECK(asked.empty());
      CHECK(*value == &n.FindAttribute("value")->t());
    }
    asked.clear();
    // Of another type, or absent: nothing is parsed.
    const auto mode = n.TensorAttribute("mode", parse_into);
    CHECK(mode.other_type() == AttributeProto::STRING);
    CHECK(n.TensorAttribute("missing", parse_into).absent());
    CHECK(asked.empty());
    // A message of the caller's, parsed into again.
    AttributeProto scratch;
    scratch.set_name("stale");
    const auto again = n.TensorAttribute("value", scratch);
    REQUIRE(again.has_value());
    CHECK((*again)->int64_data_size() == 2);
    CHECK(scratch.name() == (m.serialized ? "value" : "stale"));
  }
}

TEST_CASE("a text model's attributes are read from their protos", "[ir]") {
  auto m = LoadModelFromBytes(R"(<ir_version: 8, opset_import: ["" : 17]>
g (float[N, 4] x) => (float[N, 4] y) {
  y = Custom <axis = -1, perm = [1, 0], alpha = 0.5, scales = [2.0, 3.0], mode = "reflect"> (x)
})",
                              "m.onnxtxt");
  INFO(m.status().message());
  REQUIRE(m.ok());
  const Node n = (*m)->graph().node(0);
  REQUIRE(n.attribute_bytes(0).empty());
  CHECK(Value(n.IntAttribute("axis")) == -1);
  CHECK(Value(n.IntsAttribute("perm")) == std::vector<int64_t>{1, 0});
  CHECK(Value(n.FloatAttribute("alpha")) == 0.5f);
  CHECK(Value(n.FloatsAttribute("scales")) == std::vector<float>{2.0f, 3.0f});
  CHECK(Value(n.StringAttribute("mode")) == "reflect");
  CHECK(n.StringAttribute("perm").other_type() == AttributeProto::INTS);
  CHECK(n.FloatAttribute("missing").absent());
}

}  // namespace
}  // namespace shapelint::ir
