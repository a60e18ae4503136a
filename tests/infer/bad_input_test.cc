// Invalid and hostile graphs: the engine answers with unknown facts and notes, never a crash,
// a wrong dim or a blow-up.
#include <catch2/catch.hpp>
#include <string>

#include "absl/strings/str_cat.h"
#include "infer/infer_fixture.h"

namespace shapelint::infer {
namespace {

// The engine notes that mention `text`.
int NotesWith(const Run& r, const std::string& text) {
  int n = 0;
  for (const EngineNote& note : r.inference.notes) {
    if (note.message.find(text) != std::string::npos) ++n;
  }
  return n;
}

TEST_CASE("An attribute of the wrong type makes the node unknown, with a note", "[infer][bad]") {
  // Flatten's axis as a string: falling back to the default axis 1 would claim [N, 12].
  auto r = Infer(R"(
g (float[N,3,4] x) => (float[?,?] y) {
  f = Flatten <axis = "two"> (x)
  y = Identity (f)
  ok = Flatten <axis = 2> (x)
})");
  CHECK(r.Shape("f") == "?");
  CHECK(NotesWith(r, "attribute 'axis' is STRING where Flatten expects INT") == 1);
  CHECK(r.Shape("ok") == "[3*N, 4]");
}

TEST_CASE("Ranks an op cannot take give unknown outputs", "[infer][bad]") {
  auto r = Infer(R"(
g (float s, float[2,3] m, float[8] v, float[4,3,3,3] w) => (float[?] y) {
  a = MatMul (s, s)
  c = Conv (m, w)
  p = MaxPool <kernel_shape = [2, 2]> (v)
  t = Transpose <perm = [0, 1, 2]> (m)
  y = Identity (v)
})");
  CHECK(r.Shape("a") == "?");
  CHECK(r.Shape("c") == "?");
  CHECK(r.Shape("p") == "?");
  CHECK(r.Shape("t") == "?");
}

TEST_CASE("Dims near INT64_MAX: products that overflow are unknown and noted", "[infer][bad]") {
  // 2^62 * 4 = 2^64 does not fit in int64.
  auto r = Infer(R"(
g (float[4611686018427387904,4] x) => (float[?] y) {
  y = Flatten <axis = 2> (x)
  minus = Constant <value = int64[1] {-1}> ()
  z = Reshape (x, minus)
})");
  CHECK(r.Shape("y") == "[?, 1]");
  CHECK(r.Shape("z") == "[?]");
  CHECK(NotesWith(r, "overflowed int64") >= 1);
}

TEST_CASE("INT64 extremes in window, block and step attributes give unknown dims",
          "[infer][bad][hostile]") {
  // Each of these once computed its constant part in plain int64 (signed overflow): a pad of
  // INT64_MAX wrapped to a Conv output of H - 4.
  auto r = Infer(R"(
g (float[1,3,H,8] x, float[3,3,3,3] w, float[1,3] m) => (float[?] y) {
  conv = Conv <pads = [9223372036854775807, 0, 9223372036854775807, 0]> (x, w)
  pool = MaxPool <kernel_shape = [3, 3], dilations = [4611686018427387904, 1]> (x)
  convt = ConvTranspose <pads = [9223372036854775807, 0, 9223372036854775807, 0]> (x, w)
  d2s = DepthToSpace <blocksize = 4294967296> (x)
  start = Constant <value = int64 {0}> ()
  limit = Constant <value = int64 {-10}> ()
  delta = Constant <value = int64 {-9223372036854775808}> ()
  range = Range (start, limit, delta)
  starts = Constant <value = int64[1] {-1}> ()
  ends = Constant <value = int64[1] {-9223372036854775808}> ()
  axes = Constant <value = int64[1] {1}> ()
  steps = Constant <value = int64[1] {-9223372036854775808}> ()
  slice = Slice (m, starts, ends, axes, steps)
  y = Identity (start)
})");
  CHECK(r.Shape("conv") == "[1, 3, ?, 6]");
  CHECK(r.Shape("pool") == "[1, 3, ?, 6]");
  CHECK(r.Shape("convt") == "[1, 3, ?, 10]");
  CHECK(r.Shape("d2s") == "?");
  CHECK(r.Shape("range") == "[?]");
  CHECK(r.Shape("slice") == "[1, ?]");
}

TEST_CASE("Huge generated tensors keep their shape, not their values", "[infer][bad]") {
  // Range(0, 2^60, 1) and ConstantOfShape([2^30, 2^30]) have 2^60 elements: the shapes are exact,
  // the values are never materialised.
  auto r = Infer(R"(
g (float[N] x) => (int64[?] big) {
  start = Constant <value = int64 {0}> ()
  limit = Constant <value = int64 {1152921504606846976}> ()
  delta = Constant <value = int64 {1}> ()
  big = Range (start, limit, delta)
  shape = Constant <value = int64[2] {1073741824, 1073741824}> ()
  zeros = ConstantOfShape (shape)
})");
  CHECK(r.Shape("big") == "[1152921504606846976]");
  CHECK(r.Values("big") == "?");
  CHECK(r.Shape("zeros") == "[1073741824, 1073741824]");
  CHECK(r.Values("zeros") == "?");
}

TEST_CASE("An expression past the term cap is unknown and noted", "[infer][bad]") {
  // Concat of 70 inputs, each with its own symbol on the axis: a sum of 70 terms (cap: 64).
  std::string inputs, names;
  for (int i = 0; i < 70; ++i) {
    absl::StrAppend(&inputs, i == 0 ? "" : ", ", "float[D", i, ",2] x", i);
    absl::StrAppend(&names, i == 0 ? "" : ", ", "x", i);
  }
  auto r = Infer(absl::StrCat("g (", inputs, ") => (float[?,?] y) {\n  y = Concat <axis = 0> (",
                              names, ")\n}"));
  CHECK(r.Shape("y") == "[?, 2]");
  CHECK(NotesWith(r, "past the cap") == 1);
}

// `levels` Ifs, each nested in the then-branch of the one above.
std::string NestedIfs(int levels) {
  std::string body = "o0 = Relu (x)";
  for (int level = 1; level <= levels; ++level) {
    body = absl::StrCat("o", level, " = If (c) <then_branch = t", level, " () => (float[?] o",
                        level - 1, ") { ", body, " }, else_branch = e", level, " () => (float[?] r",
                        level, ") { r", level, " = Neg (x) }>");
  }
  return absl::StrCat(
      "<ir_version: 8, opset_import: [\"\" : 17]>\ng (float[N] x, bool c) => (float[?] o", levels,
      ") {\n  ", body, "\n}");
}

TEST_CASE("Nested subgraphs: 60 levels are inferred, past 64 the file is refused", "[infer][bad]") {
  // Both branches of every If are inferred once per level, not once per path: linear work.
  auto model = ir::LoadModelFromBytes(NestedIfs(60), "deep.onnxtxt");
  REQUIRE(model.ok());
  Inference inference = Infer(**model);
  const TensorFact* out = inference.Find("o60");
  REQUIRE(out != nullptr);
  REQUIRE(out->shape);
  REQUIRE(out->shape->size() == 1);
  CHECK((*out->shape)[0]->ToString() == "N");
  auto too_deep = ir::LoadModelFromBytes(NestedIfs(100), "deeper.onnxtxt");
  REQUIRE_FALSE(too_deep.ok());
  CHECK(std::string(too_deep.status().message()).find("nested deeper than 64") !=
        std::string::npos);
}

}  // namespace
}  // namespace shapelint::infer
