// Shape and value propagation, op by op. Each expectation is worked out from the ONNX operator
// definition by hand, in the comment next to it.
#include <catch2/catch.hpp>
#include <string>
#include <tuple>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "infer/infer_fixture.h"
#include "shapelint/infer/engine.h"
#include "shapelint/ir/load.h"

namespace shapelint::infer {
namespace {

TEST_CASE("pooling and convolution windows", "[infer]") {
  auto r = Infer(R"(
g (float[N,C,H,W] x, float[8,C,3,3] w) => (float[N,C,?,?] a) {
  a = AveragePool <kernel_shape = [3, 2], strides = [3, 2]> (x)
  b = MaxPool <kernel_shape = [3, 3], strides = [2, 2], pads = [1, 1, 1, 1]> (x)
  c = MaxPool <kernel_shape = [3, 3], strides = [2, 2], ceil_mode = 1> (x)
  d = Conv <kernel_shape = [3, 3], strides = [2, 2], pads = [1, 1, 1, 1]> (x, w)
  e = Conv <auto_pad = "SAME_UPPER", strides = [2, 2]> (x, w)
  f = MaxPool <kernel_shape = [3, 3], dilations = [2, 2]> (x)
  g = GlobalAveragePool (x)
})");
  // floor((H - 3) / 3) + 1 = floor(H / 3); floor((W - 2) / 2) + 1 = floor(W / 2)
  CHECK(r.Shape("a") == "[N, C, floor(H / 3), floor(W / 2)]");
  // floor((H + 2 - 3) / 2) + 1 = floor((H + 1) / 2)
  CHECK(r.Shape("b") == "[N, C, floor((H + 1) / 2), floor((W + 1) / 2)]");
  // ceil((H - 3) / 2) + 1, capped so that the last window starts inside: min(.., floor((H-1)/2)) +
  // 1
  auto c = r.inference.Find("c");
  REQUIRE(c->shape);
  sym::Binding at;
  at.Set("N", 1);
  at.Set("C", 1);
  // Reference values from ceil-mode pooling (PyTorch semantics): H=6 -> 3, H=7 -> 3, H=8 -> 4.
  for (auto [h, expected] : {std::pair{6, 3}, {7, 3}, {8, 4}, {5, 2}}) {
    at.Set("H", h);
    at.Set("W", h);
    CHECK((*c->shape)[2]->Evaluate(at) == expected);
  }
  CHECK(r.Shape("d") == "[N, 8, floor((H + 1) / 2), floor((W + 1) / 2)]");
  // SAME: ceil(H / 2) = floor((H + 1) / 2)
  CHECK(r.Shape("e") == "[N, 8, floor((H + 1) / 2), floor((W + 1) / 2)]");
  // dilated window spans 5: H - 4
  CHECK(r.Shape("f") == "[N, C, H - 4, W - 4]");
  CHECK(r.Shape("g") == "[N, C, 1, 1]");
}

TEST_CASE("a window must fit in its padded input, as ONNX Runtime checks", "[infer]") {
  // ONNX Runtime refuses a Conv whose output would be empty and a pool whose output would be
  // negative, computing it with truncating division: (in + pads - extent) / stride > -2. The
  // bounds below were checked against ONNX Runtime 1.31 at every size from 1 to 15.
  auto r = Infer(R"(
g (float[N,3,H,W] x, float[4,3,16,16] w16, float[4,3,3,3] w3) => (float[N,4,?,?] p) {
  p = Conv <kernel_shape = [16, 16], strides = [16, 16]> (x, w16)
  q = Conv <kernel_shape = [3, 3], pads = [1, 1, 1, 1]> (x, w3)
  s = Conv <kernel_shape = [3, 3], pads = [0, 1, 0, 0]> (x, w3)
  t = MaxPool <kernel_shape = [3, 3], strides = [2, 2], pads = [1, 1, 1, 1]> (x)
  u = AveragePool <kernel_shape = [5, 5]> (x)
  v = MaxPool <kernel_shape = [4, 4], strides = [3, 3], pads = [1, 1, 0, 0], dilations = [3, 3]> (x)
  z = MaxPool <kernel_shape = [5, 5], strides = [2, 2], ceil_mode = 1> (x)
})");
  // p: the 16 x 16 patch needs 16. q and t fit every size from 1. s: pads are [H begin, W
  // begin, H end, W end], so H needs 3 and W 3 - 1. u: in - 5 > -2, so 4 (at 3, -2 / 1 = -2: an
  // output of -1, refused). v: the dilated window spans 10, so in + 1 - 10 > -6: 4. Ceil mode
  // (z) is not modelled and adds nothing. ONNX Runtime's smallest sizes agree, axis by axis.
  CHECK(r.Requirements(RequirementKind::kWindow) ==
        std::vector<std::string>{"H ~ 16", "W ~ 16", "H ~ 3", "W ~ 2", "H ~ 4", "W ~ 4", "H ~ 4",
                                 "W ~ 4"});
}

TEST_CASE("a reflect pad must fit in its axis, as ONNX Runtime checks", "[infer]") {
  // ONNX Runtime (1.31, opset 18, checked by hand on [2, L] inputs): pads {0, 1} run at L = 2
  // and fail at L = 1 ("requires axis length >= 2 after slicing"); {2, 0} and {0, 2} fail at 2
  // ("pre-pad (2) exceeds maximum allowed (1)") and run at 3; {-1, 2} crops first and fails at
  // 3, runs at 4. So each side needs L - crops > pad: a: W >= 2; c: W >= 3; d: W >= 4. The
  // constant mode (e) and the edge mode (f) pad a length of 1 by 2 (run); a computed pad (g) has no
  // sign the engine knows, and an axis padded by 0 (H) needs nothing.
  auto r = Infer(R"(
g (float[N,H,W] x, int64[6] p) => (float[N,H,?] a) {
  one = Constant <value = int64[6] {0, 0, 0, 0, 0, 1}> ()
  two = Constant <value = int64[6] {0, 0, 2, 0, 0, 0}> ()
  crop = Constant <value = int64[6] {0, 0, -1, 0, 0, 2}> ()
  a = Pad <mode = "reflect"> (x, one)
  c = Pad <mode = "reflect"> (x, two)
  d = Pad <mode = "reflect"> (x, crop)
  e = Pad <mode = "constant"> (x, two)
  f = Pad <mode = "edge"> (x, two)
  g = Pad <mode = "reflect"> (x, p)
})",
                 18);
  CHECK(r.Requirements(RequirementKind::kWindow) ==
        std::vector<std::string>{"W ~ 2", "W ~ 3", "W ~ 4"});
  // The attribute form before opset 11 too: pads [0, 2, 0, 3] on [N, W] need W >= 4.
  auto r7 = Infer(R"(
g (float[N,W] x) => (float[N,?] y) {
  y = Pad <pads = [0, 2, 0, 3], mode = "reflect"> (x)
})",
                  7);
  CHECK(r7.Requirements(RequirementKind::kWindow) == std::vector<std::string>{"W ~ 4"});
}

TEST_CASE("GatherND's literal index tuples must address their axes, as ONNX Runtime checks",
          "[infer]") {
  // Column j of the tuples addresses data axis batch_dims + j; ONNX Runtime fails on an index
  // outside [-dim, dim - 1] (checked against ONNX Runtime 1.31: 1,200 runs of random tuples,
  // ranks and batch_dims, no disagreement). By hand: a's [[0], [2], [4]] on axis 0 needs T >= 5
  // (arange(0, int(T), 2) at T = 5); b's column 0 holds 1 and -3 (axis 0: >= 3, the largest
  // index 1 asks only 2), column 1 holds 2 and 0 (axis 1: >= 3); c (batch_dims 1) addresses
  // axis 1 with index 3: >= 4. Indices 0 and -1 ask nothing.
  auto r = Infer(R"(
g (float[T,C] x, float[A,B,D] z) => (float[?,C] a) {
  i = Constant <value = int64[3, 1] {0, 2, 4}> ()
  a = GatherND (x, i)
  j = Constant <value = int64[2, 2] {1, 2, -3, 0}> ()
  b = GatherND (z, j)
  k = Constant <value = int64[1, 1, 1] {3}> ()
  c = GatherND <batch_dims = 1> (z, k)
  e = Constant <value = int64[1, 1] {-1}> ()
  f = GatherND (x, e)
})");
  CHECK(r.Requirements(RequirementKind::kIndexBound) ==
        std::vector<std::string>{"T ~ 5", "A ~ 2", "A ~ 3", "B ~ 3", "B ~ 4"});
}

TEST_CASE("Col2Im's block count must match what image_shape implies, as ONNX Runtime checks",
          "[infer]") {
  // ONNX Runtime fails unless input axis 2 equals prod((image + pads - (dilation * (block - 1)
  // + 1)) // stride + 1) (checked against ONNX Runtime 1.31: 150 configurations, counts 0 to 12,
  // no disagreement). By hand: p, image [8, 10], block 2 x 2, stride 2: (8 - 2) / 2 + 1 = 4 and
  // (10 - 2) / 2 + 1 = 5, so L == 20. q, image [H, W] from the input, block 3 x 3, dilation 2
  // (a 5-pixel window), pads 1 on each side: (H + 2 - 5) // 1 + 1 = H - 2, likewise W - 2.
  auto r = InferWith("\"\" : 18", R"(
g (float[N,12,L] x, float[N,9,M] y, float[N,1,H,W] v) => (float[N,3,8,10] p) {
  image = Constant <value = int64[2] {8, 10}> ()
  block = Constant <value = int64[2] {2, 2}> ()
  p = Col2Im <strides = [2, 2]> (x, image, block)
  hw = Shape <start = 2> (v)
  block3 = Constant <value = int64[2] {3, 3}> ()
  q = Col2Im <dilations = [2, 2], pads = [1, 1, 1, 1]> (y, hw, block3)
})");
  CHECK(r.Requirements(RequirementKind::kBroadcast) ==
        std::vector<std::string>{"L ~ 20", "M ~ H*W - 2*H - 2*W + 4"});  // (H - 2)*(W - 2)
}

TEST_CASE("an integer size raised to a small constant power", "[infer]") {
  // transformers' token count (h // 8) ** 2 + 1 of a square grid: Pow of an int64 size by 2.
  // By hand: (floor(H / 8))^2 + 1 tokens; a negative or symbolic exponent stays unknown.
  auto r = Infer(R"(
g (float[N,3,H,W] x) => (int64[1] t) {
  s = Shape <start = 2, end = 3> (x)
  eight = Constant <value = int64 {8}> ()
  g8 = Div (s, eight)
  two = Constant <value = int64 {2}> ()
  sq = Pow (g8, two)
  one = Constant <value = int64 {1}> ()
  t = Add (sq, one)
  minus = Constant <value = int64 {-1}> ()
  neg = Pow (g8, minus)
})");
  CHECK(r.Values("t") == "{floor(H / 8)^2 + 1}");
  CHECK(r.Values("neg") == "{?}");
}

TEST_CASE("shape tensors carry exact values", "[infer]") {
  auto r = Infer(R"(
g (float[N,C,H,W] x) => (float[N,?] y) {
  s = Shape (x)
  i0 = Constant <value = int64[1] {0}> ()
  n = Gather <axis = 0> (s, i0)
  hw = Slice (s, i2, i4)
  i2 = Constant <value = int64[1] {2}> ()
  i4 = Constant <value = int64[1] {4}> ()
  p = ReduceProd <keepdims = 1> (hw)
  m = Constant <value = int64[1] {-1}> ()
  t = Concat <axis = 0> (n, m)
  y = Reshape (x, t)
  two = Constant <value = int64 {2}> ()
  half = Div (s, two)
  u = Unsqueeze (n, i0)
  sq = Squeeze (u, i0)
})");
  CHECK(r.Values("s") == "{N, C, H, W}");
  CHECK(r.Values("n") == "{N}");
  CHECK(r.Values("hw") == "{H, W}");
  CHECK(r.Values("t") == "{N, -1}");
  CHECK(r.Shape("y") == "[N, C*H*W]");
  CHECK(r.Values("half") == "{floor(N / 2), floor(C / 2), floor(H / 2), floor(W / 2)}");
  CHECK(r.Shape("u") == "[1, 1]");
  CHECK(r.Shape("sq") == "[1]");
  // ReduceProd without axes reduces everything, kept as [1]: the product H * W.
  CHECK(r.Shape("p") == "[1]");
  CHECK(r.Values("p") == "{H*W}");
  CHECK(r.inference.notes.empty());
}

TEST_CASE("integer Div truncates toward zero, as ONNX specifies", "[infer]") {
  // torch's ceil idiom -(-T // 4) through the TorchScript exporter: Neg, Div, Neg. Floor would
  // give -floor(-T / 4) = ceil(T / 4) here; ONNX (and ONNX Runtime) truncate, giving floor(T / 4)
  // for the inner quotient's magnitude: at T = 5, Div(-5, 4) is -1, not -2.
  auto r = Infer(R"(
g (float[T] x) => (float[?] y) {
  s = Shape (x)
  four = Constant <value = int64 {4}> ()
  minus_four = Constant <value = int64 {-4}> ()
  neg = Neg (s)
  q = Div (neg, four)
  q_neg_divisor = Div (s, minus_four)
  one = Constant <value = int64 {1}> ()
  one_minus = Sub (one, s)
  q_one_minus = Div (one_minus, four)
  c = Constant <value = int64[1] {-5}> ()
  q_const = Div (c, four)
  both = Mul (s, four)
  q_exact = Div (both, s)
  q_sizes = Div (four, s)
  q_negated = Div (neg, s)
  y = Identity (x)
})");
  CHECK(r.Values("q") == "{-floor(T / 4)}");
  CHECK(r.Values("q_neg_divisor") == "{-floor(T / 4)}");
  // -floor((T - 1) / 4) in canonical form: at T = 5, 6 and 1 it is -1, -1 and 0.
  CHECK(r.Values("q_one_minus") == "{-floor((T + 3) / 4) + 1}");
  CHECK(r.Values("q_const") == "{-1}");
  // By a symbolic size (the dynamo exporter's -1 of a view, n*c*h*w // (n*c)): the exact quotient
  // where it divides as a polynomial, floor of two sizes, and nothing where the sign may differ.
  CHECK(r.Values("q_exact") == "{4}");
  CHECK(r.Values("q_sizes") == "{floor(4 / T)}");
  CHECK(r.Values("q_negated") == "{-1}");
}

TEST_CASE("expand(-1, ...) as the TorchScript exporter writes it: a size is never -1", "[infer]") {
  // row.expand(batch, seq): the target's sizes compared with -1, and -1 replaced by 1.
  auto r = Infer(R"(
g (int64[B,S] ids, int64[1,S] row) => (int64[B,S] y) {
  s = Shape (ids)
  minus = Constant <value = int64[2] {-1, -1}> ()
  is_keep = Equal (s, minus)
  ones = Constant <value = int64[2] {1, 1}> ()
  target = Where (is_keep, ones, s)
  m = Constant <value = int64[2] {-1, 3}> ()
  mixed = Equal (m, s)
  y = Expand (row, target)
})");
  CHECK(r.Values("is_keep") == "{0, 0}");
  CHECK(r.Values("target") == "{B, S}");
  // A size against -1 is never equal; against another number it may be.
  CHECK(r.Values("mixed") == "{0, ?}");
  CHECK(r.Shape("y") == "[B, S]");
}

TEST_CASE("reshape, flatten, transpose, matmul, gemm", "[infer]") {
  auto r = Infer(R"(
g (float[B,S,768] x, float[768,3072] w, float[B,12,S,64] q) => (float[B,S,3072] y) {
  y = MatMul (x, w)
  t = Constant <value = int64[4] {0, 0, 12, 64}> ()
  h = Reshape (x, t)
  p = Transpose <perm = [0, 2, 1, 3]> (h)
  f = Flatten <axis = 2> (x)
  k = Transpose <perm = [0, 1, 3, 2]> (q)
  a = MatMul (q, k)
  m = Constant <value = int64[2] {-1, 768}> ()
  r2 = Reshape (x, m)
  gm = Gemm (r2, w)
})");
  CHECK(r.Shape("y") == "[B, S, 3072]");
  CHECK(r.Shape("h") == "[B, S, 12, 64]");
  CHECK(r.Shape("p") == "[B, 12, S, 64]");
  CHECK(r.Shape("f") == "[B*S, 768]");
  CHECK(r.Shape("a") == "[B, 12, S, S]");
  CHECK(r.Shape("r2") == "[B*S, 768]");
  CHECK(r.Shape("gm") == "[B*S, 3072]");
  // Nothing here restricts any size: the only recorded requirement (Reshape -1 divisibility)
  // holds for every binding.
  for (const Requirement& req : r.inference.requirements) {
    sym::Binding b;
    b.Set("B", 3);
    b.Set("S", 7);
    CHECK(Holds(req.relation, *req.lhs.Evaluate(b), *req.rhs.Evaluate(b)));
  }
}

TEST_CASE("Reshape -1 next to a literal and a copied dim", "[infer]") {
  // [2, 0, -1] on [N, H, W]: the -1 is N*H*W / (2*H), which is floor(N*W / 2) wherever the
  // reshape runs, and the count must divide by 2*H.
  auto r = Infer(R"(
g (float[N,H,W] x) => (float[?,?,?] y) {
  t = Constant <value = int64[3] {2, 0, -1}> ()
  y = Reshape (x, t)
})");
  CHECK(r.Shape("y") == "[2, H, floor(N*W / 2)]");
  CHECK(r.Requirements(RequirementKind::kReshapeCount) == std::vector<std::string>{"H*N*W ~ 2*H"});
}

TEST_CASE("Reshape -1 over a dim of another tensor is a floor by a symbolic divisor", "[infer]") {
  // As in the function expansion of 3-D Attention: K [k0, k1, k2] to [Shape(Q)[0], k1, 8, -1].
  // The -1 is k0*k1*k2 / (q0*k1*8): only the graph says k0 == q0, so no polynomial is the
  // quotient, but it is exact wherever the reshape runs, and k1 cancels.
  auto r = Infer(R"(
g (float[k0,k1,k2] k, float[q0,q1,q2] q) => (float[?,?,?,?] y) {
  sq = Shape (q)
  first = Constant <value = int64[1] {0}> ()
  batch = Gather (sq, first)
  rest = Constant <value = int64[3] {0, 8, -1}> ()
  t = Concat <axis = 0> (batch, rest)
  y = Reshape (k, t)
})");
  CHECK(r.Shape("y") == "[q0, k1, 8, floor(k0*k2 / (8*q0))]");
  CHECK(r.DimAt("y", 3, {{"k0", 2}, {"k1", 3}, {"k2", 64}, {"q0", 2}}) == 8);
  CHECK(r.DimAt("y", 3, {{"k0", 5}, {"k1", 1}, {"k2", 16}, {"q0", 5}}) == 2);
  // No value where the other dims multiply to 0, as Reshape has none there.
  CHECK(r.DimAt("y", 3, {{"k0", 2}, {"k1", 3}, {"k2", 64}, {"q0", 0}}) == std::nullopt);
  CHECK(r.Requirements(RequirementKind::kReshapeCount) ==
        std::vector<std::string>{"k0*k1*k2 ~ 8*k1*q0"});
}

TEST_CASE("broadcasting records compatibility and keeps exact dims", "[infer]") {
  auto r = Infer(R"(
g (float[B,S,64] x, float[1,197,64] pos, float[S,1] col, float[T] row) => (float[B,S,64] y) {
  y = Add (x, pos)
  z = Mul (col, row)
  w = Where (c, x, x)
  c = Constant <value = bool[1] {1}> ()
})");
  // A symbolic dim meeting a constant other than 1 must equal it (or be 1): the result is 197.
  CHECK(r.Shape("y") == "[B, 197, 64]");
  REQUIRE(r.inference.requirements.size() >= 1);
  const Requirement& req = r.inference.requirements[0];
  CHECK(req.kind == RequirementKind::kBroadcast);
  CHECK(req.lhs.ToString() == "S");
  CHECK(req.rhs.ToString() == "197");
  // [S, 1] * [T] -> [S, T]
  CHECK(r.Shape("z") == "[S, T]");
  CHECK(r.Shape("w") == "[B, S, 64]");
}

TEST_CASE("Slice bounds computed from sizes may be negative: -L counts from the end", "[infer]") {
  // T5 slices its position bias with position_bias[:, :, -seq_len:, :]: the start is -L, which
  // ONNX reads as L from the end of the axis. The engine once took every symbolic bound for a
  // size and gave 2L rows (ONNX Runtime gives L).
  auto r = Infer(R"(
g (float[B,L,D] x, float[1,N,N] table) => (float[?,?,?] y, float[?,?,?] t, float[?,?,?] u) {
  shape = Shape (x)
  one = Constant <value = int64[1] {1}> ()
  two = Constant <value = int64[1] {2}> ()
  len = Slice (shape, one, two)
  neg = Neg (len)
  big = Constant <value = int64[1] {9223372036854775807}> ()
  y = Slice (x, neg, big, one)
  t = Slice (table, neg, big, one)
  u = Slice (table, len, big, one)
})");
  CHECK(r.Shape("y") == "[B, L, D]");
  sym::Binding b;
  b.Set("B", 2);
  b.Set("D", 8);
  // table[:, -L:]: L rows while L <= N, all N rows past it; table[:, L:]: N - L, then none.
  for (auto [l, n, from_end, from_start] :
       {std::tuple{1, 6, 1, 5}, {4, 6, 4, 2}, {6, 6, 6, 0}, {9, 6, 6, 0}, {0, 6, 6, 6}}) {
    b.Set("L", l);
    b.Set("N", n);
    INFO("L = " << l << ", N = " << n);
    CHECK((*r.inference.Find("t")->shape)[1]->Evaluate(b) == from_end);
    CHECK((*r.inference.Find("u")->shape)[1]->Evaluate(b) == from_start);
  }
}

TEST_CASE("opset forms: Unsqueeze and Slice attributes before opset 13 and 10", "[infer]") {
  auto r = Infer(R"(
g (float[N,L] x) => (float[?,?,?] y) {
  y = Unsqueeze <axes = [0]> (x)
  s = Slice <starts = [1], ends = [9223372036854775807], axes = [1]> (x)
  t = Slice <starts = [-3], ends = [-1], axes = [1]> (x)
  d = Dropout (x)
})",
                 9);
  CHECK(r.Shape("y") == "[1, N, L]");
  CHECK(r.Shape("d") == "[N, L]");
  // x[:, 1:] has max(L - 1, 0) columns; evaluate instead of fixing the printed form.
  auto s = r.inference.Find("s");
  REQUIRE(s->shape);
  sym::Binding b;
  b.Set("N", 2);
  for (auto [l, expected] : {std::pair{1, 0}, {2, 1}, {10, 9}}) {
    b.Set("L", l);
    CHECK((*s->shape)[1]->Evaluate(b) == expected);
  }
  // x[:, -3:-1]: 2 columns when L >= 3, L - 1 when L is 2, 0 when L is 1.
  auto t = r.inference.Find("t");
  for (auto [l, expected] : {std::pair{1, 0}, {2, 1}, {3, 2}, {50, 2}}) {
    b.Set("L", l);
    CHECK((*t->shape)[1]->Evaluate(b) == expected);
  }
}

TEST_CASE("input dims become symbols; declared expressions parse", "[infer]") {
  auto r = Infer(R"(
g (float[batch,?,8] x) => (float[batch,?,8] y) {
  y = Relu (x)
})");
  REQUIRE(r.inference.input_dims.size() == 3);
  CHECK(r.inference.input_dims[0].dim->ToString() == "batch");
  CHECK(r.inference.input_dims[1].dim->ToString() == "x:1");  // unnamed: named by place
  CHECK(r.inference.input_dims[1].declared_symbolic);
  CHECK_FALSE(r.inference.input_dims[2].declared_symbolic);
  CHECK(r.inference.InputSymbols() == std::vector<std::string>{"batch", "x:1"});

  // Some exporters write dim_param as an expression ("past_sequence_length + 1").
  ONNX_NAMESPACE::ModelProto proto = r.model->proto();
  auto* dim = proto.mutable_graph()
                  ->mutable_input(0)
                  ->mutable_type()
                  ->mutable_tensor_type()
                  ->mutable_shape()
                  ->mutable_dim(1);
  dim->set_dim_param("past_sequence_length + 1");
  auto model = ir::Model::FromProto(proto, "expr");
  REQUIRE(model.ok());
  Inference inf = shapelint::infer::Infer(**model);
  CHECK(inf.input_dims[1].dim->ToString() == "past_sequence_length + 1");
  CHECK(inf.InputSymbols() == std::vector<std::string>{"batch", "past_sequence_length"});
}

TEST_CASE("unknown ops give unknown outputs and one note per op type", "[infer]") {
  auto r = Infer(R"(
g (float[N,4] x) => (float[N,4] y) {
  a = custom.ops.Mystery (x)
  b = custom.ops.Mystery (a)
  y = Relu (b)
})");
  CHECK(r.Shape("a") == "?");
  CHECK(r.inference.notes.size() == 1);
  // Where the engine knows nothing, the declared output shape is adopted.
  CHECK(r.Shape("y") == "[N, 4]");
}

}  // namespace
}  // namespace shapelint::infer

namespace shapelint::infer {
namespace {

TEST_CASE("legacy broadcasting before opset 7 keeps A's shape", "[infer]") {
  // Add-6 with broadcast=1, axis=1: b [3] is laid along axis 1 of x, not the last axis.
  auto r = Infer(R"(
g (float[N,3,H,W] x, float[3] b) => (float[N,3,H,W] y) {
  y = Add <broadcast = 1, axis = 1> (x, b)
})",
                 6);
  CHECK(r.Shape("y") == "[N, 3, H, W]");
  CHECK(r.inference.requirements.empty());
}

}  // namespace
}  // namespace shapelint::infer

namespace shapelint::infer {
namespace {

TEST_CASE("an override changes what one node reads of a literal, and nothing else", "[infer]") {
  // The same Constant [-1, 6] is read by two Reshapes; the counterfactual run makes only the
  // first read its 6 as f (lint/repair_check.h: the literal made to follow the input's dim).
  const std::string graph = R"(
g (float[T,B,f] x) => (float[n,f] y, float[m,6] z) {
  t = Constant <value = int64[2] {-1, 6}> ()
  y = Reshape (x, t)
  z = Reshape (x, t)
})";
  auto r = Infer(graph);
  CHECK(r.Shape("y") == "[floor(B*T*f / 6), 6]");
  Run over{std::move(r.model), {}};
  over.inference = shapelint::infer::Infer(*over.model, {{1, 1, 1, sym::Expr::Symbol("f")}});
  CHECK(over.Shape("y") == "[B*T, f]");
  CHECK(over.Shape("z") == "[floor(B*T*f / 6), 6]");
  CHECK(over.Values("t") == "{-1, 6}");
  // The overridden read divides the element count by f (which always holds), the other by 6.
  std::vector<std::string> divisors;
  for (const Requirement& q : over.inference.requirements) {
    if (q.kind == RequirementKind::kReshapeCount) {
      divisors.push_back(absl::StrCat(q.node, ": ", q.rhs.ToString()));
    }
  }
  CHECK(divisors == std::vector<std::string>{"1: f", "2: 6"});
  // An override past the values, or of an input that has none tracked, is ignored.
  Run past{
      ir::LoadModelFromBytes("<ir_version: 8, opset_import: [\"\" : 17]>\n" + graph, "test.onnxtxt")
          .value(),
      {}};
  past.inference = shapelint::infer::Infer(
      *past.model, {{1, 1, 5, sym::Expr::Symbol("f")}, {1, 0, 0, sym::Expr::Symbol("f")}});
  CHECK(past.Shape("y") == "[floor(B*T*f / 6), 6]");
}

}  // namespace
}  // namespace shapelint::infer
