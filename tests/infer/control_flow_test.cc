// If, Loop and Scan: bodies inferred in the scope of their node, nested, with fresh symbols
// where the data decides. Expectations worked out by hand from the ONNX spec.
#include <catch2/catch.hpp>
#include <string>

#include "absl/strings/str_join.h"
#include "infer/infer_fixture.h"
#include "shapelint/infer/engine.h"
#include "shapelint/ir/load.h"

namespace shapelint::infer {
namespace {

TEST_CASE("If with a constant condition takes one branch and its requirements", "[infer][cf]") {
  auto r = Infer(R"(
g (float[N,4] x, float[N,8] z) => (float[?,?] y) {
  c = Constant <value = bool {1}> ()
  y = If (c) <
    then_branch = t () => (float[?,?] o) { o = Relu (x) },
    else_branch = e () => (float[?,?] o) { o = Add (x, z) }
  >
})");
  CHECK(r.Shape("y") == "[N, 4]");
  // The else branch's impossible Add (4 vs 8) is never run: no requirement from it.
  CHECK(r.inference.requirements.empty());
}

TEST_CASE("If with a data-dependent condition merges its branches", "[infer][cf]") {
  auto r = Infer(R"(
g (bool c, float[N,4] x, float[N,8] z, float[M,8] w) => (float[?,?] y) {
  y = If (c) <
    then_branch = t () => (float[?,?] o) { o = Relu (x) },
    else_branch = e () => (float[?,?] o) { o = Add (z, w) }
  >
})");
  // Axis 0 is N in one branch and max(M, N) (the broadcast of N and M) in the other; axis 1 is
  // 4 or 8. The data decides, so each is a fresh symbol named after the node.
  CHECK(r.Shape("y") == "[\"<If #0>:out0:0\", \"<If #0>:out0:1\"]");
  // The else branch's N-vs-M broadcast is not recorded: that branch may never run.
  CHECK(r.inference.requirements.empty());
}

TEST_CASE("Loop: carried values, scan outputs and the trip count", "[infer][cf]") {
  // 100 iterations: past the unrolling cap, so the body is inferred once for all iterations.
  auto r = Infer(R"(
g (float[N,K] x, float[N,1] acc0) => (float[N,K] last, float[?,?,?] steps, float[?,?] acc) {
  m = Constant <value = int64 {100}> ()
  last, acc, steps = Loop (m, , x, acc0) <
    body = b (int64 i, bool c, float[N,K] v, float[N,?] a) => (bool co, float[N,K] vo, float[N,?] ao, float[N,K] s) {
      co = Identity (c)
      vo = Relu (v)
      ao = Concat <axis = 1> (a, a)
      s = Neg (v)
    }
  >
})");
  // The carried x keeps its shape through every iteration.
  CHECK(r.Shape("last") == "[N, K]");
  // acc doubles its width each iteration: a fresh symbol for the width.
  CHECK(r.Shape("acc") == "[N, \"<Loop #1>:carried1:1\"]");
  // No condition input: a for loop of exactly M = 100 iterations, one slice each.
  CHECK(r.Shape("steps") == "[100, N, K]");
}

TEST_CASE("Loop: a short loop with a known trip count runs iteration by iteration", "[infer][cf]") {
  // Five iterations: each sees its iteration number, so Slice [i, i + 1] has length 1, and
  // the doubling width is followed to the end: 1 * 2^5.
  auto r = Infer(R"(
g (float[N,1] acc0) => (float[?,?] acc, float[?,?] picked) {
  m = Constant <value = int64 {5}> ()
  go = Constant <value = bool {1}> ()
  table = Constant <value = float[5] {1, 2, 3, 4, 5}> ()
  acc, picked = Loop (m, go, acc0) <
    body = b (int64 i, bool c, float[N,?] a) => (bool co, float[N,?] ao, float[?] p) {
      co = Identity (c)
      ao = Concat <axis = 1> (a, a)
      one = Constant <value = int64 {1}> ()
      end = Add (i, one)
      zero = Constant <value = int64[1] {0}> ()
      starts = Unsqueeze (i, zero)
      ends = Unsqueeze (end, zero)
      p = Slice (table, starts, ends)
    }
  >
})");
  CHECK(r.Shape("acc") == "[N, 32]");
  CHECK(r.Shape("picked") == "[5, 1]");
}

TEST_CASE("Loop: a condition that turns false ends the unrolled loop", "[infer][cf]") {
  // The body's condition is i < 2: three iterations (i = 0, 1, 2) of the 10 allowed.
  auto r = Infer(R"(
g (float[N] x) => (float[?,?] steps) {
  m = Constant <value = int64 {10}> ()
  go = Constant <value = bool {1}> ()
  steps = Loop (m, go) <
    body = b (int64 i, bool c) => (bool co, float[N] s) {
      two = Constant <value = int64 {2}> ()
      co = Less (i, two)
      s = Neg (x)
    }
  >
})");
  CHECK(r.Shape("steps") == "[3, N]");
}

TEST_CASE("Loop with a data-dependent condition has a fresh trip count", "[infer][cf]") {
  auto r = Infer(R"(
g (float[N] x, bool go) => (float[?,?] steps) {
  m = Constant <value = int64 {10}> ()
  steps = Loop (m, go) <
    body = b (int64 i, bool c) => (bool co, float[N] s) {
      co = Identity (c)
      s = Neg (x)
    }
  >
})");
  CHECK(r.Shape("steps") == "[\"<Loop #1>:trip_count\", N]");
}

TEST_CASE("Scan slices its inputs and stacks its outputs", "[infer][cf]") {
  auto r = Infer(R"(
g (float[B,H] h0, float[S,B,D] xs, float[D,H] w) => (float[B,H] h, float[S,B,H] ys) {
  h, ys = Scan (h0, xs) <
    num_scan_inputs = 1,
    body = cell (float[B,H] hp, float[B,D] xt) => (float[B,H] hn, float[B,H] y) {
      p = MatMul (xt, w)
      hn = Add (hp, p)
      y = Identity (hn)
    }
  >
})");
  CHECK(r.Shape("h") == "[B, H]");
  CHECK(r.Shape("ys") == "[S, B, H]");
  // The body runs for every step: its facts are kept and its requirements are real.
  const ir::Graph* body = r.model->graph().Subgraph(0, "body");
  REQUIRE(body != nullptr);
  const TensorFact* p = r.inference.FindIn(*body, "p");
  REQUIRE(p != nullptr);
  REQUIRE(p->shape);
  CHECK((*p->shape)[0]->ToString() == "B");
}

TEST_CASE("Scan-8: a batch axis in front of states, inputs and outputs", "[infer][cf]") {
  auto r = Infer(R"(
g (int64[B] lens, float[B,H] h0, float[B,S,H] xs) => (float[?,?] h, float[?,?,?] ys) {
  h, ys = Scan (lens, h0, xs) <
    num_scan_inputs = 1,
    body = cell (float[H] hp, float[H] xt) => (float[H] hn, float[H] y) {
      hn = Add (hp, xt)
      y = Identity (hn)
    }
  >
})",
                 8);
  CHECK(r.Shape("h") == "[B, H]");
  CHECK(r.Shape("ys") == "[B, S, H]");
}

TEST_CASE("Scan: a state that settles after one step keeps that shape", "[infer][cf]") {
  // The state starts as [A] and becomes the broadcast of [A] and [K] (K the slice length):
  // max-like after step 1, and the same after step 2, since broadcasting is idempotent.
  auto r = Infer(R"(
g (float[A] s0, float[S,K] xs) => (float[?] s, float[?,?] ys) {
  s, ys = Scan (s0, xs) <
    num_scan_inputs = 1,
    body = b (float[?] sp, float[?] x) => (float[?] sn, float[?] y) {
      sn = Add (sp, x)
      y = Identity (sn)
    }
  >
})",
                 11);
  const TensorFact& s = r.Fact("s");
  REQUIRE(s.shape);
  REQUIRE(s.shape->size() == 1);
  REQUIRE((*s.shape)[0]);
  CHECK((*s.shape)[0]->Symbols() == std::vector<std::string>{"A", "K"});
  // At A = 1, K = 7 the state is 7; at A = K = 3 it is 3.
  CHECK(r.DimAt("s", 0, {{"A", 1}, {"K", 7}}) == 7);
  CHECK(r.DimAt("s", 0, {{"A", 3}, {"K", 3}}) == 3);
}

TEST_CASE("control flow nests: an If inside a Loop body sees both scopes", "[infer][cf]") {
  auto r = Infer(R"(
g (float[N,3] x, bool c) => (float[?,?,?] out) {
  m = Constant <value = int64 {2}> ()
  out = Loop (m, ) <
    body = b (int64 i, bool cin) => (bool cout, float[?,?] s) {
      cout = Identity (cin)
      s = If (c) <
        then_branch = t () => (float[?,?] o) { o = Relu (x) },
        else_branch = e () => (float[?,?] o) { o = Neg (x) }
      >
    }
  >
})");
  CHECK(r.Shape("out") == "[2, N, 3]");
}

}  // namespace
}  // namespace shapelint::infer
