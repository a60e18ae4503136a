// A float table a post-processor folded from a lookup: LeViT's and EfficientFormer's attention
// biases (attention_biases[:, attention_bias_idxs], a trained table gathered by a buffer of
// indices for the configured resolution) become one initializer named after the Gather's output
// once onnxslim or onnx-simplifier folds them, of shape [heads, tokens, tokens] at the example's
// grid. Eager PyTorch rejects other grids too (tests/corpus/pipes/optimum_levit.model.slim,
// tests/corpus/post/timm_efficientformer_l1.ts.slim: healthy), and positions computed from the
// example's size fold to the same initializer: two readings, a hypothesis, a warning
// (docs/severity.md). torch.export's record that the sizes it meets were specialized makes it an
// error; a float table with no lookup's name keeps the error it had (a table built from
// torch.arange(int(...)) folds to 'onnx::Add_8' as well).
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "onnx/onnx_pb.h"
#include "recorded_model.h"
#include "shapelint/lint/lint.h"

namespace shapelint::lint {
namespace {

using ONNX_NAMESPACE::TensorProto;

// Attention logits x @ x^T over the tokens s27, plus the folded bias `bias` [1, 5, 5]: the
// export's 5 tokens.
std::string AttentionWithBias(const std::string& bias, const std::string& ranges) {
  ONNX_NAMESPACE::ModelProto m = ModelWithRanges(ranges);
  auto* g = m.mutable_graph();
  g->set_name("main");
  auto* b = g->add_initializer();
  b->set_name(bias);
  b->set_data_type(TensorProto::FLOAT);
  for (int d : {1, 5, 5}) b->add_dims(d);
  b->mutable_float_data()->Resize(25, 0.5f);
  AddSwapLastAxes(g, "x", "xt");
  AddNode(g, "MatMul", {"x", "xt"}, "logits");
  AddNode(g, "Add", {"logits", bias}, "y")->set_name("/attn/Add");
  g->add_output()->set_name("y");
  g->mutable_output(0)->mutable_type()->mutable_tensor_type()->set_elem_type(TensorProto::FLOAT);
  return m.SerializeAsString();
}

constexpr char kLookup[] = "/attn/Gather_2_output_0";

TEST_CASE("a float table folded from a lookup is a hypothesis: a warning", "[lint][SL005]") {
  const std::vector<Finding> found = FindingsOf(AttentionWithBias(kLookup, ""), "SL005");
  REQUIRE(found.size() == 1);
  CHECK(found[0].severity == Severity::kWarning);
  CHECK(found[0].evidence == Evidence::kHypothesis);
  // The counterexample stays, true of the ONNX model at any other token count: the Add fails
  // there (the table's 5 against the logits' own).
  REQUIRE(found[0].counterexample);
  CHECK(found[0].counterexample->node_fails);
  for (const auto& [symbol, size] : found[0].counterexample->binding) {
    if (symbol == "s27") CHECK(size != 5);
  }
  bool both_readings = false;
  for (const Note& n : found[0].notes) {
    if (n.message.find("folded from a lookup") != std::string::npos) both_readings = true;
  }
  CHECK(both_readings);
}

TEST_CASE("torch.export's specialization of the tokens makes the folded lookup an error",
          "[lint][SL005]") {
  const std::vector<Finding> found = FindingsOf(
      AttentionWithBias(kLookup, "{s77: VR[0, int_oo], s27: VR[5, 5], s53: VR[0, int_oo]}"),
      "SL005");
  REQUIRE(found.size() == 1);
  CHECK(found[0].severity == Severity::kError);
}

TEST_CASE("a folded float table with no lookup's name stays an error", "[lint][SL005]") {
  const std::vector<Finding> found = FindingsOf(AttentionWithBias("onnx::Add_8", ""), "SL005");
  REQUIRE(found.size() == 1);
  CHECK(found[0].severity == Severity::kError);
}

}  // namespace
}  // namespace shapelint::lint
