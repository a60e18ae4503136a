// Probe treats an intermediate value_info as a hint (docs/severity.md): its disagreement alone
// is no break. (Declarations are checked after every node's requirements, so a node that fails
// at the same sizes is the failure shown.) Nor does a hint move the witness of a lint.
#include <catch2/catch.hpp>
#include <string>

#include "absl/strings/match.h"
#include "shapelint/ir/load.h"
#include "shapelint/lint/lint.h"
#include "shapelint/lint/probe.h"

namespace shapelint::lint {
namespace {

// r = Relu(x) with a value_info that says r is [n, 4] (a tool's wrong inference: it is
// [n, w]); y = r + c, c of width 6, which fails at every w but 6 and 1.
constexpr char kModel[] = R"(<ir_version: 8, opset_import: ["" : 17]>
g (float[n,w] x) => (float[n,w] y) <float[n,4] r> {
  r = Relu (x)
  c = Constant <value = float[6] {1, 2, 3, 4, 5, 6}> ()
  y = Add (r, c)
})";

ProbeResult ProbeAt(int64_t w) {
  auto model = ir::LoadModelFromBytes(kModel, "m.onnxtxt");
  REQUIRE(model.ok());
  auto probed = Probe(**model, {{"w", ProbeSpec{{{"n", 2}, {"w", w}}, {}, {}, 0, 0}}});
  REQUIRE(probed.ok());
  REQUIRE(probed->size() == 1);
  return probed->front();
}

TEST_CASE("probe: a value_info that disagrees alone is no break", "[lint][probe]") {
  // w = 6: the Add runs; only the value_info's 4 disagrees.
  const ProbeResult at6 = ProbeAt(6);
  CHECK_FALSE(at6.breaks);
  CHECK(at6.at.hint_only);
  CHECK_FALSE(at6.at.node_fails);
  CHECK(absl::StrContains(at6.at.failure, "but is declared 4"));
  // w = 4: nothing disagrees, the Add fails (4 against 6).
  const ProbeResult at4 = ProbeAt(4);
  CHECK(at4.breaks);
  CHECK(at4.at.node_fails);
}

TEST_CASE("lint: the witness is where the graph runs, whatever a value_info says", "[lint]") {
  // The value_info's 4 and the Add's 6 hold together at no size: with the hint among its
  // constraints the witness found none, and the error fell on the output's declaration with a
  // counterexample where the graph runs (w = 6). The graph runs at w = 6 (and 1): the literal of
  // width 6 is the error, with that witness and a failure at 7 (by hand: 7 and 6 do not
  // broadcast).
  auto model = ir::LoadModelFromBytes(kModel, "m.onnxtxt");
  REQUIRE(model.ok());
  auto findings = Lint(**model, {});
  REQUIRE(findings.ok());
  const Finding* literal = nullptr;
  for (const Finding& f : *findings) {
    if (f.witness) CHECK_FALSE(absl::StartsWith(f.witness->summary, "no sizes"));
    if (f.rule == "SL005") literal = &f;
  }
  REQUIRE(literal != nullptr);
  CHECK(literal->severity == Severity::kError);
  REQUIRE(literal->witness);
  CHECK(absl::StrContains(literal->witness->summary, "w = 6"));
  REQUIRE(literal->counterexample);
  CHECK(absl::StrContains(literal->counterexample->failure, "7 and 6 do not broadcast"));
}

}  // namespace
}  // namespace shapelint::lint
