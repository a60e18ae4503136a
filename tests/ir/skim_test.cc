// Skimming: large tensor payloads leave, everything else stays byte for byte what protobuf
// would parse.
#include "ir/skim.h"

#include <onnx/onnx_pb.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "shapelint/ir/load.h"
#include "test_files.h"

namespace shapelint::ir {
namespace {

using ONNX_NAMESPACE::AttributeProto;
using ONNX_NAMESPACE::GraphProto;
using ONNX_NAMESPACE::ModelProto;
using ONNX_NAMESPACE::NodeProto;
using ONNX_NAMESPACE::TensorProto;

// A float tensor with `n` elements in raw_data.
TensorProto RawFloats(const std::string& name, int64_t n) {
  TensorProto t;
  t.set_name(name);
  t.set_data_type(TensorProto::FLOAT);
  t.add_dims(n);
  t.set_raw_data(std::string(static_cast<size_t>(n) * 4, '\x01'));
  return t;
}

TensorProto Int64s(const std::string& name, std::initializer_list<int64_t> values) {
  TensorProto t;
  t.set_name(name);
  t.set_data_type(TensorProto::INT64);
  t.add_dims(static_cast<int64_t>(values.size()));
  for (int64_t v : values) t.add_int64_data(v);
  return t;
}

// A model with large tensors in every place one can sit: an initializer, a Constant's value,
// a sparse initializer, an If branch's initializer, a function's Constant; and small ones
// (a Reshape target, a scale) that must keep their values.
ModelProto ModelWithWeights() {
  ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(17);
  GraphProto* g = m.mutable_graph();
  g->set_name("main");
  *g->add_initializer() = RawFloats("weight", 100000);
  *g->add_initializer() = Int64s("target", {-1, 64});
  TensorProto floats;  // float_data (packed) rather than raw_data
  floats.set_name("bias");
  floats.set_data_type(TensorProto::FLOAT);
  floats.add_dims(5000);
  for (int i = 0; i < 5000; ++i) floats.add_float_data(0.5f);
  *g->add_initializer() = floats;
  auto* sparse = g->add_sparse_initializer();
  *sparse->mutable_values() = RawFloats("sparse", 3000);
  *sparse->mutable_indices() = Int64s("sparse_indices", {1, 2, 3});
  sparse->add_dims(100000);

  NodeProto* constant = g->add_node();
  constant->set_op_type("Constant");
  constant->add_output("table");
  AttributeProto* value = constant->add_attribute();
  value->set_name("value");
  value->set_type(AttributeProto::TENSOR);
  *value->mutable_t() = RawFloats("", 2000);

  NodeProto* branch = g->add_node();
  branch->set_op_type("If");
  branch->add_input("cond");
  branch->add_output("out");
  AttributeProto* then_branch = branch->add_attribute();
  then_branch->set_name("then_branch");
  then_branch->set_type(AttributeProto::GRAPH);
  *then_branch->mutable_g()->add_initializer() = RawFloats("inner", 4096);
  then_branch->mutable_g()->set_name("then");

  auto* function = m.add_functions();
  function->set_name("f");
  NodeProto* fconstant = function->add_node();
  fconstant->set_op_type("Constant");
  AttributeProto* fvalue = fconstant->add_attribute();
  fvalue->set_name("value");
  fvalue->set_type(AttributeProto::TENSOR);
  *fvalue->mutable_t() = RawFloats("", 1500);
  m.set_producer_name("after the graph");  // a field after the edits is kept too
  return m;
}

// What skimming must give: the same model with the large payloads cleared.
ModelProto ExpectedAfterSkim(ModelProto m) {
  GraphProto* g = m.mutable_graph();
  g->mutable_initializer(0)->clear_raw_data();
  g->mutable_initializer(2)->clear_float_data();
  g->mutable_sparse_initializer(0)->mutable_values()->clear_raw_data();
  g->mutable_node(0)->mutable_attribute(0)->mutable_t()->clear_raw_data();
  g->mutable_node(1)->mutable_attribute(0)->mutable_g()->mutable_initializer(0)->clear_raw_data();
  m.mutable_functions(0)->mutable_node(0)->mutable_attribute(0)->mutable_t()->clear_raw_data();
  return m;
}

TEST_CASE("skimming leaves out large payloads and keeps every other byte", "[ir][skim]") {
  const ModelProto m = ModelWithWeights();
  const std::string bytes = m.SerializeAsString();
  auto skimmed = SkimTensorPayloads(bytes);
  REQUIRE(skimmed.has_value());
  // The 4096-float branch initializer is 16 KiB: over the limit. The int64s of "target" and
  // the 3 sparse indices are not.
  CHECK(skimmed->tensors == 6);
  // Each payload field also has a tag byte and a length of 3 bytes (over 16383) or 2.
  CHECK(skimmed->bytes_skipped ==
        (100000 + 5000 + 3000 + 2000 + 4096 + 1500) * 4 + 6 + (3 + 3 + 2 + 2 + 3 + 2));
  ModelProto parsed;
  REQUIRE(parsed.ParseFromString(skimmed->bytes));
  CHECK(parsed.SerializeAsString() == ExpectedAfterSkim(m).SerializeAsString());
  CHECK(parsed.graph().initializer(1).int64_data_size() == 2);
  CHECK(parsed.graph().initializer(0).dims(0) == 100000);
  CHECK(parsed.producer_name() == "after the graph");
}

TEST_CASE("the limit is inclusive and configurable", "[ir][skim]") {
  ModelProto m;
  // 4000 bytes of raw_data, with its tag and length 4003: kept.
  *m.mutable_graph()->add_initializer() = RawFloats("w", 1000);
  CHECK_FALSE(SkimTensorPayloads(m.SerializeAsString()).has_value());
  CHECK_FALSE(SkimTensorPayloads(m.SerializeAsString(), 4003).has_value());
  auto skimmed = SkimTensorPayloads(m.SerializeAsString(), 4002);
  REQUIRE(skimmed.has_value());
  CHECK(skimmed->tensors == 1);
}

TEST_CASE("unpacked repeated payloads count together", "[ir][skim]") {
  // An old writer may emit int64_data unpacked: 2100 fields of two bytes each, 4200 in all.
  std::string tensor;
  for (int i = 0; i < 2100; ++i) tensor += std::string("\x38\x07", 2);  // field 7, varint 7
  const std::string name = "\x42\x01w";                                 // field 8 "w"
  std::string graph = "\x2a";                                           // field 5 (initializer)
  std::string body = name + tensor;
  // Lengths below 16384 fit a two-byte varint.
  auto varint = [](size_t v) {
    std::string s;
    while (v >= 0x80) {
      s.push_back(static_cast<char>((v & 0x7f) | 0x80));
      v >>= 7;
    }
    s.push_back(static_cast<char>(v));
    return s;
  };
  graph += varint(body.size()) + body;
  const std::string model = "\x3a" + varint(graph.size()) + graph;  // field 7 (graph)
  ModelProto before;
  REQUIRE(before.ParseFromString(model));
  REQUIRE(before.graph().initializer(0).int64_data_size() == 2100);
  auto skimmed = SkimTensorPayloads(model);
  REQUIRE(skimmed.has_value());
  ModelProto after;
  REQUIRE(after.ParseFromString(skimmed->bytes));
  CHECK(after.graph().initializer(0).name() == "w");
  CHECK(after.graph().initializer(0).int64_data_size() == 0);
}

TEST_CASE("broken wire format is left to the parser", "[ir][skim]") {
  const std::string bytes = ModelWithWeights().SerializeAsString();
  // Cut inside the big initializer, and a length running past the end.
  CHECK_FALSE(SkimTensorPayloads(bytes.substr(0, bytes.size() / 2)).has_value());
  CHECK_FALSE(SkimTensorPayloads(std::string("\x3a\xff\xff\xff\x0f", 5)).has_value());
  CHECK_FALSE(SkimTensorPayloads(std::string("\x3b", 1)).has_value());  // a group
  CHECK_FALSE(SkimTensorPayloads("").has_value());
  // The loader then reports the file, not a skimming problem.
  auto model = LoadModelFromBytes(bytes.substr(0, bytes.size() / 2), "cut.onnx");
  REQUIRE_FALSE(model.ok());
  CHECK(std::string(model.status().message()).find("cut.onnx") == 0);
}

TEST_CASE("a model loads without its weights and keeps its small constants", "[ir][skim]") {
  ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(17);
  GraphProto* g = m.mutable_graph();
  *g->add_initializer() = RawFloats("w", 100000);
  *g->add_initializer() = Int64s("target", {-1, 4});
  auto load = LoadModelFromBytes(m.SerializeAsString(), "weights.onnx");
  REQUIRE(load.ok());
  const Graph& graph = (*load)->graph();
  REQUIRE(graph.Initializer("w") != nullptr);
  CHECK(graph.Initializer("w")->dims(0) == 100000);
  CHECK(graph.Initializer("w")->raw_data().empty());
  CHECK(graph.Initializer("target")->int64_data_size() == 2);
}

// Weights past two of the skimmer's 16 MiB progress steps, then a small constant and a node
// after them: what the walk reads after it has hinted that earlier pages may go.
ModelProto ModelPastTwoSteps() {
  ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(17);
  GraphProto* g = m.mutable_graph();
  g->set_name("main");
  for (int i = 0; i < 6; ++i) *g->add_initializer() = RawFloats("w" + std::to_string(i), 2500000);
  *g->add_initializer() = Int64s("target", {-1, 4});
  g->add_input()->set_name("x");
  g->add_output()->set_name("y");
  NodeProto* reshape = g->add_node();
  reshape->set_op_type("Reshape");
  reshape->add_input("x");
  reshape->add_input("target");
  reshape->add_output("y");
  return m;
}

TEST_CASE("the progress hint moves forward through each pass", "[ir][skim]") {
  const std::string bytes = ModelPastTwoSteps().SerializeAsString();
  REQUIRE(bytes.size() > (size_t{48} << 20));
  std::vector<size_t> offsets;
  auto skimmed = SkimTensorPayloads(bytes, kMaxKeptTensorBytes,
                                    [&](size_t offset) { offsets.push_back(offset); });
  REQUIRE(skimmed.has_value());
  CHECK(skimmed->bytes == SkimTensorPayloads(bytes)->bytes);
  // Two passes over 60 MB in steps of at least 16 MiB: two to three hints each, every one
  // inside the input and at least a step past the last of its pass.
  REQUIRE(offsets.size() >= 4);
  REQUIRE(offsets.size() <= 6);
  int passes = 1;
  size_t last = 0;
  for (size_t offset : offsets) {
    CHECK(offset <= bytes.size());
    if (offset < last) {
      ++passes;
      last = 0;
    }
    CHECK(offset >= last + (size_t{16} << 20));
    last = offset;
  }
  CHECK(passes == 2);
}

TEST_CASE("a mapped model past the progress steps loads whole", "[ir][skim]") {
  // The loader drops the pages the skimmer has passed; the small constant and the node after
  // them must still read as written.
  const testing::TempDir dir;
  const std::string path = dir.Write("skim.onnx", ModelPastTwoSteps().SerializeAsString());
  auto load = LoadModel(path);
  INFO(load.status().message());
  REQUIRE(load.ok());
  const Graph& graph = (*load)->graph();
  REQUIRE(graph.Initializer("target") != nullptr);
  CHECK(graph.Initializer("target")->int64_data(0) == -1);
  CHECK(graph.Initializer("target")->int64_data(1) == 4);
  CHECK(graph.Initializer("w5")->dims(0) == 2500000);
  CHECK(graph.Initializer("w5")->raw_data().empty());
  REQUIRE(graph.num_nodes() == 1);
  CHECK(graph.node(0).op_type() == "Reshape");
  CHECK(graph.node(0).input(1) == "target");
}

}  // namespace
}  // namespace shapelint::ir
