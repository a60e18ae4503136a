// The shapes ScatterElements and ScatterND require of their updates, from ONNX's definitions
// (ONNX Runtime refuses any other shape): each expectation worked out by hand beside it.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "infer/infer_fixture.h"
#include "shapelint/infer/engine.h"

namespace shapelint::infer {
namespace {

TEST_CASE("ScatterElements: updates have the indices' shape", "[infer][index]") {
  // "updates: same rank and shape as indices": [N, K] against [N, J], axis by axis; the data's
  // C does not enter.
  auto r = Infer(R"(
g (float[N,C] d, int64[N,K] i, float[N,J] u) => (float[N,C] y) {
  y = ScatterElements <axis = 1> (d, i, u)
})");
  CHECK(r.Requirements(RequirementKind::kConcatDim) == std::vector<std::string>{"J ~ K"});
  const Requirement* req = r.FindRequirement(RequirementKind::kConcatDim);
  REQUIRE(req != nullptr);
  CHECK(req->what == "ScatterElements updates axis 1 vs indices axis 1");
  // Equal shapes require nothing.
  auto same = Infer(R"(
g (float[N,C] d, int64[N,K] i, float[N,K] u) => (float[N,C] y) {
  y = ScatterElements <axis = 1> (d, i, u)
})");
  CHECK(same.Requirements(RequirementKind::kConcatDim).empty());
}

TEST_CASE("ScatterND: updates have the indices' leading axes and the data's last ones",
          "[infer][index]") {
  // data [N, T, D], indices [M, 1] (k = 1): updates [M, T, D]. Given [P, S, D]: P ~ M for the
  // indices' axis 0, S ~ T for data's axis 1; D is D.
  auto r = Infer(R"(
g (float[N,T,D] d, int64[M,1] i, float[P,S,D] u) => (float[N,T,D] y) {
  y = ScatterND (d, i, u)
})");
  CHECK(r.Requirements(RequirementKind::kConcatDim) ==
        (std::vector<std::string>{"P ~ M", "S ~ T"}));
  // k = 2 addresses elements of [N, T]: updates [M, D].
  auto two = Infer(R"(
g (float[N,T,D] d, int64[M,2] i, float[M,D] u) => (float[N,T,D] y) {
  y = ScatterND (d, i, u)
})");
  CHECK(two.Requirements(RequirementKind::kConcatDim).empty());
  // A literal index count against a traced slice of the data (a tile index_add at the export
  // size): 4 indices for updates of min(W, 12) - 8 rows, which agree at W = 12 only.
  auto tile = Infer(R"(
g (float[W,C] x, float[W,C] d) => (float[W,C] y) {
  starts = Constant <value = int64[1] {8}> ()
  ends = Constant <value = int64[1] {12}> ()
  axes = Constant <value = int64[1] {0}> ()
  u = Slice (x, starts, ends, axes)
  i = Constant <value = int64[4,1] {8, 9, 10, 11}> ()
  y = ScatterND (d, i, u)
})");
  const Requirement* req = tile.FindRequirement(RequirementKind::kConcatDim);
  REQUIRE(req != nullptr);
  CHECK(req->what == "ScatterND updates axis 0 vs indices axis 0");
  CHECK(req->rhs.ToString() == "4");
}

}  // namespace
}  // namespace shapelint::infer
