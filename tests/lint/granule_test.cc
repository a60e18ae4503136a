// The steps by which the counterexample search moves a size (lint/granule.h): the floors of the
// graph's arithmetic, and the literal factors a Reshape splits a dim into. Each expectation worked
// out by hand beside it.
#include "lint/granule.h"

#include <catch2/catch.hpp>
#include <string>

#include "infer/infer_fixture.h"
#include "shapelint/sym/expr.h"

namespace shapelint::lint {
namespace {

sym::Binding At(std::initializer_list<std::pair<const char*, int64_t>> sizes) {
  sym::Binding b;
  for (const auto& [name, size] : sizes) b.Set(name, size);
  return b;
}

TEST_CASE("granule: a stride-2 window moves H by 2", "[lint][granule]") {
  auto r = infer::Infer(R"(
g (float[N,C,H,W] x) => (float[N,C,?,?] y) {
  y = MaxPool <kernel_shape = [2, 2], strides = [2, 2]> (x)
})");
  const sym::Binding w = At({{"N", 2}, {"C", 4}, {"H", 8}, {"W", 10}});
  Granules g(r.inference, w);
  // floor((H - 2) / 2) + 1: the floor keeps its remainder when H moves by 2.
  CHECK(g.Of("H") == 2);
  CHECK(g.Of("W") == 2);
  CHECK(g.Of("N") == 1);
}

TEST_CASE("granule: a view into a count and literal factors keeps the factors", "[lint][granule]") {
  // Flux's packing traced at 8 x 10: [N, C, H, W] viewed as [N, C, 4, 2, 5, 2]. At the witness
  // H = 8 matches the entries 4, 2 and W = 10 the entries 5, 2: the module computes 4 and 5 as
  // H // 2 and W // 2 and needs even sizes, so each moves by 2. N and C keep their entries
  // (read from the shape): no split.
  auto r = infer::Infer(R"(
g (float[N,C,H,W] x) => (float[N,C,4,2,5,2] y) {
  s = Shape (x)
  zero = Constant <value = int64[1] {0}> ()
  two = Constant <value = int64[1] {2}> ()
  nc = Slice (s, zero, two)
  halves = Constant <value = int64[4] {4, 2, 5, 2}> ()
  t = Concat <axis = 0> (nc, halves)
  y = Reshape (x, t)
})");
  const sym::Binding w = At({{"N", 2}, {"C", 4}, {"H", 8}, {"W", 10}});
  Granules g(r.inference, w);
  CHECK(g.Of("H") == 2);
  CHECK(g.Of("W") == 2);
  CHECK(g.Of("N") == 1);
  CHECK(g.Of("C") == 1);
}

TEST_CASE("granule: a chunk view [N, -1, 4, D] moves T by 4", "[lint][granule]") {
  // [N, T, D] as [N, -1, 4, D]: T splits into T / 4 chunks of the literal 4.
  auto r = infer::Infer(R"(
g (float[N,T,8] x) => (float[N,?,4,8] y) {
  t = Constant <value = int64[4] {0, -1, 4, 8}> ()
  y = Reshape (x, t)
})");
  const sym::Binding w = At({{"N", 2}, {"T", 12}});
  Granules g(r.inference, w);
  CHECK(g.Of("T") == 4);
  CHECK(g.Of("N") == 1);
}

TEST_CASE("granule: a view that joins dims and splits them again keeps the last one's factors",
          "[lint][granule]") {
  // MobileViT's patches traced at 8 x 10: [N, C, H, W] viewed as [-1, 2, 5, 2], the count
  // N * C * (H // 2) = 32 at the witness. In order: N, C and H (2 * 4 * 8 = 64) against 32 and 2,
  // then W = 10 against 5 and 2. Row-major order puts the 2 after the count in H, the last dim of
  // its run, a multiple of 2: H moves by 2; N and C split nothing. (The -1's count is
  // floor(N*C*H*W / 20), which a step of H keeps, by 80 = 4 * 20, and one of W by 64 does not:
  // W moves by lcm(2, 20 / gcd(20, 64)) = 10.)
  auto r = infer::Infer(R"(
g (float[N,C,H,W] x) => (float[?,2,5,2] y) {
  t = Constant <value = int64[4] {-1, 2, 5, 2}> ()
  y = Reshape (x, t)
})");
  const sym::Binding w = At({{"N", 2}, {"C", 4}, {"H", 8}, {"W", 10}});
  Granules g(r.inference, w);
  CHECK(g.Of("H") == 2);
  CHECK(g.Of("W") == 10);
  CHECK(g.Of("N") == 1);
  CHECK(g.Of("C") == 1);
}

TEST_CASE("granule: factors the last dim of a run does not hold split nothing", "[lint][granule]") {
  // [N, T] = [4, 3] viewed as [-1, 6]: N and T (12) against 2 and 6. The 6 cannot come from T
  // alone (3 is no multiple of it): no split. The -1's count floor(N*T / 6) keeps its remainder
  // where T moves by 6 / gcd(6, N = 4) = 3 and N by 6 / gcd(6, T = 3) = 2: the only steps.
  auto r = infer::Infer(R"(
g (float[N,T] x) => (float[?,6] y) {
  t = Constant <value = int64[2] {-1, 6}> ()
  y = Reshape (x, t)
})");
  const sym::Binding w = At({{"N", 4}, {"T", 3}});
  Granules g(r.inference, w);
  CHECK(g.Of("T") == 3);
  CHECK(g.Of("N") == 2);
}

TEST_CASE("granule: a floor of a product needs the divisor over what the others hold",
          "[lint][granule]") {
  // [N, C, H, W] flattened and cut into rows of 20: floor(N*C*H*W / 20). At N = 2, C = 4,
  // W = 10 a move of H by 1 moves the product by 80, a multiple of 20: the floor keeps its
  // remainder at any H, so H has no step from it. W moves it by N*C*H = 64 per step: 20 over
  // gcd(20, 64) = 4 is W's step (by hand: 64 * 5 = 320 = 16 * 20, and 4 * 64 = 256 is not a
  // multiple of 20, so 5 is needed: gcd(20, 64) = 4, 20 / 4 = 5).
  auto r = infer::Infer(R"(
g (float[N,C,H,W] x) => (float[?,20] y) {
  t = Constant <value = int64[2] {-1, 20}> ()
  y = Reshape (x, t)
})");
  const sym::Binding w = At({{"N", 2}, {"C", 4}, {"H", 8}, {"W", 10}});
  Granules g(r.inference, w);
  CHECK(g.Of("H") == 1);
  CHECK(g.Of("W") == 5);
}

TEST_CASE("granule: the unit axes a view adds split nothing", "[lint][granule]") {
  // torch.kron's decomposition views b [R, C] as [1, 4, 1, 5] at R = 4, C = 5: the 1s add axes,
  // they are no count of a split of R or C.
  auto r = infer::Infer(R"(
g (float[R,C] b) => (float[1,4,1,5] y) {
  t = Constant <value = int64[4] {1, 4, 1, 5}> ()
  y = Reshape (b, t)
})");
  const sym::Binding w = At({{"R", 4}, {"C", 5}});
  Granules g(r.inference, w);
  CHECK(g.Of("R") == 1);
  CHECK(g.Of("C") == 1);
}

TEST_CASE("granule: no step from a flatten or from factors read from the shape",
          "[lint][granule]") {
  // A flatten [N, -1] of [N, T, D] joins two input dims into one entry: it splits nothing. A
  // split of T into [2, T / 2] whose second entry is computed from the shape (Div of the
  // shape's T by 2) follows T: no literal factor says the module needs a multiple.
  auto r = infer::Infer(R"(
g (float[N,T,D] x) => (float[N,?] y, float[N,2,?,D] z) {
  flat = Constant <value = int64[2] {0, -1}> ()
  y = Reshape (x, flat)
  s = Shape (x)
  one = Constant <value = int64[1] {1}> ()
  two = Constant <value = int64[1] {2}> ()
  three = Constant <value = int64[1] {3}> ()
  zero = Constant <value = int64[1] {0}> ()
  n = Slice (s, zero, one)
  t = Slice (s, one, two)
  d = Slice (s, two, three)
  half = Div (t, two)
  target = Concat <axis = 0> (n, two, half, d)
  z = Reshape (x, target)
})");
  const sym::Binding w = At({{"N", 2}, {"T", 12}, {"D", 8}});
  Granules g(r.inference, w);
  CHECK(g.Of("D") == 1);
  CHECK(g.Of("N") == 1);
  // floor(T / 2) in the second view's dims: the floor moves T by 2 (the view's own split does
  // not add to it: its factor after the count is no literal).
  CHECK(g.Of("T") == 2);
}

}  // namespace
}  // namespace shapelint::lint
