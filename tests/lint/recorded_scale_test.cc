// SL008 and the recorded line: a scale the line spells out (`.mul(0.5)`, `/ 2`) is the module's
// own number, which eager PyTorch multiplies by too, whatever size it equals at the export
// (unseen/nonlocal_view.dynamo: sqrt(4) of 4 channels, where the module writes 0.5 itself). A
// line that does not write it (a scale computed from the example) stays a hypothesis, told the
// export sizes: SL008's warning.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "lint/provenance.h"
#include "onnx/onnx_pb.h"
#include "recorded_model.h"
#include "shapelint/lint/lint.h"
#include "shapelint/lint/probe.h"

namespace shapelint::lint {
namespace {

using ONNX_NAMESPACE::TensorProto;

// t = x[s77, s27, s53]; a = (t @ t^T) `op` `scale`, the product recorded with `line`; s53 is
// summed over by the MatMul.
std::string ScaleModel(const std::string& op, float scale, const std::string& line) {
  ONNX_NAMESPACE::ModelProto m = ModelWithRanges("");
  auto* g = m.mutable_graph();
  AddSwapLastAxes(g, "x", "xt");
  AddNode(g, "MatMul", {"x", "xt"}, "scores")->set_name("node_matmul");
  auto* s = g->add_initializer();
  s->set_name("scale");
  s->set_data_type(TensorProto::FLOAT);
  s->add_float_data(scale);
  auto* mul = AddNode(g, op, {"scores", "scale"}, "y");
  mul->set_name("node_scale");
  RecordStack(mul, absl::StrCat("File \"model.py\", line 7, in forward\n    ", line, "\n"));
  g->add_output()->set_name("y");
  g->mutable_output(0)->mutable_type()->mutable_tensor_type()->set_elem_type(TensorProto::FLOAT);
  return m.SerializeAsString();
}

// SL008's findings, told x's export size [2, 5, 4]: 4 channels summed over.
std::vector<Finding> Sl008Told(const std::string& bytes) {
  LintOptions options;
  options.export_dims = ProbeSpec{{}, {{"x", {2, 5, 4}}}, {}, 0, 0};
  return FindingsOf(bytes, "SL008", options);
}

TEST_CASE("SL008: a scale its recorded line writes is the module's own", "[lint]") {
  // By hand: 0.5 = 1 / sqrt(4) and 2 = sqrt(4) at the export size; the line decides whose.
  const auto computed =
      Sl008Told(ScaleModel("Mul", 0.5F, "a = (t @ t.transpose(1, 2)).mul(self.scale).softmax(-1)"));
  REQUIRE(computed.size() == 1);
  CHECK(computed[0].severity == Severity::kWarning);
  CHECK(absl::StrContains(computed[0].message, "Mul by the literal 0.5"));
  CHECK(Sl008Told(ScaleModel("Mul", 0.5F, "a = (t @ t.transpose(1, 2)).mul(0.5).softmax(-1)"))
            .empty());
  CHECK(Sl008Told(ScaleModel("Div", 2.0F, "a = (t @ t.transpose(1, 2)) / 2")).empty());
  CHECK(Sl008Told(ScaleModel("Mul", 0.5F, "a = (t @ t.transpose(1, 2)).div(2)")).empty());
  // The 2 of transpose(1, 2) is not what the line divides by, nor is a power's 2.
  CHECK(Sl008Told(ScaleModel("Div", 2.0F, "a = (t @ t.transpose(1, 2)) / self.norm")).size() == 1);
  CHECK(Sl008Told(ScaleModel("Div", 2.0F, "a = (t @ t.transpose(1, 2)) / n ** 2")).size() == 1);
  CHECK(Sl008Told(ScaleModel("Div", 2.0F, "a = (t @ t.transpose(1, 2)) // 2")).size() == 1);
}

TEST_CASE("a recorded line that writes a decimal", "[lint]") {
  CHECK(WritesDecimal("a = (t @ t.transpose(1, 2)).mul(0.5).softmax(-1)", 0.5));
  CHECK(WritesDecimal("attn = q @ k.transpose(-2, -1) * 0.125", 0.125));
  CHECK(WritesDecimal("x = x * .5", 0.5));
  CHECK(WritesDecimal("x = x * 1.25e-1", 0.125));
  CHECK(WritesDecimal("x = x * 0.17677669", 0.1767766952966369));  // 1 / sqrt(32), float32's
  CHECK(WritesDecimal("x = x * -0.5", -0.5));
  // An exponent computes its number from the size; names and longer numbers are not it.
  CHECK_FALSE(WritesDecimal("scale = q.shape[-1] ** -0.5", 0.5));
  CHECK_FALSE(WritesDecimal("scale = q.shape[-1] ** 0.5", 0.5));
  CHECK_FALSE(WritesDecimal("x = self.w0.5", 0.5));
  CHECK_FALSE(WritesDecimal("x = x * 10.5", 0.5));
  CHECK_FALSE(WritesDecimal("x = x * 0.55", 0.5));
  CHECK_FALSE(WritesDecimal("x = x * 5", 5.0));  // an integer: WritesNumber's
  CHECK_FALSE(WritesDecimal("", 0.5));
}

}  // namespace
}  // namespace shapelint::lint
