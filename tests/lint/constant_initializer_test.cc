// A Constant node lifted into the initializers keeps being the exporter's literal. TorchScript
// writes F.layer_norm(x, (int(x.size(-1)),)) with no weight as a LayerNormalization whose scale
// and bias are Constant nodes of the example's width ([8]); ONNX Runtime's transformer optimizer
// and onnxslim move Constant nodes into the initializers under their output's name
// ("/inner/Constant_output_0"). A float [8] initializer otherwise reads as a per-channel
// weight, whose width is the model's design (SL004's note); so named, it is the literal it was
// in the file the exporter wrote: SL005's error, as on that file (tests/corpus/fused and
// tests/corpus/post, layer_norm_int.ts: ONNX Runtime fails at width 9, eager PyTorch runs).
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "onnx/onnx_pb.h"
#include "recorded_model.h"
#include "shapelint/lint/lint.h"

namespace shapelint::lint {
namespace {

using ONNX_NAMESPACE::TensorProto;

// LayerNormalization(x[s77, s27, s53]) over the last axis with scale and bias initializers of
// 8 elements named `scale` and `bias`.
std::string LayerNormWith(const std::string& scale, const std::string& bias) {
  ONNX_NAMESPACE::ModelProto m = ModelWithRanges("");
  auto* g = m.mutable_graph();
  g->set_name("main");
  for (const std::string& name : {scale, bias}) {
    auto* t = g->add_initializer();
    t->set_name(name);
    t->set_data_type(TensorProto::FLOAT);
    t->add_dims(8);
    t->mutable_float_data()->Resize(8, 1.0f);
  }
  AddNode(g, "LayerNormalization", {"x", scale, bias}, "y")->set_name("/inner/LayerNormalization");
  g->add_output()->set_name("y");
  g->mutable_output(0)->mutable_type()->mutable_tensor_type()->set_elem_type(TensorProto::FLOAT);
  return m.SerializeAsString();
}

TEST_CASE("an initializer named as a Constant's output is the exporter's literal",
          "[lint][SL005]") {
  const std::string bytes = LayerNormWith("/inner/Constant_output_0", "/inner/Constant_1_output_0");
  const std::vector<Finding> found = FindingsOf(bytes, "SL005");
  REQUIRE(found.size() == 1);
  CHECK(found[0].severity == Severity::kError);
  REQUIRE(found[0].counterexample);
  CHECK(found[0].counterexample->node_fails);
  CHECK(FindingsOf(bytes, "SL004").empty());
}

TEST_CASE("a parameter's name keeps the width a weight's: the model's design", "[lint][SL004]") {
  const std::string bytes = LayerNormWith("inner.norm.weight", "inner.norm.bias");
  CHECK(FindingsOf(bytes, "SL005").empty());
  const std::vector<Finding> found = FindingsOf(bytes, "SL004");
  REQUIRE(found.size() == 1);
  CHECK(found[0].severity == Severity::kNote);
}

TEST_CASE("names that only look like a Constant's stay weights", "[lint][SL004]") {
  // No scope (a bare name no TorchScript export writes), another op's output, a suffix after it.
  for (const char* name : {"Constant_output_0", "/inner/ConstantOfShape_output_0",
                           "/inner/Constant_output_0_scale", "/inner/Constant_x_output_0"}) {
    INFO(name);
    const std::string bytes = LayerNormWith(name, "inner.norm.bias");
    CHECK(FindingsOf(bytes, "SL005").empty());
    CHECK(FindingsOf(bytes, "SL004").size() == 1);
  }
}

}  // namespace
}  // namespace shapelint::lint
