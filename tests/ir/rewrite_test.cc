// Rewriting a serialized model at the wire level: the edits land where they are asked for, and
// every byte they do not touch, weights above all, is the input's.
#include "ir/rewrite.h"

#include <onnx/onnx_pb.h>

#include <catch2/catch.hpp>
#include <cctype>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ir/wire.h"
#include "shapelint/ir/load.h"

namespace shapelint::ir {
namespace {

using ONNX_NAMESPACE::GraphProto;
using ONNX_NAMESPACE::ModelProto;
using ONNX_NAMESPACE::NodeProto;
using ONNX_NAMESPACE::TensorProto;
using ONNX_NAMESPACE::ValueInfoProto;

// A float tensor declaration with dims given as sizes or, when not numbers, dim_params.
void Declare(ValueInfoProto* info, const std::string& name, const std::vector<std::string>& dims) {
  info->set_name(name);
  auto* tensor = info->mutable_type()->mutable_tensor_type();
  tensor->set_elem_type(TensorProto::FLOAT);
  auto* shape = tensor->mutable_shape();
  for (const std::string& d : dims) {
    auto* dim = shape->add_dim();
    if (!d.empty() && std::isdigit(static_cast<unsigned char>(d[0]))) {
      dim->set_dim_value(std::stoll(d));
    } else {
      dim->set_dim_param(d);
    }
  }
}

NodeProto MakeNode(const std::string& op, const std::vector<std::string>& inputs,
                   const std::string& output) {
  NodeProto n;
  n.set_op_type(op);
  n.set_name(output + "_node");
  for (const std::string& in : inputs) n.add_input(in);
  n.add_output(output);
  return n;
}

// z = Relu(Mul(Add(x, w), y)), with two initializers and shapes naming N and M.
ModelProto BaseModel() {
  ModelProto m;
  m.set_ir_version(8);
  m.set_producer_name("rewrite_test");
  m.add_opset_import()->set_version(17);
  auto* meta = m.add_metadata_props();
  meta->set_key("k");
  meta->set_value("v");
  GraphProto* g = m.mutable_graph();
  g->set_name("main");
  g->set_doc_string("the graph");
  *g->add_node() = MakeNode("Add", {"x", "w"}, "a");
  NodeProto mul = MakeNode("Mul", {"a", "y"}, "b");
  auto* attribute = mul.add_attribute();  // not Mul's, but the rewrite must keep it as it is
  attribute->set_name("note");
  attribute->set_type(ONNX_NAMESPACE::AttributeProto::STRING);
  attribute->set_s("keep me");
  mul.set_doc_string("multiplies");
  *g->add_node() = mul;
  *g->add_node() = MakeNode("Relu", {"b"}, "z");
  TensorProto* w = g->add_initializer();
  w->set_name("w");
  w->set_data_type(TensorProto::FLOAT);
  w->add_dims(3);
  w->set_raw_data(std::string("\x00\x00\x80\x3f\xff\xff\xff\x7f\x01\x02\x03\x04", 12));
  TensorProto* s = g->add_initializer();
  s->set_name("s");
  s->set_data_type(TensorProto::INT64);
  s->add_dims(1);
  s->add_int64_data(7);
  Declare(g->add_input(), "x", {"N", "3"});
  Declare(g->add_input(), "y", {"N", "3"});
  Declare(g->add_output(), "z", {"N", "3"});
  Declare(g->add_value_info(), "a", {"N", "3"});
  Declare(g->add_value_info(), "b", {"M", "3"});
  return m;
}

std::string Serialized(const ModelProto& m) {
  std::string bytes;
  REQUIRE(m.SerializeToString(&bytes));
  return bytes;
}

ModelProto Parsed(const std::string& bytes) {
  ModelProto m;
  REQUIRE(m.ParseFromString(bytes));
  return m;
}

std::string Rewritten(const std::string& bytes, const ModelRewrite& edits) {
  absl::StatusOr<std::string> out = RewriteModel(bytes, edits);
  INFO(out.status().ToString());
  REQUIRE(out.ok());
  return *std::move(out);
}

// The error message of a rewrite that must fail.
std::string RewriteError(const std::string& bytes, const ModelRewrite& edits) {
  absl::StatusOr<std::string> out = RewriteModel(bytes, edits);
  REQUIRE_FALSE(out.ok());
  CHECK(out.status().code() == absl::StatusCode::kInvalidArgument);
  return std::string(out.status().message());
}

// The contents of the fields numbered `number` in `message`, in order, as the bytes have them.
std::vector<std::string_view> RawFields(std::string_view message, uint64_t number) {
  std::vector<std::string_view> found;
  wire::FieldReader fields(message);
  wire::Field f;
  while (fields.Next(f)) {
    if (f.number == number && f.wire_type == wire::kLengthDelimited) found.push_back(f.content);
  }
  REQUIRE_FALSE(fields.broken());
  return found;
}

// The field numbers of a message, in order.
std::vector<uint64_t> FieldNumbers(std::string_view message) {
  std::vector<uint64_t> numbers;
  wire::FieldReader fields(message);
  wire::Field f;
  while (fields.Next(f)) numbers.push_back(f.number);
  return numbers;
}

std::string_view MainGraph(std::string_view model) {
  std::vector<std::string_view> graphs = RawFields(model, 7);
  REQUIRE(graphs.size() == 1);
  return graphs[0];
}

std::vector<std::string> OpTypes(const GraphProto& g) {
  std::vector<std::string> ops;
  for (const NodeProto& n : g.node()) ops.push_back(n.op_type());
  return ops;
}

// Appends a length-delimited field, for graphs written by hand.
void AppendField(uint64_t number, std::string_view content, std::string& out) {
  wire::AppendVarint(number << 3 | wire::kLengthDelimited, out);
  wire::AppendVarint(content.size(), out);
  out.append(content);
}

using Strings = std::vector<std::string>;

TEST_CASE("rewrite with no edits gives the input byte for byte", "[ir][rewrite]") {
  const std::string bytes = Serialized(BaseModel());
  CHECK(Rewritten(bytes, {}) == bytes);

  // Nor do edits that match nothing, even when the graph's length is not written shortest.
  std::string padded = "\x08\x08";  // ir_version 8
  const std::string graph = BaseModel().graph().SerializeAsString();
  padded += "\x3a";  // field 7, length-delimited
  std::string length;
  wire::AppendVarint(graph.size(), length);
  length.back() = static_cast<char>(length.back() | 0x80);
  padded += length + std::string(1, '\0') + graph;
  REQUIRE(Parsed(padded).graph().node_size() == 3);
  ModelRewrite edits;
  edits.param_sizes["nowhere"] = 5;
  CHECK(Rewritten(padded, {}) == padded);
  CHECK(Rewritten(padded, edits) == padded);
}

TEST_CASE("rewrite inserts nodes before the node asked for, and after the last", "[ir][rewrite]") {
  const std::string bytes = Serialized(BaseModel());
  ModelRewrite edits;
  edits.insert_before[0] = {MakeNode("Identity", {"x"}, "i0").SerializeAsString()};
  edits.insert_before[2] = {MakeNode("Neg", {"b"}, "i2").SerializeAsString()};
  edits.insert_before[3] = {MakeNode("Abs", {"z"}, "i3").SerializeAsString(),
                            MakeNode("Sqrt", {"i3"}, "i4").SerializeAsString()};
  const std::string out = Rewritten(bytes, edits);
  const ModelProto m = Parsed(out);
  CHECK(OpTypes(m.graph()) == Strings{"Identity", "Add", "Mul", "Neg", "Relu", "Abs", "Sqrt"});
  CHECK(m.graph().node(6).input(0) == "i3");
  // The appended nodes follow the node list at once: the graph's name comes next, as before.
  const std::vector<uint64_t> numbers = FieldNumbers(MainGraph(out));
  REQUIRE(numbers.size() > 8);
  CHECK(numbers[6] == 1);
  CHECK(numbers[7] == 2);
  // The rest of the model is as it was.
  CHECK(m.producer_name() == "rewrite_test");
  CHECK(m.metadata_props(0).value() == "v");
  CHECK(RawFields(MainGraph(out), 5) == RawFields(MainGraph(bytes), 5));
}

TEST_CASE("rewrite appends nodes at the end of a graph that has none", "[ir][rewrite]") {
  ModelProto model = BaseModel();
  model.mutable_graph()->clear_node();
  ModelRewrite edits;
  edits.insert_before[0] = {MakeNode("Identity", {"x"}, "z").SerializeAsString()};
  const std::string out = Rewritten(Serialized(model), edits);
  CHECK(FieldNumbers(MainGraph(out)).back() == 1);
  CHECK(OpTypes(Parsed(out).graph()) == Strings{"Identity"});
}

TEST_CASE("rewrite removes nodes", "[ir][rewrite]") {
  const std::string bytes = Serialized(BaseModel());
  ModelRewrite edits;
  edits.remove = {1};
  edits.insert_before[1] = {MakeNode("Sub", {"a", "y"}, "b").SerializeAsString()};
  edits.rename_inputs[1] = {{7, "ignored"}};  // goes with the node
  const ModelProto m = Parsed(Rewritten(bytes, edits));
  CHECK(OpTypes(m.graph()) == Strings{"Add", "Sub", "Relu"});

  edits = {};
  edits.remove = {0, 2};
  CHECK(OpTypes(Parsed(Rewritten(bytes, edits)).graph()) == Strings{"Mul"});
}

TEST_CASE("rewrite renames a node's input in its slot and keeps its other bytes", "[ir][rewrite]") {
  const ModelProto model = BaseModel();
  const std::string bytes = Serialized(model);
  ModelRewrite edits;
  edits.rename_inputs[1] = {{1, "w"}};
  edits.rename_inputs[0] = {{0, "y"}, {1, "x"}, {0, "z"}};  // the later rename of a slot wins
  const std::string out = Rewritten(bytes, edits);
  const ModelProto m = Parsed(out);
  CHECK(m.graph().node(1).input(0) == "a");
  CHECK(m.graph().node(1).input(1) == "w");
  CHECK(m.graph().node(0).input(0) == "z");
  CHECK(m.graph().node(0).input(1) == "x");
  CHECK(m.graph().node(2).SerializeAsString() == model.graph().node(2).SerializeAsString());

  const std::string_view before = RawFields(MainGraph(bytes), 1)[1];
  const std::string_view after = RawFields(MainGraph(out), 1)[1];
  for (uint64_t field : {2, 3, 4, 5, 6}) {
    INFO("NodeProto field " << field);
    CHECK(RawFields(after, field) == RawFields(before, field));
  }
  CHECK(FieldNumbers(after) == FieldNumbers(before));
}

TEST_CASE("rewrite appends initializers and keeps the weights' bytes", "[ir][rewrite]") {
  // An initializer protobuf would not write back as it is: data_type twice, an unknown field.
  std::string odd = BaseModel().graph().initializer(0).SerializeAsString();
  odd += std::string("\x10\x01\xf8\x06\x2a", 5);
  std::string graph = BaseModel().graph().SerializeAsString();
  AppendField(5, odd, graph);
  AppendField(2, "renamed", graph);
  ModelProto header = BaseModel();
  header.clear_graph();
  std::string bytes = Serialized(header);
  AppendField(7, graph, bytes);

  TensorProto added;
  added.set_name("extra");
  added.set_data_type(TensorProto::INT64);
  added.add_int64_data(1);
  ModelRewrite edits;
  edits.add_initializers = {added.SerializeAsString()};
  edits.insert_before[3] = {MakeNode("Identity", {"extra"}, "e").SerializeAsString()};
  const std::string out = Rewritten(bytes, edits);

  const std::vector<std::string_view> tensors = RawFields(MainGraph(out), 5);
  REQUIRE(tensors.size() == 4);
  CHECK(tensors[0] == BaseModel().graph().initializer(0).SerializeAsString());
  CHECK(tensors[2] == odd);
  CHECK(tensors[3] == added.SerializeAsString());
  // Right after the last initializer, before the field that followed it.
  const std::vector<uint64_t> numbers = FieldNumbers(MainGraph(out));
  CHECK(numbers[numbers.size() - 2] == 5);
  CHECK(numbers.back() == 2);
  const ModelProto m = Parsed(out);
  CHECK(m.graph().initializer(3).name() == "extra");
  CHECK(m.graph().name() == "renamed");
}

TEST_CASE("rewrite appends initializers at the end of a graph that has none", "[ir][rewrite]") {
  ModelProto model = BaseModel();
  model.mutable_graph()->clear_initializer();
  TensorProto added;
  added.set_name("w");
  ModelRewrite edits;
  edits.add_initializers = {added.SerializeAsString()};
  const std::string out = Rewritten(Serialized(model), edits);
  CHECK(FieldNumbers(MainGraph(out)).back() == 5);
  CHECK(Parsed(out).graph().initializer(0).name() == "w");
}

TEST_CASE("rewrite sets the dims of graph inputs", "[ir][rewrite]") {
  const std::string bytes = Serialized(BaseModel());
  ModelRewrite edits;
  edits.input_dims.push_back({"x", 0, 4, ""});
  edits.input_dims.push_back({"x", 1, std::nullopt, "C"});
  const std::string out = Rewritten(bytes, edits);
  const ModelProto m = Parsed(out);
  const auto& dims = m.graph().input(0).type().tensor_type().shape().dim();
  CHECK(dims.at(0).dim_value() == 4);
  CHECK_FALSE(dims.at(0).has_dim_param());
  CHECK(dims.at(1).dim_param() == "C");
  CHECK_FALSE(dims.at(1).has_dim_value());
  // Only x's declaration is written anew.
  CHECK(RawFields(MainGraph(out), 11)[1] == RawFields(MainGraph(bytes), 11)[1]);
  CHECK(RawFields(MainGraph(out), 12) == RawFields(MainGraph(bytes), 12));
  CHECK(RawFields(MainGraph(out), 13) == RawFields(MainGraph(bytes), 13));
}

TEST_CASE("rewrite gives dim_params their sizes everywhere they are declared", "[ir][rewrite]") {
  const std::string bytes = Serialized(BaseModel());
  ModelRewrite edits;
  edits.param_sizes["N"] = 2;
  edits.input_dims.push_back({"y", 0, std::nullopt, "B"});  // an explicit edit wins
  const std::string out = Rewritten(bytes, edits);
  const GraphProto g = Parsed(out).graph();
  CHECK(g.input(0).type().tensor_type().shape().dim(0).dim_value() == 2);
  CHECK(g.input(1).type().tensor_type().shape().dim(0).dim_param() == "B");
  CHECK(g.output(0).type().tensor_type().shape().dim(0).dim_value() == 2);
  CHECK(g.value_info(0).type().tensor_type().shape().dim(0).dim_value() == 2);
  CHECK(g.value_info(1).type().tensor_type().shape().dim(0).dim_param() == "M");
  CHECK(RawFields(MainGraph(out), 13)[1] == RawFields(MainGraph(bytes), 13)[1]);
  CHECK(RawFields(MainGraph(out), 1) == RawFields(MainGraph(bytes), 1));
}

TEST_CASE("rewrite refuses edits the model has nothing for", "[ir][rewrite]") {
  const std::string bytes = Serialized(BaseModel());
  ModelRewrite edits;
  edits.insert_before[4] = {MakeNode("Identity", {"x"}, "i").SerializeAsString()};
  CHECK_THAT(RewriteError(bytes, edits), Catch::Contains("node 4"));
  edits = {};
  edits.remove = {3};
  CHECK_THAT(RewriteError(bytes, edits), Catch::Contains("node 3"));
  edits = {};
  edits.rename_inputs[-1] = {{0, "x"}};
  CHECK_THAT(RewriteError(bytes, edits), Catch::Contains("node -1"));
  edits = {};
  edits.rename_inputs[2] = {{1, "x"}};
  CHECK_THAT(RewriteError(bytes, edits), Catch::Contains("node 2 has 1 inputs"));
  edits = {};
  edits.input_dims.push_back({"q", 0, 1, ""});
  CHECK_THAT(RewriteError(bytes, edits), Catch::Contains("'q'"));
  edits = {};
  edits.input_dims.push_back({"x", 2, 1, ""});
  CHECK_THAT(RewriteError(bytes, edits), Catch::Contains("rank 2, no axis 2"));
  edits = {};
  edits.input_dims.push_back({"x", -1, 1, ""});
  CHECK_THAT(RewriteError(bytes, edits), Catch::Contains("'x'"));

  ModelProto shapeless = BaseModel();
  shapeless.mutable_graph()->mutable_input(0)->mutable_type()->mutable_tensor_type()->clear_shape();
  edits = {};
  edits.input_dims.push_back({"x", 0, 1, ""});
  CHECK_THAT(RewriteError(Serialized(shapeless), edits), Catch::Contains("no tensor shape"));
}

TEST_CASE("rewrite and inspection refuse bytes that are not a model", "[ir][rewrite]") {
  const std::string bytes = Serialized(BaseModel());
  ModelRewrite edits;
  edits.remove = {0};
  for (size_t cut : {bytes.size() - 1, bytes.size() / 2, size_t{1}}) {
    INFO("cut at " << cut);
    CHECK_THAT(RewriteError(bytes.substr(0, cut), edits),
               Catch::StartsWith("not a serialized ONNX model: "));
    CHECK_THAT(RewriteError(bytes.substr(0, cut), {}),
               Catch::StartsWith("not a serialized ONNX model: "));
    CHECK_FALSE(InspectModel(bytes.substr(0, cut)).ok());
  }
  ModelProto graphless = BaseModel();
  graphless.clear_graph();
  CHECK_THAT(RewriteError(Serialized(graphless), {}), Catch::Contains("no graph"));
  CHECK_FALSE(InspectModel(Serialized(graphless)).ok());

  // A graph whose field cut short inside a node still has a well-formed model around it.
  std::string graph = BaseModel().graph().SerializeAsString();
  std::string broken = Serialized(graphless);
  AppendField(7, std::string_view(graph).substr(0, 5), broken);
  CHECK_THAT(RewriteError(broken, {}), Catch::Contains("graph"));
  std::string twice = Serialized(BaseModel());
  AppendField(7, graph, twice);
  CHECK_THAT(RewriteError(twice, edits), Catch::Contains("several graph fields"));
}

TEST_CASE("inspection counts nodes and sees external data and functions", "[ir][rewrite]") {
  ModelProto model = BaseModel();
  absl::StatusOr<WireFacts> facts = InspectModel(Serialized(model));
  REQUIRE(facts.ok());
  CHECK(facts->num_nodes == 3);
  CHECK_FALSE(facts->has_external_data);
  CHECK_FALSE(facts->has_functions);

  TensorProto* w = model.mutable_graph()->mutable_initializer(0);
  w->clear_raw_data();
  w->set_data_location(TensorProto::EXTERNAL);
  auto* location = w->add_external_data();
  location->set_key("location");
  location->set_value("weights.bin");
  auto* length = w->add_external_data();
  length->set_key("length");
  length->set_value("12");
  auto* function = model.add_functions();
  function->set_name("f");
  function->set_domain("local");
  facts = InspectModel(Serialized(model));
  REQUIRE(facts.ok());
  CHECK(facts->num_nodes == 3);
  CHECK(facts->has_external_data);
  CHECK(facts->has_functions);

  // A rewrite leaves where the weights are as it was.
  ModelRewrite edits;
  edits.remove = {2};
  const ModelProto out = Parsed(Rewritten(Serialized(model), edits));
  CHECK(out.graph().initializer(0).external_data_size() == 2);
  CHECK(out.functions_size() == 1);
}

TEST_CASE("a rewritten model loads with the inserted node", "[ir][rewrite]") {
  ModelRewrite edits;
  edits.insert_before[3] = {MakeNode("Neg", {"z"}, "negated").SerializeAsString()};
  edits.param_sizes["N"] = 2;
  const std::string out = Rewritten(Serialized(BaseModel()), edits);
  auto model = LoadModelFromBytes(out, "rewritten", ModelFormat::kBinary);
  INFO(model.status().ToString());
  REQUIRE(model.ok());
  const Graph& g = (*model)->graph();
  REQUIRE(g.num_nodes() == 4);
  CHECK(g.node(3).op_type() == "Neg");
  CHECK(g.node(3).input(0) == "z");
  CHECK(g.node(3).output(0) == "negated");
}

}  // namespace
}  // namespace shapelint::ir
