// How op functions read attributes: the messages they are parsed into are reused from node to
// node (AttributeScratch), which must never hand an op a message another live reader holds; the
// plain typed ones are read from their bytes without a message.
#include "infer/op_context.h"

#include <catch2/catch.hpp>
#include <memory>
#include <string>
#include <vector>

#include "infer/infer_fixture.h"
#include "shapelint/infer/engine.h"
#include "shapelint/ir/load.h"

namespace shapelint::infer {
namespace {

// The main graph's nodes of a binary model keep their attributes serialized (parsed when read,
// into the scratch messages); those of a text model are parsed once with the model.
std::unique_ptr<ir::Model> LoadBinary(const std::string& text) {
  auto parsed = ir::LoadModelFromBytes(text, "test.onnxtxt");
  REQUIRE(parsed.ok());
  auto binary = ir::LoadModelFromBytes((*parsed)->CompleteProto().SerializeAsString(), "test.onnx");
  INFO(binary.status().message());
  REQUIRE(binary.ok());
  return *std::move(binary);
}

std::string FloatList(int n) {
  std::string s;
  for (int i = 0; i < n; ++i) s += (i ? ", " : "") + std::to_string(i % 7) + ".5";
  return s;
}

TEST_CASE("an op reads all its attributes at once from a binary model", "[infer]") {
  // Each op reads several attributes and keeps all of them while it works: were two of them
  // parsed into one message, the first would read as the second.
  const std::string text = R"(<ir_version: 8, opset_import: ["" : 17]>
g (float[N, 3, 12, 12] x, float[4, 6] a, float[5, 4] b) => (float[?, ?, ?, ?] p, float[?, ?] y) {
  p = AveragePool <kernel_shape = [3, 2], strides = [3, 2], pads = [0, 1, 0, 1]> (x)
  y = Gemm <transA = 1, transB = 1, alpha = 2.0> (a, b)
  c = Constant <value = int64[2] {3, 4}> ()
  t = Transpose <perm = [1, 0]> (a)
  s = Concat <axis = 0> (c, c)
})";
  const auto model = LoadBinary(text);
  const Run binary{nullptr, Infer(*model)};
  const Run parsed = InferWith("\"\" : 17", text.substr(text.find('\n') + 1));
  // H: floor((12 - 3) / 3) + 1 = 4; W: floor((12 + 2 - 2) / 2) + 1 = 7.
  CHECK(binary.Shape("p") == "[N, 3, 4, 7]");
  // A^T (6 x 4) times B^T (4 x 5).
  CHECK(binary.Shape("y") == "[6, 5]");
  CHECK(binary.Shape("t") == "[6, 4]");
  CHECK(binary.Values("s") == "{3, 4, 3, 4}");
  for (const char* value : {"p", "y", "c", "t", "s"}) {
    INFO(value);
    CHECK(binary.Shape(value) == parsed.Shape(value));
    CHECK(binary.Values(value) == parsed.Values(value));
  }
}

TEST_CASE("attribute messages are a stack over nested contexts", "[infer]") {
  const auto model = LoadBinary(R"(<ir_version: 8, opset_import: ["" : 17]>
g (float[2, 3] a) => (float[3, 2] t) {
  t = Transpose <perm = [1, 0]> (a)
  s = Concat <axis = 0> (a, a)
  g0 = Gemm <transA = 1, alpha = 0.5> (a, a)
})");
  const ir::Graph& g = model->graph();
  Inference inference;
  std::vector<TensorFact> outputs(1);
  AttributeScratch scratch;

  OpContext outer(g, 0, 17, inference, {}, absl::MakeSpan(outputs), &scratch);
  const auto* perm = outer.Attr("perm");
  REQUIRE(perm != nullptr);
  CHECK(scratch.used() == 1);
  {
    OpContext inner(g, 1, 17, inference, {}, absl::MakeSpan(outputs), &scratch);
    const auto* axis = inner.Attr("axis");
    REQUIRE(axis != nullptr);
    CHECK(axis->i() == 0);
    CHECK(scratch.used() == 2);
    {
      OpContext innermost(g, 2, 17, inference, {}, absl::MakeSpan(outputs), &scratch);
      const auto* trans_a = innermost.Attr("transA");
      const auto* alpha = innermost.Attr("alpha");
      REQUIRE(trans_a != nullptr);
      REQUIRE(alpha != nullptr);
      CHECK(trans_a->i() == 1);
      CHECK(alpha->f() == 0.5f);
      CHECK(scratch.used() == 4);
    }
    CHECK(scratch.used() == 2);
    CHECK(axis->i() == 0);
  }
  CHECK(scratch.used() == 1);
  // The outer context's attribute outlived the inner ones, untouched.
  CHECK(perm->name() == "perm");
  REQUIRE(perm->ints_size() == 2);
  CHECK(perm->ints(0) == 1);
  CHECK(perm->ints(1) == 0);
  // Read again, it is the same message, not a new parse.
  CHECK(outer.Attr("perm") == perm);
  CHECK(outer.Attr("missing") == nullptr);
  CHECK(scratch.used() == 1);
}

TEST_CASE("typed attributes of a binary model are read from their bytes", "[infer]") {
  // As protobuf would parse them, and without a message, also when they are of another type
  // than asked, which the context names. A text model's are parsed already.
  const std::string text = R"(<ir_version: 8, opset_import: ["" : 17]>
g (float[2, 3] a) => (float[?, ?] y) {
  y = Gemm <transA = 1, alpha = 0.25, perm = [-3, 0, 300000000000], mode = "edge", axis = "0"> (a, a)
})";
  const auto binary_model = LoadBinary(text);
  const auto text_model = ir::LoadModelFromBytes(text, "test.onnxtxt");
  REQUIRE(text_model.ok());
  for (const ir::Model* model : {binary_model.get(), text_model->get()}) {
    const bool binary = model == binary_model.get();
    INFO((binary ? "binary" : "text"));
    Inference inference;
    std::vector<TensorFact> outputs(1);
    AttributeScratch scratch;
    OpContext ctx(model->graph(), 0, 17, inference, {}, absl::MakeSpan(outputs), &scratch);
    CHECK(ctx.AttrInt("transA") == 1);
    CHECK(ctx.AttrFloat("alpha") == 0.25f);
    CHECK(ctx.AttrInts("perm") == std::vector<int64_t>{-3, 0, 300000000000});
    CHECK(ctx.AttrString("mode") == "edge");
    CHECK_FALSE(ctx.AttrInt("missing").has_value());
    CHECK(ctx.bad_attribute().empty());
    CHECK(scratch.used() == 0);
    CHECK_FALSE(ctx.AttrInt("axis").has_value());
    CHECK(ctx.bad_attribute() == "attribute 'axis' is STRING where Gemm expects INT");
    CHECK(scratch.used() == 0);
  }
}

TEST_CASE("a tensor attribute takes a message only when it must be parsed", "[infer]") {
  const std::string text = R"(<ir_version: 8, opset_import: ["" : 17]>
g (int64[2] s) => (int64[?, ?] y) {
  y = ConstantOfShape <value = int64[1] {7}, mode = "edge"> (s)
})";
  const auto binary_model = LoadBinary(text);
  const auto text_model = ir::LoadModelFromBytes(text, "test.onnxtxt");
  REQUIRE(text_model.ok());
  for (const ir::Model* model : {binary_model.get(), text_model->get()}) {
    const bool binary = model == binary_model.get();
    INFO((binary ? "binary" : "text"));
    Inference inference;
    std::vector<TensorFact> outputs(1);
    AttributeScratch scratch;
    OpContext ctx(model->graph(), 0, 17, inference, {}, absl::MakeSpan(outputs), &scratch);
    const ONNX_NAMESPACE::TensorProto* value = ctx.AttrTensor("value");
    REQUIRE(value != nullptr);
    CHECK(value->int64_data_size() + value->raw_data().size() / 8 == 1);
    CHECK(scratch.used() == (binary ? 1 : 0));
    // Kept with the attributes parsed for the op: read again, it is the same message.
    const auto* attribute = ctx.Attr("value");
    REQUIRE(attribute != nullptr);
    CHECK(&attribute->t() == value);
    CHECK(scratch.used() == (binary ? 1 : 0));
    // Of another type, it is never parsed.
    CHECK(ctx.AttrTensor("mode") == nullptr);
    CHECK(ctx.AttrTensor("missing") == nullptr);
    CHECK(scratch.used() == (binary ? 1 : 0));
    CHECK(ctx.bad_attribute() == "attribute 'mode' is STRING where ConstantOfShape expects TENSOR");
  }
}

TEST_CASE("a context without scratch messages parses a tensor into one of its own", "[infer]") {
  const auto model = LoadBinary(R"(<ir_version: 8, opset_import: ["" : 17]>
g (int64[2] s) => (int64[?, ?] y) {
  y = ConstantOfShape <value = int64[1] {7}> (s)
})");
  Inference inference;
  std::vector<TensorFact> outputs(1);
  OpContext ctx(model->graph(), 0, 17, inference, {}, absl::MakeSpan(outputs));
  const ONNX_NAMESPACE::TensorProto* value = ctx.AttrTensor("value");
  REQUIRE(value != nullptr);
  CHECK(ctx.Attr("value") != nullptr);
  CHECK(&ctx.Attr("value")->t() == value);
  CHECK(value->data_type() == ONNX_NAMESPACE::TensorProto::INT64);
}

TEST_CASE("a message that held a large value is not kept at that size", "[infer]") {
  const auto model = LoadBinary(R"(<ir_version: 8, opset_import: ["" : 17]>
g (float[2] a) => (float[20000] big) {
  big = Constant <value_floats = [)" +
                                FloatList(20000) + R"(]> ()
  small = Constant <value = int64[2] {1, 2}> ()
})");
  const ir::Graph& g = model->graph();
  Inference inference;
  std::vector<TensorFact> outputs(1);
  AttributeScratch scratch;
  const ONNX_NAMESPACE::AttributeProto* first = nullptr;
  {
    OpContext small(g, 1, 17, inference, {}, absl::MakeSpan(outputs), &scratch);
    first = small.AttrAt(0);
    REQUIRE(first != nullptr);
  }
  {
    // A small value: the message is parsed into again.
    OpContext small(g, 1, 17, inference, {}, absl::MakeSpan(outputs), &scratch);
    CHECK(small.AttrAt(0) == first);
  }
  {
    OpContext big(g, 0, 17, inference, {}, absl::MakeSpan(outputs), &scratch);
    const auto* value = big.AttrAt(0);
    REQUIRE(value != nullptr);
    CHECK(value == first);
    CHECK(value->floats_size() == 20000);
  }
  // 80 KB of floats (a tensor's payload would have been skipped at load): the message was replaced
  // by a fresh one when given back.
  OpContext small(g, 1, 17, inference, {}, absl::MakeSpan(outputs), &scratch);
  const auto* again = small.AttrAt(0);
  REQUIRE(again != nullptr);
  CHECK(again != first);
  CHECK(again->t().int64_data_size() + again->t().raw_data().size() / 8 == 2);
}

}  // namespace
}  // namespace shapelint::infer
