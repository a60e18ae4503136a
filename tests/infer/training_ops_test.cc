// ai.onnx.preview.training: optimiser steps and Gradient mirror the shapes they update.
#include <catch2/catch.hpp>

#include "infer/infer_fixture.h"

namespace shapelint::infer {
namespace {

constexpr const char* kImports = R"("" : 17, "ai.onnx.preview.training" : 1)";

TEST_CASE("Optimisers: new tensors and states have the shapes of the old", "[infer][training]") {
  auto r = InferWith(kImports, R"(
g (float r, int64 t, float[N,4] x1, float[3] x2, float[N,4] g1, float[3] g2, float[N,4] v1, float[3] v2, float[N,4] h1, float[3] h2)
    => (float[?,?] ax1, float[?] ax2, float[?,?] ah1, float[?] ah2,
        float[?,?] mx1, float[?,?] mv1,
        float[?,?] dx1, float[?] dx2, float[?,?] dv1, float[?] dv2, float[?,?] dh1, float[?] dh2) {
  ax1, ax2, ah1, ah2 = ai.onnx.preview.training.Adagrad (r, t, x1, x2, g1, g2, h1, h2)
  mx1, mv1 = ai.onnx.preview.training.Momentum <alpha = 0.9, beta = 1.0, mode = "standard", norm_coefficient = 0.0> (r, t, x1, g1, v1)
  dx1, dx2, dv1, dv2, dh1, dh2 = ai.onnx.preview.training.Adam (r, t, x1, x2, g1, g2, v1, v2, h1, h2)
})");
  CHECK(r.Shape("ax1") == "[N, 4]");
  CHECK(r.Shape("ax2") == "[3]");
  CHECK(r.Shape("ah2") == "[3]");
  CHECK(r.Shape("mv1") == "[N, 4]");
  CHECK(r.Shape("dx2") == "[3]");
  CHECK(r.Shape("dv1") == "[N, 4]");
  CHECK(r.Shape("dh2") == "[3]");
}

TEST_CASE("Gradient: one output per xs, shaped like it", "[infer][training]") {
  auto r = InferWith(kImports, R"(
g (float[B,8] a, float[8,2] w) => (float[?,?] da, float[?,?] dw) {
  y = MatMul (a, w)
  da, dw = ai.onnx.preview.training.Gradient <xs = ["a", "w"], y = "y"> (a, w)
})");
  CHECK(r.Shape("da") == "[B, 8]");
  CHECK(r.Shape("dw") == "[8, 2]");
}

}  // namespace
}  // namespace shapelint::infer
