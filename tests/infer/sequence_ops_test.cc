// Sequence ops: lengths and element shapes through construct, insert, erase, split and concat.
#include <catch2/catch.hpp>

#include "infer/infer_fixture.h"

namespace shapelint::infer {
namespace {

TEST_CASE("Sequence: insert, erase and at follow each element", "[infer][sequence]") {
  // Expected shapes worked out by hand from the ONNX operator docs.
  auto r = Infer(R"(
g (float[2,3] a, float[5,3] b, float[N,3] c) => (float[?,?] first, float[?,?] last, int64 n, float[?,?] joined) {
  empty = SequenceEmpty <dtype = 1> ()
  s1 = SequenceInsert (empty, a)
  s2 = SequenceInsert (s1, b)
  zero = Constant <value = int64 {0}> ()
  s3 = SequenceInsert (s2, c, zero)
  first = SequenceAt (s3, zero)
  minus_one = Constant <value = int64 {-1}> ()
  last = SequenceAt (s3, minus_one)
  n = SequenceLength (s3)
  s4 = SequenceErase (s3, zero)
  joined = ConcatFromSequence <axis = 0> (s4)
})");
  CHECK(r.Shape("first") == "[N, 3]");
  CHECK(r.Shape("last") == "[5, 3]");
  CHECK(r.Values("n") == "{3}");
  // s4 = [a, b]: 2 + 5 rows.
  CHECK(r.Shape("joined") == "[7, 3]");
}

TEST_CASE("Sequence: an unknown position is fine when every element is alike",
          "[infer][sequence]") {
  auto r = Infer(R"(
g (float[B,4] x, float[B,4] y, int64 p, float[2,4] z) => (float[?,?] at) {
  s = SequenceConstruct (x, y)
  at = SequenceAt (s, p)
  t = SequenceConstruct (x, z)
  other = SequenceAt (t, p)
})");
  CHECK(r.Shape("at") == "[B, 4]");
  // x or z: the data decides (`other` is no graph output, so no declaration is adopted).
  CHECK(r.Shape("other") == "?");
}

TEST_CASE("SplitToSequence along a dynamic axis has a symbolic length", "[infer][sequence]") {
  auto r = Infer(R"(
g (float[T,3] x, float[6,2] w) => (int64 n, float[?] row, float[?,?,?] stacked, float[?,?] cat, float[?,?] parts) {
  s = SplitToSequence <axis = 0, keepdims = 0> (x)
  n = SequenceLength (s)
  zero = Constant <value = int64 {0}> ()
  row = SequenceAt (s, zero)
  stacked = ConcatFromSequence <axis = -1, new_axis = 1> (s)
  cat = ConcatFromSequence <axis = 0> (s)
  four = Constant <value = int64 {4}> ()
  chunks = SplitToSequence <axis = 0> (w, four)
  parts_n = SequenceLength (chunks)
  last = Constant <value = int64 {-1}> ()
  parts = SequenceAt (chunks, last)
})");
  CHECK(r.Values("n") == "{T}");
  CHECK(r.Shape("row") == "[3]");
  // new_axis = 1, axis = -1: a new last axis of length T.
  CHECK(r.Shape("stacked") == "[3, T]");
  // Concatenating T rows of [3] along axis 0: 3*T.
  CHECK(r.Shape("cat") == "[3*T]");
  // Chunks of 4 along 6 rows: [4, 2] then [2, 2].
  CHECK(r.Values("parts_n") == "{2}");
  CHECK(r.Shape("parts") == "[2, 2]");
}

TEST_CASE("SplitToSequence cuts chunks of a fixed size along a dynamic axis", "[infer][sequence]") {
  // torch.split(x, 2, dim=1): ceil(C / 2) chunks, each 2 long but the last.
  auto r = Infer(R"(
g (float[N,C] x) => (int64 n, float[?,?] first, float[?,?] second, float[?,?] last) {
  two = Constant <value = int64 {2}> ()
  s = SplitToSequence <axis = 1> (x, two)
  n = SequenceLength (s)
  zero = Constant <value = int64 {0}> ()
  one = Constant <value = int64 {1}> ()
  minus_one = Constant <value = int64 {-1}> ()
  first = SequenceAt (s, zero)
  second = SequenceAt (s, one)
  last = SequenceAt (s, minus_one)
})");
  CHECK(r.Values("n") == "{floor((C + 1) / 2)}");
  CHECK(r.Shape("first") == "[N, min(C, 2)]");
  CHECK(r.Shape("second") == "[N, min(C - 2, 2)]");
  // C - 2 * floor((C - 1) / 2), as the canonical form writes it: at C = 5, 5 - 6 + 2 = 1; at
  // C = 6, 6 - 6 + 2 = 2.
  CHECK(r.Shape("last") == "[N, C - 2*floor((C + 1) / 2) + 2]");
  // The second chunk exists only from C = 3 on; the first wherever C does.
  CHECK(r.Requirements(RequirementKind::kIndexBound) == std::vector<std::string>{"C ~ 3"});
}

TEST_CASE("ConcatFromSequence requires the elements to agree off the axis", "[infer][sequence]") {
  auto r = Infer(R"(
g (float[A,3] x, float[B,K] y) => (float[?,?] out) {
  s = SequenceConstruct (x, y)
  out = ConcatFromSequence <axis = 0> (s)
})");
  CHECK(r.Shape("out") == "[A + B, 3]");
  CHECK(r.Requirements(RequirementKind::kConcatDim) == std::vector<std::string>{"K ~ 3"});
}

}  // namespace
}  // namespace shapelint::infer

namespace shapelint::infer {
namespace {

TEST_CASE("Optional holds its input; strings and images", "[infer][sequence]") {
  auto r = Infer(R"(
g (float[B,4] x, string[N] s, string[N] t, uint8[K] bytes) => (float[?,?] y) {
  o = Optional (x)
  y = OptionalGetElement (o)
  has = OptionalHasElement (o)
  m = RegexFullMatch <pattern = "a.*"> (s)
  cat = StringConcat (s, t)
  parts, counts = StringSplit (s)
  img = ImageDecoder (bytes)
  gray = ImageDecoder <pixel_format = "Grayscale"> (bytes)
})",
                 20);
  CHECK(r.Shape("y") == "[B, 4]");
  CHECK(r.Values("has") == "{1}");
  CHECK(r.Shape("m") == "[N]");
  CHECK(r.Type("m") == ONNX_NAMESPACE::TensorProto::BOOL);
  CHECK(r.Shape("cat") == "[N]");
  CHECK(r.Shape("counts") == "[N]");
  const TensorFact& parts = r.Fact("parts");
  REQUIRE(parts.shape);
  CHECK(parts.shape->size() == 2);
  const TensorFact& img = r.Fact("img");
  REQUIRE(img.shape);
  REQUIRE(img.shape->size() == 3);
  CHECK((*img.shape)[2]->ToString() == "3");
  CHECK(r.Shape("gray").find(", 1]") != std::string::npos);
}

}  // namespace
}  // namespace shapelint::infer

namespace shapelint::infer {
namespace {

TEST_CASE("SequenceMap runs its body per element", "[infer][sequence]") {
  // Each element [k, 4] is transposed and paired with w [4, 2]: results [k, 2].
  auto r = Infer(R"(
g (float[A,4] a, float[5,4] b, float[4,2] w) => (float[?,?] first, float[?,?] second) {
  s = SequenceConstruct (a, b)
  m = SequenceMap (s, w) <
    body = f (float[?,4] x, float[4,2] v) => (float[?,2] y) {
      y = MatMul (x, v)
    }
  >
  zero = Constant <value = int64 {0}> ()
  one = Constant <value = int64 {1}> ()
  first = SequenceAt (m, zero)
  second = SequenceAt (m, one)
})");
  CHECK(r.Shape("first") == "[A, 2]");
  CHECK(r.Shape("second") == "[5, 2]");
}

}  // namespace
TEST_CASE("SequenceAt of a constant position needs that many elements of a dynamic length",
          "[infer][sequence]") {
  // sum(x.unbind(1)) traced at 5 channels: positions 0..4 of a sequence of length C. ONNX
  // Runtime fails at C = 4 ("Invalid sequence index (4) specified for sequence of size (4)").
  auto r = Infer(R"(
g (float[N,C,W] x) => (float[?,?] a, float[?,?] b, float[?,?] c, float[?,?] d) {
  s = SplitToSequence <axis = 1, keepdims = 0> (x)
  zero = Constant <value = int64 {0}> ()
  four = Constant <value = int64 {4}> ()
  minus_one = Constant <value = int64 {-1}> ()
  minus_three = Constant <value = int64 {-3}> ()
  a = SequenceAt (s, zero)
  b = SequenceAt (s, four)
  c = SequenceAt (s, minus_one)
  d = SequenceAt (s, minus_three)
})");
  CHECK(r.Shape("b") == "[N, W]");
  // Positions 0 and -1 exist wherever the sequence has an element: no requirement for them.
  CHECK(r.Requirements(RequirementKind::kIndexBound) == std::vector<std::string>{"C ~ 5", "C ~ 3"});
}

}  // namespace shapelint::infer
