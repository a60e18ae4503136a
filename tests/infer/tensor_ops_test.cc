// Tensor, generator, indexing and reduction ops, opset by opset. Each expectation is worked out
// by hand from the ONNX operator definition, in the comment next to it.
#include <catch2/catch.hpp>
#include <string>

#include "absl/strings/str_join.h"
#include "infer/infer_fixture.h"
#include "shapelint/infer/engine.h"
#include "shapelint/ir/load.h"

namespace shapelint::infer {
namespace {

using ONNX_NAMESPACE::TensorProto;

TEST_CASE("Expand broadcasts input and target shape both ways", "[infer][tensor_ops]") {
  auto r = Infer(R"(
g (float[N,1,W] x, float[1,C] row, float[B,C] like, float[N,3] m) => (float[N,5,W] y) {
  t = Constant <value = int64[3] {1, 5, 1}> ()
  y = Expand (x, t)
  t4 = Constant <value = int64[4] {2, 1, 1, 1}> ()
  longer = Expand (x, t4)
  s = Shape (like)
  dyn = Expand (row, s)
  seven = Constant <value = int64[1] {7}> ()
  three = Constant <value = int64[1] {3}> ()
  v = Expand (seven, three)
  t2 = Constant <value = int64[2] {4, 3}> ()
  pinned = Expand (m, t2)
})",
                 13);
  // [N,1,W] with [1,5,1]: a target 1 keeps the input dim, an input 1 takes the target's.
  CHECK(r.Shape("y") == "[N, 5, W]");
  // The target is longer: [N,1,W] right-aligned against [2,1,1,1].
  CHECK(r.Shape("longer") == "[2, N, 1, W]");
  // The target comes from Shape(like) = {B, C}: [1,C] with [B,C] is [B,C], no literal.
  CHECK(r.Shape("dyn") == "[B, C]");
  // Values pass through: [7] expanded to [3] is {7, 7, 7}.
  CHECK(r.Values("v") == "{7, 7, 7}");
  // [N,3] to [4,3]: N must be 4 (or 1); the literal 4 is the requirement's right side.
  CHECK(r.Shape("pinned") == "[4, 3]");
  const Requirement* req = r.FindRequirement(RequirementKind::kBroadcast);
  REQUIRE(req != nullptr);
  CHECK(req->lhs.ToString() == "N");
  CHECK(req->rhs.ToString() == "4");
  CHECK(req->origin != kNoOrigin);
}

TEST_CASE("Expand with an unknown target or input", "[infer][tensor_ops]") {
  auto r = Infer(R"(
g (float[N,C] x, int64[3] t, float u) => (float[?,?,?] y) {
  y = Expand (x, t)
})",
                 13);
  // Target values unknown but its length is 3: rank max(2, 3), dims unknown.
  CHECK(r.Shape("y") == "[?, ?, ?]");
}

TEST_CASE("Tile multiplies each dim by its repeat", "[infer][tensor_ops]") {
  auto r = Infer(R"(
g (float[N,3] x, int64[2] reps) => (float[?,3] y) {
  two_one = Constant <value = int64[2] {2, 1}> ()
  y = Tile (x, two_one)
  u = Tile (x, reps)
  v = Constant <value = int64[2] {1, 2}> ()
  three = Constant <value = int64[1] {3}> ()
  tv = Tile (v, three)
})",
                 13);
  // [N*2, 3*1]
  CHECK(r.Shape("y") == "[2*N, 3]");
  // Unknown repeats keep the rank.
  CHECK(r.Shape("u") == "[?, ?]");
  // {1, 2} tiled 3 times.
  CHECK(r.Values("tv") == "{1, 2, 1, 2, 1, 2}");
  CHECK(r.Shape("tv") == "[6]");
}

TEST_CASE("Pad: pads attribute before opset 11", "[infer][tensor_ops]") {
  auto r = Infer(R"(
g (float[N,C] x) => (float[N,?] y) {
  y = Pad <pads = [0, 1, 0, 2], mode = "reflect"> (x)
})",
                 7);
  // pads = [x1_begin, x2_begin, x1_end, x2_end]: axis 1 grows by 1 + 2.
  CHECK(r.Shape("y") == "[N, C + 3]");
}

TEST_CASE("Pad: pads input since opset 11, axes input since 18", "[infer][tensor_ops]") {
  auto r11 = Infer(R"(
g (float[N,C] x, int64[4] p) => (float[?,?] y) {
  ones = Constant <value = int64[4] {1, 1, -1, 1}> ()
  y = Pad (x, ones)
  u = Pad (x, p)
})",
                   11);
  // begin {1, 1}, end {-1, 1}: N + 1 - 1 and C + 1 + 1; a negative pad crops.
  CHECK(r11.Shape("y") == "[N, C + 2]");
  CHECK(r11.Shape("u") == "[?, ?]");
  auto r18 = Infer(R"(
g (float[N,C,H] x, int64[2] p) => (float[?,?,?] y) {
  pads = Constant <value = int64[2] {2, 3}> ()
  last = Constant <value = int64[1] {-1}> ()
  y = Pad (x, pads, , last)
  u = Pad (x, p, , last)
})",
                   18);
  // Only axis -1 (H) is padded: H + 2 + 3.
  CHECK(r18.Shape("y") == "[N, C, H + 5]");
  // Unknown pads on axis -1 leave the other axes alone.
  CHECK(r18.Shape("u") == "[N, C, ?]");
}

TEST_CASE("Pad: TF-style same padding keeps the axes its literal zeros pad",
          "[infer][tensor_ops]") {
  // timm's tf_efficientnet: the pads of H and W are computed from the input size in float
  // (unknown here), concatenated with literal zeros for batch and channels. Concat keeps the
  // zeros, so the Pad keeps N and C, and the Conv after it sees its channels.
  auto r = Infer(R"(
g (float[N,C,H,W] x, int64[1] h0, int64[1] h1, int64[1] w0, int64[1] w1) => (float[?,?,?,?] y) {
  zero = Constant <value = int64[1] {0}> ()
  pads = Concat <axis = 0> (zero, zero, h0, w0, zero, zero, h1, w1)
  y = Pad (x, pads)
})",
                 13);
  CHECK(r.Values("pads") == "{0, 0, ?, ?, 0, 0, ?, ?}");
  CHECK(r.Shape("y") == "[N, C, ?, ?]");
}

TEST_CASE("Split: attribute sizes before opset 13", "[infer][tensor_ops]") {
  auto r = Infer(R"(
g (float[N,5] x, float[N,S] z) => (float[N,2] a, float[N,3] b) {
  a, b = Split <axis = 1, split = [2, 3]> (x)
  c, d = Split <axis = -1, split = [2, 4]> (z)
})",
                 11);
  CHECK(r.Shape("a") == "[N, 2]");
  CHECK(r.Shape("b") == "[N, 3]");
  CHECK(r.Shape("c") == "[N, 2]");
  CHECK(r.Shape("d") == "[N, 4]");
  // 2 + 3 == 5 holds; S == 2 + 4 is a requirement on S with the attribute as its origin.
  CHECK(r.Requirements(RequirementKind::kSplitSum) == std::vector<std::string>{"S ~ 6"});
  const Requirement* req = r.FindRequirement(RequirementKind::kSplitSum);
  REQUIRE(req != nullptr);
  CHECK(req->relation == Relation::kEqual);
  const Origin* o = r.inference.OriginOf(req->origin);
  REQUIRE(o != nullptr);
  CHECK(o->kind == Origin::Kind::kAttribute);
  CHECK(o->name == "split");
}

TEST_CASE("Split: input sizes and equal parts since opset 13", "[infer][tensor_ops]") {
  auto r = Infer(R"(
g (float[N,C,H,W] x) => (float[?,?,?,?] a) {
  a, b = Split <axis = 1> (x)
  sizes = Constant <value = int64[2] {1, 3}> ()
  c, d = Split <axis = 2> (x, sizes)
  s = Shape (x)
  two = Constant <value = int64[2] {2, 2}> ()
  nc, hw = Split (s, two)
})",
                 13);
  // Two equal parts of C: floor(C / 2) each, and C must be even.
  CHECK(r.Shape("a") == "[N, floor(C / 2), H, W]");
  CHECK(r.Shape("b") == "[N, floor(C / 2), H, W]");
  CHECK(r.Shape("c") == "[N, C, 1, W]");
  CHECK(r.Shape("d") == "[N, C, 3, W]");
  auto reqs = r.Requirements(RequirementKind::kSplitSum);
  CHECK(std::find(reqs.begin(), reqs.end(), "C ~ 2") != reqs.end());  // divisible by 2
  CHECK(std::find(reqs.begin(), reqs.end(), "H ~ 4") != reqs.end());  // H == 1 + 3
  // A shape cut in two keeps its values.
  CHECK(r.Values("nc") == "{N, C}");
  CHECK(r.Values("hw") == "{H, W}");
}

TEST_CASE("Split: num_outputs since opset 18, last chunk smaller", "[infer][tensor_ops]") {
  auto r = Infer(R"(
g (float[L] x) => (float[?] a, float[?] b, float[?] c) {
  a, b, c = Split <num_outputs = 3> (x)
})",
                 18);
  // Chunks of ceil(L / 3), the last one L - 2 * ceil(L / 3): L = 10 -> 4, 4, 2; L = 9 -> 3s.
  CHECK(r.DimAt("a", 0, {{"L", 10}}) == 4);
  CHECK(r.DimAt("b", 0, {{"L", 10}}) == 4);
  CHECK(r.DimAt("c", 0, {{"L", 10}}) == 2);
  CHECK(r.DimAt("c", 0, {{"L", 9}}) == 3);
  CHECK(r.DimAt("a", 0, {{"L", 7}}) == 3);
  CHECK(r.DimAt("c", 0, {{"L", 7}}) == 1);
  // No divisibility requirement: an uneven split is allowed here.
  CHECK(r.Requirements(RequirementKind::kSplitSum).empty());
}

TEST_CASE("Range: symbolic limits with a constant delta, values when small", "[infer][generator]") {
  auto r = Infer(R"(
g (float[N,C] x) => (int64[N] y) {
  s = Shape (x)
  i0 = Constant <value = int64 {0}> ()
  n = Gather <axis = 0> (s, i0)
  zero = Constant <value = int64 {0}> ()
  one = Constant <value = int64 {1}> ()
  y = Range (zero, n, one)
  ten = Constant <value = int64 {10}> ()
  three = Constant <value = int64 {3}> ()
  small = Range (zero, ten, three)
  minus_two = Constant <value = int64 {-2}> ()
  down = Range (n, zero, minus_two)
  two = Constant <value = int64 {2}> ()
  from_two = Range (two, n, one)
  u = Range (zero, n, n)
})",
                 11);
  // ceil((N - 0) / 1) = N, never negative.
  CHECK(r.Shape("y") == "[N]");
  // ceil((10 - 0) / 3) = 4 elements: 0, 3, 6, 9.
  CHECK(r.Shape("small") == "[4]");
  CHECK(r.Values("small") == "{0, 3, 6, 9}");
  // ceil((0 - N) / -2) = ceil(N / 2).
  CHECK(r.DimAt("down", 0, {{"N", 5}}) == 3);
  CHECK(r.DimAt("down", 0, {{"N", 6}}) == 3);
  // max(ceil(N - 2), 0): empty for N = 1.
  CHECK(r.DimAt("from_two", 0, {{"N", 1}}) == 0);
  CHECK(r.DimAt("from_two", 0, {{"N", 7}}) == 5);
  // A symbolic delta: the length is unknown.
  CHECK(r.Shape("u") == "[?]");
}

TEST_CASE("Range: the largest value of an increasing range, and what indexing needs of it",
          "[infer][generator]") {
  // position_ids = past + arange(seq), then a table lookup (GPT-2's wpe with a cache).
  auto r = Infer(R"(
g (float[B,T] x, float[B,P] past) => (float[B,T,4] y) {
  s = Shape (x)
  one = Constant <value = int64 {1}> ()
  zero = Constant <value = int64 {0}> ()
  three = Constant <value = int64 {3}> ()
  t = Gather (s, one)
  ids = Range (zero, t, one)
  ps = Shape (past)
  p = Gather (ps, one)
  shifted = Add (ids, p)
  batched = Unsqueeze (shifted, zero)
  table = Constant <value = float[16,4] {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}> ()
  rows = Gather (table, batched)
  y = Squeeze (rows, zero)
  odd = Range (one, t, three)
  minus_one = Constant <value = int64 {-1}> ()
  down = Range (t, zero, minus_one)
  two = Constant <value = int64 {2}> ()
  from_two = Range (two, t, one)
})",
                 13);
  auto largest = [&](const std::string& v) -> sym::MaybeExpr {
    const TensorFact& f = r.Fact(v);
    return f.forms ? f.forms->largest : std::nullopt;
  };
  // 0 .. T - 1, then shifted by P: P + T - 1 at most, which a table of 16 rows must exceed.
  CHECK(largest("ids")->ToString() == "T - 1");
  CHECK(largest("batched")->ToString() == "P + T - 1");
  CHECK(r.Requirements(RequirementKind::kIndexBound) == std::vector<std::string>{"16 ~ P + T"});
  // 1, 4, 7, ...: the last is 1 + 3 * (ceil((T - 1) / 3) - 1); at T = 8, 7.
  REQUIRE(largest("odd"));
  sym::Binding at8;
  at8.Set("T", 8);
  CHECK(largest("odd")->Evaluate(at8) == 7);
  // A decreasing range starts at its largest: not recorded. Neither is one that may be empty
  // (2 .. T - 1 has max(T - 2, 0) elements): it indexes nothing at T = 1.
  CHECK(!largest("down"));
  CHECK(!largest("from_two"));
}

TEST_CASE("Range over float literals", "[infer][generator]") {
  auto r = Infer(R"(
g (float[N] x) => (float[?] y) {
  start = Constant <value = float {0.0}> ()
  limit = Constant <value = float {2.5}> ()
  step = Constant <value = float {0.5}> ()
  y = Range (start, limit, step)
  s = Shape (x)
  n = Cast <to = 1> (s)
  i0 = Constant <value = int64 {0}> ()
  nf = Gather (n, i0)
  upto = Range (start, nf, step)
  one = Constant <value = float {1.0}> ()
  unit = Range (start, nf, one)
})",
                 11);
  // ceil((2.5 - 0) / 0.5) = 5
  CHECK(r.Shape("y") == "[5]");
  CHECK(r.Fact("y").elem_type == TensorProto::FLOAT);
  // A symbolic limit with a fractional float step: no exact form, unknown length.
  CHECK(r.Shape("upto") == "[?]");
  // Float literals that hold integers count as integers: ceil((N - 0) / 1) = N.
  CHECK(r.Shape("unit") == "[N]");
}

TEST_CASE("Ops that fail for certain leave their dims unknown", "[infer][tensor_ops]") {
  auto r = Infer(R"(
g (float[6] x, float[1,3] m, float[N,7,H,W] img, float[A,B,C] e, float[C,D] f) => (float[?] a) {
  a, b = Split <axis = 0, split = [2, 3]> (x)
  c, d, q, t = Split <axis = 0> (x)
  t2 = Constant <value = int64[2] {4, 4}> ()
  ex = Expand (m, t2)
  dts = DepthToSpace <blocksize = 2> (img)
  ein = Einsum <equation = "...ij,jk->ik"> (e, f)
})",
                 11);
  // 2 + 3 != 6 and 6 does not split into 4 equal parts.
  CHECK(r.Shape("a") == "[?]");
  CHECK(r.Shape("c") == "[?]");
  // [1,3] to [4,4]: 1 broadcasts, 3 cannot.
  CHECK(r.Shape("ex") == "[4, ?]");
  // 7 channels are not divisible by 4.
  CHECK(r.Shape("dts") == "[N, ?, 2*H, 2*W]");
  // The output drops the broadcast dims without "...": numpy rejects the equation.
  CHECK(r.Shape("ein") == "?");
}

TEST_CASE("ConstantOfShape and Size read shapes", "[infer][generator]") {
  auto r = Infer(R"(
g (float[N,C] x) => (float[N,C] y) {
  s = Shape (x)
  y = ConstantOfShape (s)
  d = Constant <value = int64[2] {2, 3}> ()
  sevens = ConstantOfShape <value = int64[1] {7}> (d)
  n = Size (x)
  e = Constant <value = int64[0] {}> ()
  scalar = ConstantOfShape <value = int64[1] {4}> (e)
})",
                 13);
  CHECK(r.Shape("y") == "[N, C]");
  CHECK(r.Fact("y").elem_type == TensorProto::FLOAT);  // no value attribute: float zeros
  CHECK(r.Shape("sevens") == "[2, 3]");
  CHECK(r.Fact("sevens").elem_type == TensorProto::INT64);
  CHECK(r.Values("sevens") == "{7, 7, 7, 7, 7, 7}");
  // Size is the element count, a scalar.
  CHECK(r.Shape("n") == "[]");
  CHECK(r.Values("n") == "{C*N}");
  // An empty shape gives a scalar.
  CHECK(r.Shape("scalar") == "[]");
  CHECK(r.Values("scalar") == "{4}");
}

TEST_CASE("EyeLike, Trilu, ReverseSequence, CumSum keep shapes", "[infer][generator]") {
  auto r = Infer(R"(
g (float[N,M] x, int64[S,B] q, int64[B] lens) => (float[N,M] y) {
  y = EyeLike <dtype = 7> (x)
  t = Trilu <upper = 0> (x)
  rs = ReverseSequence <batch_axis = 1, time_axis = 0> (q, lens)
  zero = Constant <value = int64 {0}> ()
  cs = CumSum (x, zero)
  v = Constant <value = int64[3] {1, 2, 3}> ()
  sums = CumSum (v, zero)
  rev = CumSum <exclusive = 1, reverse = 1> (v, zero)
})",
                 14);
  CHECK(r.Shape("y") == "[N, M]");
  CHECK(r.Fact("y").elem_type == TensorProto::INT64);
  CHECK(r.Shape("t") == "[N, M]");
  CHECK(r.Shape("rs") == "[S, B]");
  CHECK(r.Shape("cs") == "[N, M]");
  // Running sums 1, 1+2, 1+2+3.
  CHECK(r.Values("sums") == "{1, 3, 6}");
  // Exclusive and reversed: y[i] = sum of x[j] for j > i: {2+3, 3, 0}.
  CHECK(r.Values("rev") == "{5, 3, 0}");
}

TEST_CASE("OneHot inserts depth at the axis", "[infer][generator]") {
  auto r = Infer(R"(
g (int64[N,4] idx, float[2] vals) => (float[N,4,10] y) {
  depth = Constant <value = int64 {10}> ()
  y = OneHot (idx, depth, vals)
  mid = OneHot <axis = 1> (idx, depth, vals)
  fdepth = Constant <value = float {5.0}> ()
  f = OneHot (idx, fdepth, vals)
})",
                 11);
  CHECK(r.Shape("y") == "[N, 4, 10]");
  CHECK(r.Fact("y").elem_type == TensorProto::FLOAT);
  CHECK(r.Shape("mid") == "[N, 10, 4]");
  // A float depth is cast to int64.
  CHECK(r.Shape("f") == "[N, 4, 5]");
}

TEST_CASE("DepthToSpace and SpaceToDepth", "[infer][tensor_ops]") {
  auto r = Infer(R"(
g (float[N,16,H,W] x, float[N,C,H,W] z) => (float[N,4,?,?] y) {
  y = DepthToSpace <blocksize = 2, mode = "CRD"> (x)
  d = DepthToSpace <blocksize = 2> (z)
  s = SpaceToDepth <blocksize = 2> (z)
})",
                 13);
  // [N, C / 4, H * 2, W * 2]
  CHECK(r.Shape("y") == "[N, 4, 2*H, 2*W]");
  CHECK(r.Shape("d") == "[N, floor(C / 4), 2*H, 2*W]");
  // [N, C * 4, H / 2, W / 2]
  CHECK(r.Shape("s") == "[N, 4*C, floor(H / 2), floor(W / 2)]");
  // C divisible by 4; H and W by 2.
  CHECK(r.Requirements(RequirementKind::kReshapeCount) ==
        std::vector<std::string>{"C ~ 4", "H ~ 2", "W ~ 2"});
}

TEST_CASE("Resize: scales input in opset 10", "[infer][tensor_ops]") {
  auto r = Infer(R"(
g (float[N,C,H,W] x, float[1,3,10,20] c) => (float[N,C,?,?] y) {
  sc = Constant <value = float[4] {1.0, 1.0, 2.0, 2.0}> ()
  y = Resize <mode = "nearest"> (x, sc)
  odd = Constant <value = float[4] {1.0, 1.0, 0.3, 1.5}> ()
  z = Resize (x, odd)
  k = Resize (c, odd)
  below = Constant <value = float[4] {1.0, 1.0, 0.7, 0.01}> ()
  u = Resize (x, below)
})",
                 10);
  CHECK(r.Shape("y") == "[N, C, 2*H, 2*W]");
  // 0.3f is 0.30000001, a hair above 3 / 10: floor(float(H) * 0.3f) is floor(3 * H / 10) for
  // every H (checked against float32 arithmetic for H up to 2,000,000). 1.5 = 3 / 2:
  // floor(3 * W / 2), which is W + floor(W / 2).
  CHECK(r.Shape("z") == "[N, C, floor(3*H / 10), W + floor(W / 2)]");
  // 0.7f is 0.69999999, a hair below 7 / 10, and 0.01 is no fraction with a denominator up
  // to 64: both stay unknown rather than guess how float rounding goes.
  CHECK(r.Shape("u") == "[N, C, ?, ?]");
  // Constant dims as ONNX computes them: floor(10 * 0.3f) = 3, floor(20 * 1.5) = 30.
  CHECK(r.Shape("k") == "[1, 3, 3, 30]");
}

TEST_CASE("Resize: roi, scales, sizes in opsets 11 and 13", "[infer][tensor_ops]") {
  auto r11 = Infer(R"(
g (float[N,C,H,W] x) => (float[N,C,64,64] y) {
  roi = Constant <value = float[0] {}> ()
  none = Constant <value = float[0] {}> ()
  s = Shape (x)
  b = Constant <value = int64[1] {0}> ()
  e = Constant <value = int64[1] {2}> ()
  nc = Slice (s, b, e)
  hw = Constant <value = int64[2] {64, 64}> ()
  sizes = Concat <axis = 0> (nc, hw)
  y = Resize (x, roi, none, sizes)
  half = Constant <value = float[4] {1.0, 1.0, 0.5, 0.5}> ()
  h = Resize <coordinate_transformation_mode = "asymmetric"> (x, roi, half)
  crop = Resize <coordinate_transformation_mode = "tf_crop_and_resize"> (x, roi, half)
})",
                   11);
  // An empty scales tensor means "use sizes": [N, C, 64, 64] from Shape and literals.
  CHECK(r11.Shape("y") == "[N, C, 64, 64]");
  // floor(H * 0.5) = floor(H / 2).
  CHECK(r11.Shape("h") == "[N, C, floor(H / 2), floor(W / 2)]");
  // tf_crop_and_resize multiplies by the roi extent as well: unknown.
  CHECK(r11.Shape("crop") == "[?, ?, ?, ?]");
  auto r13 = Infer(R"(
g (float[N,C,H,W] x, float[4] dyn) => (float[?,?,?,?] y) {
  sizes = Constant <value = int64[4] {1, 3, 224, 224}> ()
  y = Resize (x, , , sizes)
  u = Resize (x, , dyn)
})",
                   13);
  CHECK(r13.Shape("y") == "[1, 3, 224, 224]");
  // Scales not known: rank only.
  CHECK(r13.Shape("u") == "[?, ?, ?, ?]");
}

TEST_CASE("Resize: axes and keep_aspect_ratio_policy since opset 18", "[infer][tensor_ops]") {
  auto r = Infer(R"(
g (float[N,C,H,W] x, float[1,3,100,200] c) => (float[N,C,?,?] y) {
  two = Constant <value = float[2] {2.0, 2.0}> ()
  y = Resize <axes = [2, 3]> (x, , two)
  sizes = Constant <value = int64[2] {50, 50}> ()
  fit = Resize <axes = [2, 3], keep_aspect_ratio_policy = "not_larger"> (c, , , sizes)
  fill = Resize <axes = [2, 3], keep_aspect_ratio_policy = "not_smaller"> (c, , , sizes)
  sym = Resize <axes = [2, 3], keep_aspect_ratio_policy = "not_larger"> (x, , , sizes)
  st = Resize <axes = [-1]> (x, , , hw)
  hw = Constant <value = int64[1] {32}> ()
})",
                 18);
  // Axes outside `axes` keep their size.
  CHECK(r.Shape("y") == "[N, C, 2*H, 2*W]");
  // not_larger: scale = min(50/100, 50/200) = 0.25 -> round(25), round(50).
  CHECK(r.Shape("fit") == "[1, 3, 25, 50]");
  // not_smaller: scale = max(0.5, 0.25) = 0.5 -> 50, 100.
  CHECK(r.Shape("fill") == "[1, 3, 50, 100]");
  // The policy needs the input's aspect ratio: unknown for symbolic H, W.
  CHECK(r.Shape("sym") == "[N, C, ?, ?]");
  CHECK(r.Shape("st") == "[N, C, H, 32]");
}

TEST_CASE("Upsample: scales attribute in opset 7, input in 9", "[infer][tensor_ops]") {
  auto r7 = Infer(R"(
g (float[N,C,H,W] x) => (float[N,C,?,?] y) {
  y = Upsample <scales = [1.0, 1.0, 2.0, 3.0]> (x)
})",
                  7);
  CHECK(r7.Shape("y") == "[N, C, 2*H, 3*W]");
  auto r9 = Infer(R"(
g (float[N,C,H,W] x) => (float[N,C,?,?] y) {
  sc = Constant <value = float[4] {1.0, 1.0, 2.0, 2.0}> ()
  y = Upsample (x, sc)
})",
                  9);
  CHECK(r9.Shape("y") == "[N, C, 2*H, 2*W]");
}

TEST_CASE("CenterCropPad sets the listed axes", "[infer][tensor_ops]") {
  auto r = Infer(R"(
g (float[N,H,W,3] x) => (float[N,224,224,3] y) {
  s = Constant <value = int64[2] {224, 224}> ()
  y = CenterCropPad <axes = [1, 2]> (x, s)
})",
                 18);
  CHECK(r.Shape("y") == "[N, 224, 224, 3]");
}

TEST_CASE("GatherElements and GatherND", "[infer][index]") {
  auto r = Infer(R"(
g (float[N,C,H,W] x, float[N,5] d, int64[N,2] i, float[B,S,D] seq, int64[B,K,1] pos,
   float[4,5,6] cube, int64[2,2] pairs) => (float[N,2] y) {
  y = GatherElements <axis = 1> (d, i)
  s = Shape (x)
  idx = Constant <value = int64[2] {3, -4}> ()
  picked = GatherElements (s, idx)
  b = GatherND <batch_dims = 1> (seq, pos)
  p = GatherND (cube, pairs)
  col = Constant <value = int64[2,1] {2, 0}> ()
  nd = GatherND (s, col)
})",
                 13);
  // The shape of indices.
  CHECK(r.Shape("y") == "[N, 2]");
  // s = {N, C, H, W}; indices 3 and -4 (= 0).
  CHECK(r.Values("picked") == "{W, N}");
  // indices.shape[:-1] + data.shape[batch_dims + k:] = [B, K] + [D].
  CHECK(r.Shape("b") == "[B, K, D]");
  // [2] + [6]
  CHECK(r.Shape("p") == "[2, 6]");
  // [2] + []: elements 2 and 0 of the shape.
  CHECK(r.Shape("nd") == "[2]");
  CHECK(r.Values("nd") == "{H, N}");
}

TEST_CASE("Scatter ops keep data's shape and update values", "[infer][index]") {
  auto r = Infer(R"(
g (float[N,C,H,W] x, float[N,C] d, int64[N,1] i, float[N,1] u) => (float[N,C] y) {
  y = ScatterElements <axis = 1> (d, i, u)
  s = Shape (x)
  at = Constant <value = int64[1,1] {1}> ()
  eight = Constant <value = int64[1] {8}> ()
  nd = ScatterND (s, at, eight)
  at3 = Constant <value = int64[1] {3}> ()
  five = Constant <value = int64[1] {5}> ()
  el = ScatterElements (s, at3, five)
  add = ScatterND <reduction = "add"> (s, at, eight)
})",
                 16);
  CHECK(r.Shape("y") == "[N, C]");
  CHECK(r.Values("nd") == "{N, 8, H, W}");
  CHECK(r.Values("el") == "{N, C, H, 5}");
  CHECK(r.Values("add") == "{N, C + 8, H, W}");
  auto r9 = Infer(R"(
g (float[N,C] d, int64[N,1] i, float[N,1] u) => (float[N,C] y) {
  y = Scatter <axis = 1> (d, i, u)
})",
                  9);
  CHECK(r9.Shape("y") == "[N, C]");
}

TEST_CASE("Compress: constant condition counts, unknown gives a fresh symbol", "[infer][index]") {
  auto r = Infer(R"(
g (float[N,4] x, float[2,3] f, bool[4] c, float[N,C,H,W] img) => (float[N,3] y) {
  keep = Constant <value = bool[4] {1, 0, 1, 1}> ()
  y = Compress <axis = 1> (x, keep)
  short = Constant <value = bool[3] {1, 0, 1}> ()
  flat = Compress (f, short)
  u = Compress <axis = 1> (x, c)
  s = Shape (img)
  ends = Constant <value = bool[4] {1, 0, 0, 1}> ()
  nw = Compress (s, ends)
  long = Constant <value = bool[7] {1, 0, 0, 0, 0, 0, 1}> ()
  past = Compress (f, long)
})",
                 11);
  CHECK(r.Shape("y") == "[N, 3]");
  // Flattened [2,3] is 6 long; the condition covers the first 3, two of them true.
  CHECK(r.Shape("flat") == "[2]");
  const TensorFact& u = r.Fact("u");
  REQUIRE(u.shape);
  REQUIRE((*u.shape)[1]);
  CHECK_FALSE((*u.shape)[1]->IsConstant());
  CHECK((*u.shape)[1]->ToString().find("count") != std::string::npos);
  CHECK(r.Values("nw") == "{N, W}");
  // A true condition past the end of the axis fails (numpy's out-of-bounds error): unknown.
  CHECK(r.Shape("past") == "[?]");
}

TEST_CASE("Compress: a constant condition on a dynamic axis counts its true entries",
          "[infer][index]") {
  // Wherever it runs (every true entry inside the axis), three rows are kept.
  auto r = Infer(R"(
g (float[N,4] x) => (float[?,?] y) {
  keep = Constant <value = bool[5] {1, 0, 1, 1, 0}> ()
  y = Compress <axis = 0> (x, keep)
})",
                 11);
  CHECK(r.Shape("y") == "[3, 4]");
}

TEST_CASE("Slice keeps its rank when its bounds are unknown", "[infer][shape]") {
  auto r = Infer(R"(
g (float[N,8,4] x, int64[1] s, int64[1] e, int64[2] s2, int64[2] e2, int64[1] ax) => (float[?,?,?] a) {
  axis = Constant <value = int64[1] {1}> ()
  a = Slice (x, s, e, axis)
  b = Slice (x, s2, e2)
  c = Slice (x, s, e, ax)
})");
  // Only axis 1 is cut; bounds unknown.
  CHECK(r.Shape("a") == "[N, ?, 4]");
  // Default axes: the first two, as many as the starts.
  CHECK(r.Shape("b") == "[?, ?, 4]");
  // Unknown axes: any dim may be cut, but the rank stays.
  CHECK(r.Shape("c") == "[?, ?, ?]");
}

TEST_CASE("NonZero, TopK and Unique sizes", "[infer][index]") {
  auto r = Infer(R"(
g (float[N,C] x, float[N,100] scores, int64[1] kin, float[L] v) => (int64[2,?] nz) {
  nz = NonZero (x)
  c = Constant <value = int64[2,2] {1, 0, 0, 3}> ()
  cnz = NonZero (c)
  three = Constant <value = int64[1] {3}> ()
  tv, ti = TopK (scores, three)
  uv, ui = TopK (scores, kin)
  y1, i1, inv1, cnt1 = Unique (v)
  k = Constant <value = int64[5] {3, 1, 3, 2, 1}> ()
  y2, i2, inv2, cnt2 = Unique (k)
})",
                 11);
  const TensorFact& nz = r.Fact("nz");
  REQUIRE(nz.shape);
  CHECK((*nz.shape)[0]->ToString() == "2");
  CHECK_FALSE((*nz.shape)[1]->IsConstant());
  // Non-zero at (0,0) and (1,1): [[0, 1], [0, 1]].
  CHECK(r.Shape("cnz") == "[2, 2]");
  CHECK(r.Values("cnz") == "{0, 1, 0, 1}");
  CHECK(r.Shape("tv") == "[N, 3]");
  CHECK(r.Shape("ti") == "[N, 3]");
  CHECK(r.Fact("ti").elem_type == TensorProto::INT64);
  // Unknown k: one fresh symbol shared by both outputs.
  const TensorFact& uv = r.Fact("uv");
  const TensorFact& ui = r.Fact("ui");
  REQUIRE((uv.shape && ui.shape && (*uv.shape)[1] && (*ui.shape)[1]));
  CHECK(*(*uv.shape)[1] == *(*ui.shape)[1]);
  CHECK_FALSE((*uv.shape)[1]->IsConstant());
  // Unique of unknown data: [U] for Y, indices and counts, [L] for inverse_indices.
  CHECK(r.Shape("inv1") == "[L]");
  CHECK(r.Shape("y1") == r.Shape("cnt1"));
  CHECK(r.Shape("y1") == r.Shape("i1"));
  // {3, 1, 3, 2, 1}: sorted unique {1, 2, 3}, first at 1, 3, 0; counts 2, 1, 2.
  CHECK(r.Values("y2") == "{1, 2, 3}");
  CHECK(r.Values("i2") == "{1, 3, 0}");
  CHECK(r.Values("inv2") == "{2, 0, 2, 1, 0}");
  CHECK(r.Values("cnt2") == "{2, 1, 2}");
  auto r9 = Infer(R"(
g (float[N,100] scores) => (float[N,5] y, int64[N,5] i) {
  y, i = TopK <k = 5> (scores)
})",
                  9);
  CHECK(r9.Shape("y") == "[N, 5]");
  CHECK(r9.Shape("i") == "[N, 5]");
}

TEST_CASE("Einsum: shapes from letters, requirements on repeated letters", "[infer][reduce]") {
  auto r = Infer(R"(
g (float[B,I,J] a, float[B,J,K] b, float[M,K2] x, float[64,P] w, float[N,N] sq,
   float[B,M,K2] e, float[K2,P] f, float[Q,R] mixed, float[R,Q] mixed2) => (float[B,I,K] y) {
  y = Einsum <equation = "bij,bjk->bik"> (a, b)
  imp = Einsum <equation = "ij,jk"> (x, w)
  tr = Einsum <equation = "ii"> (sq)
  ell = Einsum <equation = "...ij,...jk->...ik"> (e, f)
  mx = Einsum <equation = "Ab,bc"> (mixed, mixed2)
})",
                 12);
  CHECK(r.Shape("y") == "[B, I, K]");
  // Implicit output: letters that occur once, alphabetically: i, k. j must agree: K2 vs 64.
  CHECK(r.Shape("imp") == "[M, P]");
  CHECK(r.Requirements(RequirementKind::kInnerDim) == std::vector<std::string>{"K2 ~ 64"});
  // A trace: no letter occurs once, so a scalar.
  CHECK(r.Shape("tr") == "[]");
  // "..." broadcasts: [B] with []; result [B, M, P].
  CHECK(r.Shape("ell") == "[B, M, P]");
  // Implicit output mixing upper and lower case: the order differs between runtimes.
  CHECK(r.Shape("mx") == "?");
}

TEST_CASE("Det drops the matrix axes", "[infer][reduce]") {
  auto r = Infer(R"(
g (float[B,3,3] x, float[M,N] y2) => (float[B] y) {
  y = Det (x)
  z = Det (y2)
})",
                 11);
  CHECK(r.Shape("y") == "[B]");
  CHECK(r.Shape("z") == "[]");
  CHECK(r.Requirements(RequirementKind::kInnerDim) == std::vector<std::string>{"N ~ M"});
}

TEST_CASE("Bitwise ops broadcast like other elementwise ops", "[infer][tensor_ops]") {
  auto r = Infer(R"(
g (int32[N,1] a, int32[4] b, uint8[N] c) => (int32[N,4] y) {
  y = BitwiseAnd (a, b)
  o = BitwiseOr (a, b)
  x = BitwiseXor (a, b)
  n = BitwiseNot (a)
  sh = BitShift <direction = "LEFT"> (c, c)
})",
                 18);
  CHECK(r.Shape("y") == "[N, 4]");
  CHECK(r.Shape("o") == "[N, 4]");
  CHECK(r.Shape("x") == "[N, 4]");
  CHECK(r.Shape("n") == "[N, 1]");
  CHECK(r.Shape("sh") == "[N]");
  CHECK(r.Fact("y").elem_type == TensorProto::INT32);
}

TEST_CASE("Clip and CastLike keep shape and values", "[infer][tensor_ops]") {
  auto r = Infer(R"(
g (float[N,C] x, float like) => (float[N,C] y) {
  y = Clip (x)
  v = Constant <value = int64[3] {-5, 5, 300}> ()
  lo = Constant <value = int64 {0}> ()
  hi = Constant <value = int64 {256}> ()
  cl = Clip (v, lo, hi)
  s = Shape (x)
  f = CastLike (s, like)
})",
                 13);
  CHECK(r.Shape("y") == "[N, C]");
  CHECK(r.Values("cl") == "{0, 5, 256}");
  CHECK(r.Fact("f").elem_type == TensorProto::FLOAT);
  CHECK(r.Values("f") == "{N, C}");
}

TEST_CASE("Sizes divided in floating point and rounded", "[infer][tensor_ops]") {
  // math.ceil(h / 2) and h // 4 as torch.export writes them: Cast to float, Div, Ceil or a Cast
  // back (truncation, floor for a size), and a float literal divisor.
  auto r = Infer(R"(
g (float[N,H] x, float like) => (int64[1] up, int64[1] down, int64[1] nested, float[1] raw) {
  s = Shape <start = 1> (x)
  f = Cast <to = 1> (s)
  two = Constant <value = float {2.0}> ()
  half = Div (f, two)
  c = Ceil (half)
  up = Cast <to = 7> (c)
  quarter = Div (half, two)
  down = Cast <to = 7> (quarter)
  third = Constant <value = float {0.5}> ()
  nested = CastLike (quarter, s)
  raw = Div (f, third)
})",
                 15);
  CHECK(r.Values("up") == "{floor((H + 1) / 2)}");
  CHECK(r.Values("down") == "{floor(H / 4)}");
  CHECK(r.Values("nested") == "{floor(H / 4)}");
  // A quotient stays unknown to everything but rounding, and a non-integer divisor is not one.
  CHECK(r.Values("half") == "{?}");
  CHECK(r.Values("raw") == "?");
}

TEST_CASE("Sizes computed in floating point with float literals", "[infer][tensor_ops]") {
  // timm's 'same' padding through TorchScript: pad = max((ceil(h / s) - 1) * s + (k - 1) * d + 1
  // - h, 0) in float arithmetic, with stride 2 and a 7-wide kernel: the literals are float
  // Constants holding whole numbers. By hand, at H = 8: ceil(4) = 4, 3 * 2 + 6 + 1 - 8 = 5; at
  // H = 7: ceil(3.5) = 4, 6 + 7 - 7 = 6; the engine's form, -H + 2 * floor((H + 1) / 2) + 5,
  // gives 5 and 6.
  auto r = Infer(R"(
g (float[N,C,H,W] x) => (int64[1] pad, float[1] off) {
  s = Shape <start = 2, end = 3> (x)
  f = Cast <to = 1> (s)
  two = Constant <value = float {2.0}> ()
  one = Constant <value = float {1.0}> ()
  six = Constant <value = float {6.0}> ()
  zero = Constant <value = float {0.0}> ()
  q = Div (f, two)
  c = Ceil (q)
  m = Sub (c, one)
  t = Mul (m, two)
  a = Add (t, six)
  b = Add (a, one)
  p = Sub (b, f)
  clipped = Clip (p, zero)
  pad = Cast <to = 7> (clipped)
  half = Constant <value = float {1.5}> ()
  off = Add (c, half)
  big = Constant <value = float {33554432.0}> ()
  far = Add (c, big)
})",
                 15);
  CHECK(r.Values("two") == "{2}");
  // The Clip at 0 changes nothing: 2 * floor((H + 1) / 2) >= H, so the pad is 5 or 6.
  CHECK(r.Values("pad") == "{-H + 2*floor((H + 1) / 2) + 5}");
  // A float that is no whole number, or a whole number past where every integer is exact in a
  // float (2^24), holds no size.
  CHECK(r.Values("half") == "?");
  CHECK(r.Values("off") == "?");
  CHECK(r.Values("big") == "?");
}

TEST_CASE("Reduce: axes attribute, then input (ReduceSum 13, others 18)", "[infer][reduce]") {
  auto r11 = Infer(R"(
g (float[N,C,H] x) => (float[N,H] y) {
  y = ReduceSum <axes = [1], keepdims = 0> (x)
  m = ReduceMean <axes = [-1]> (x)
  all = ReduceMax (x)
})",
                   11);
  CHECK(r11.Shape("y") == "[N, H]");
  CHECK(r11.Shape("m") == "[N, C, 1]");
  // No axes: every axis, kept as 1.
  CHECK(r11.Shape("all") == "[1, 1, 1]");
  auto r13 = Infer(R"(
g (float[N,C,H] x, int64[1] dyn) => (float[N,C,1] y) {
  last = Constant <value = int64[1] {-1}> ()
  y = ReduceSum (x, last)
  m = ReduceMean <axes = [1], keepdims = 0> (x)
  all = ReduceSum <keepdims = 0> (x)
  same = ReduceSum <noop_with_empty_axes = 1> (x)
  u = ReduceSum (x, dyn)
  ud = ReduceSum <keepdims = 0> (x, dyn)
})",
                   13);
  CHECK(r13.Shape("y") == "[N, C, 1]");
  // ReduceMean still takes the attribute in opset 13.
  CHECK(r13.Shape("m") == "[N, H]");
  CHECK(r13.Shape("all") == "[]");
  // Empty axes with noop_with_empty_axes: the input unchanged.
  CHECK(r13.Shape("same") == "[N, C, H]");
  // Unknown axes with keepdims: rank 3, which dims become 1 is unknown.
  CHECK(r13.Shape("u") == "[?, ?, ?]");
  CHECK(r13.Shape("ud") == "?");
  auto r18 = Infer(R"(
g (float[N,C,H,W] x) => (float[N,C,1,1] y) {
  hw = Constant <value = int64[2] {2, 3}> ()
  y = ReduceMean (x, hw)
  l2 = ReduceL2 <keepdims = 0> (x, hw)
  lse = ReduceLogSumExp (x)
})",
                   18);
  CHECK(r18.Shape("y") == "[N, C, 1, 1]");
  CHECK(r18.Shape("l2") == "[N, C]");
  CHECK(r18.Shape("lse") == "[1, 1, 1, 1]");
}

TEST_CASE("Reduce values over small integer tensors", "[infer][reduce]") {
  auto r = Infer(R"(
g (float[N,C,H,W] x) => (int64 p) {
  s = Shape (x)
  b = Constant <value = int64[1] {2}> ()
  e = Constant <value = int64[1] {4}> ()
  hw = Slice (s, b, e)
  p = ReduceProd <keepdims = 0> (hw)
  k = Constant <value = int64[3] {3, 7, 5}> ()
  mx = ReduceMax (k)
  mn = ReduceMin <keepdims = 0> (k)
  sm = ReduceSum <keepdims = 0> (s)
  m = Constant <value = int64[2,2] {1, 2, 3, 4}> ()
  zero = Constant <value = int64[1] {0}> ()
  cols = ReduceSum (m, zero)
})",
                 13);
  // H * W, a scalar: the flattened size of the spatial dims.
  CHECK(r.Shape("p") == "[]");
  CHECK(r.Values("p") == "{H*W}");
  CHECK(r.Values("mx") == "{7}");
  CHECK(r.Shape("mx") == "[1]");
  CHECK(r.Values("mn") == "{3}");
  CHECK(r.Values("sm") == "{C + H + N + W}");
  // Column sums of [[1, 2], [3, 4]] kept as [1, 2].
  CHECK(r.Shape("cols") == "[1, 2]");
  CHECK(r.Values("cols") == "{4, 6}");
}

TEST_CASE("ArgMax and ArgMin", "[infer][reduce]") {
  auto r = Infer(R"(
g (float[N,C,H] x) => (int64[N,H] y) {
  y = ArgMax <axis = 1, keepdims = 0> (x)
  a = ArgMin (x)
  l = ArgMax <axis = -1, select_last_index = 1> (x)
})",
                 13);
  CHECK(r.Shape("y") == "[N, H]");
  CHECK(r.Fact("y").elem_type == TensorProto::INT64);
  // Default axis 0, keepdims 1.
  CHECK(r.Shape("a") == "[1, C, H]");
  CHECK(r.Shape("l") == "[N, C, 1]");
}

}  // namespace
}  // namespace shapelint::infer

namespace shapelint::infer {
namespace {

TEST_CASE("Gather and TopK require their literal index or k to fit the dim",
          "[infer][tensor_ops]") {
  auto r = Infer(R"(
g (float[B,T,D] x, int64[2] s) => (float[B,D] last) {
  four = Constant <value = int64 {4}> ()
  last = Gather <axis = 1> (x, four)
  idx = Constant <value = int64[3] {0, -3, 2}> ()
  picked = Gather <axis = 1> (x, idx)
  zero = Constant <value = int64 {0}> ()
  first = Gather <axis = 1> (x, zero)
  k = Constant <value = int64[1] {3}> ()
  top, where = TopK <axis = -1> (x, k)
  one = Constant <value = int64 {1}> ()
  dim = Gather (s, one)
})",
                 13);
  // Index 4 needs T >= 5; of {0, -3, 2}, 2 needs T >= 3 and -3 needs T >= 3; index 0 needs
  // T >= 1, which every dim meets, so it is not recorded; TopK k = 3 needs D >= 3. Gather from the
  // static [2] shape vector at 1 holds already.
  CHECK(r.Requirements(RequirementKind::kIndexBound) ==
        std::vector<std::string>{"T ~ 5", "T ~ 3", "T ~ 3", "D ~ 3"});
  const Requirement* req = r.FindRequirement("T", "5");
  REQUIRE(req != nullptr);
  CHECK(req->relation == Relation::kAtLeast);
  CHECK(req->origin != kNoOrigin);
  CHECK(Holds(Relation::kAtLeast, 5, 5));
  CHECK_FALSE(Holds(Relation::kAtLeast, 4, 5));
}

TEST_CASE("Gather requires the largest index a table computes from sizes", "[infer][tensor_ops]") {
  // DLRM's pairwise interactions by tril_indices(int(F), int(F), -1), traced at F = 4: the pairs'
  // rows {1, 2, 2, 3, 3, 3} and columns {0, 0, 1, 0, 1, 2} are literals, the flat index
  // row * F + col reads F from the shape, and it addresses the F * F rows of the flattened
  // products. The largest, 3F + 2, needs F * F >= 3F + 3: F >= 4 (ONNX Runtime at F = 3:
  // "indices element out of data bounds, idx=9 must be within the inclusive range [-9,8]").
  auto r = Infer(R"(
g (float[F,F,B] p) => (float[6,B] y, float[2,B] z) {
  s = Shape (p)
  one = Constant <value = int64[1] {1}> ()
  f = Gather (s, one)
  rows = Constant <value = int64[6] {1, 2, 2, 3, 3, 3}> ()
  cols = Constant <value = int64[6] {0, 0, 1, 0, 1, 2}> ()
  scaled = Mul (rows, f)
  idx = Add (cols, scaled)
  flat = Flatten <axis = 2> (p)
  y = Gather (flat, idx)
  minus = Constant <value = int64[2] {0, 6}> ()
  mixed = Sub (minus, f)
  z = Gather (flat, mixed)
})",
                 13);
  CHECK(r.Values("idx") == "{F, 2*F, 2*F + 1, 3*F, 3*F + 1, 3*F + 2}");
  const Requirement* req = r.FindRequirement(RequirementKind::kIndexBound);
  REQUIRE(req != nullptr);
  CHECK(req->relation == Relation::kAtLeast);
  CHECK(req->lhs.ToString() == "F^2");
  CHECK(req->rhs.ToString() == "3*F + 3");
  CHECK(req->what == "Gather indices up to 3*F + 2 on axis 0");
  // {-F, 6 - F}: the larger, 6 - F, is negative from F = 7 on, and then the index that needs
  // the most rows is the most negative one, -F: which element is the extreme one depends on F,
  // so nothing is required of this Gather rather than a guess.
  CHECK(r.Values("mixed") == "{-F, -F + 6}");
  CHECK(r.Requirements(RequirementKind::kIndexBound).size() == 1);
}

TEST_CASE("Slice and Transpose carry the values of small static tensors", "[infer][tensor_ops]") {
  // torch's lowering of F.pad's pads: [begin_w, end_w] padded to 8, viewed as [4, 2], rows
  // reversed, transposed and flattened gives ONNX's [x1_begin, ..., x1_end, ...] order.
  auto r = Infer(R"(
g (float[N,C,H,W] x) => (float[N,C,H,?] y) {
  pw = Constant <value = int64[2] {0, 2}> ()
  six = Constant <value = int64[1] {6}> ()
  zeros = ConstantOfShape <value = int64[1] {0}> (six)
  flat = Concat <axis = 0> (pw, zeros)
  rows_shape = Constant <value = int64[2] {-1, 2}> ()
  rows = Reshape (flat, rows_shape)
  start = Constant <value = int64[1] {-1}> ()
  end = Constant <value = int64[1] {-9223372036854775807}> ()
  axis = Constant <value = int64[1] {0}> ()
  step = Constant <value = int64[1] {-1}> ()
  reversed = Slice (rows, start, end, axis, step)
  cols = Transpose <perm = [1, 0]> (reversed)
  minus_one = Constant <value = int64[1] {-1}> ()
  pads = Reshape (cols, minus_one)
  y = Pad (x, pads)
  m = Constant <value = int64[2, 3] {1, 2, 3, 4, 5, 6}> ()
  one = Constant <value = int64[1] {1}> ()
  three = Constant <value = int64[1] {3}> ()
  m_cols = Slice (m, one, three, one)
})",
                 13);
  // [[0, 2], [0, 0], [0, 0], [0, 0]] reversed: [[0, 0], [0, 0], [0, 0], [0, 2]]; transposed:
  // [[0, 0, 0, 0], [0, 0, 0, 2]]: W gets 2 at its end.
  CHECK(r.Values("reversed") == "{0, 0, 0, 0, 0, 0, 0, 2}");
  CHECK(r.Values("cols") == "{0, 0, 0, 0, 0, 0, 0, 2}");
  CHECK(r.Shape("y") == "[N, C, H, W + 2]");
  // Columns 1..2 of [[1, 2, 3], [4, 5, 6]]: [[2, 3], [5, 6]].
  CHECK(r.Values("m_cols") == "{2, 3, 5, 6}");
  CHECK(r.Shape("m_cols") == "[2, 2]");
}

}  // namespace
}  // namespace shapelint::infer
