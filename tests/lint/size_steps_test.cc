// SizeStepsAt: where the graph's own sizes change as one input size moves. The model pools the
// height by 4 and then by 2: floor(h / 4) and floor(h / 8), which keep their values over runs
// of input heights that a probe moving by 1 or 2 stays inside.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "shapelint/ir/load.h"
#include "shapelint/lint/probe.h"

namespace shapelint::lint {
namespace {

constexpr char kModel[] = R"(<ir_version: 8, opset_import: ["" : 17]>
g (float[n,1,h,8] x) => (float[n,1,q,8] z) {
  y = AveragePool <kernel_shape = [4, 1], strides = [4, 1]> (x)
  z = AveragePool <kernel_shape = [2, 1], strides = [2, 1]> (y)
})";

SizeSteps StepsOf(std::string_view symbol, int64_t h, int64_t max_step = 64, int count = 3) {
  auto model = ir::LoadModelFromBytes(kModel, "m.onnxtxt");
  REQUIRE(model.ok());
  auto steps = SizeStepsAt(**model, ProbeSpec{{{"n", 2}, {"h", h}}, {}, {}, 0, 0}, max_step, count);
  REQUIRE(steps.ok());
  for (const SizeSteps& s : *steps) {
    if (s.symbol == symbol) return s;
  }
  FAIL("no entry for " << symbol);
  return {};
}

TEST_CASE("size steps: where each floor of the height changes", "[lint][probe]") {
  // h = 16: floor(h / 4) = 4 and floor(h / 8) = 2. At 17 both stay (so 17 shows nothing new);
  // at 20 the first becomes 5 (step 4), at 24 the second becomes 3 (step 8). Down, at 15 both
  // change at once (3 and 1): the step of 1, which every probe makes anyway, so none is listed.
  const SizeSteps at16 = StepsOf("h", 16);
  CHECK(at16.at == 16);
  CHECK(at16.up == std::vector<int64_t>{4, 8});
  CHECK(at16.down.empty());
  // h = 19: 4 and 2 as at 16; up, 20 changes the first (step 1, not listed) and 24 the second
  // (step 5); down, both stay down to 16 and change at 15 (step 4).
  const SizeSteps at19 = StepsOf("h", 19);
  CHECK(at19.up == std::vector<int64_t>{5});
  CHECK(at19.down == std::vector<int64_t>{4});
}

TEST_CASE("size steps: bounded by the largest step and the count", "[lint][probe]") {
  CHECK(StepsOf("h", 16, /*max_step=*/6).up == std::vector<int64_t>{4});
  CHECK(StepsOf("h", 16, 64, /*count=*/1).up == std::vector<int64_t>{4});
  // Down from 3 the height reaches 1 and stops: floor(h / 4) is 0 from 3 to 1, no change.
  CHECK(StepsOf("h", 3).down.empty());
}

TEST_CASE("size steps: a size at the end of int64 steps nowhere past it", "[lint][probe]") {
  // floor(h / 4) at the largest int64: every step up overflows, so none is taken; down, the
  // floors change at the step of 4 (INT64_MAX = 4 * k + 3: h - 4 is the first with floor k - 1),
  // and floor(h / 8) at the step of 8.
  const SizeSteps top = StepsOf("h", INT64_MAX);
  CHECK(top.up.empty());
  CHECK(top.down == std::vector<int64_t>{4, 8});
}

TEST_CASE("size steps: a size only multiplied or added has none", "[lint][probe]") {
  const SizeSteps batch = StepsOf("n", 16);
  CHECK(batch.at == 2);
  CHECK(batch.up.empty());
  CHECK(batch.down.empty());
}

TEST_CASE("size steps: shapes are bound as every probe binds them", "[lint][probe]") {
  auto model = ir::LoadModelFromBytes(kModel, "m.onnxtxt");
  REQUIRE(model.ok());
  auto at = [&](std::vector<int64_t> dims) {
    return SizeStepsAt(**model, ProbeSpec{{}, {{"x", std::move(dims)}}, {}, 0, 0}, 64, 3);
  };
  // x: [2, 1, 16, 8] binds n = 2 and h = 16, and steps h as the sizes above do.
  auto bound = at({2, 1, 16, 8});
  REQUIRE(bound.ok());
  REQUIRE(bound->size() == 2);
  CHECK((*bound)[0].symbol == "h");
  CHECK((*bound)[0].up == std::vector<int64_t>{4, 8});
  // A static dim given another size, or another rank, is no shape of the model.
  for (const auto& dims : {std::vector<int64_t>{2, 3, 16, 8}, std::vector<int64_t>{2, 1, 16}}) {
    auto refused = at(dims);
    REQUIRE_FALSE(refused.ok());
    CHECK(refused.status().code() == absl::StatusCode::kInvalidArgument);
    CHECK_THAT(std::string(refused.status().message()),
               Catch::Contains("an input shape does not fit the model"));
  }
}

}  // namespace
}  // namespace shapelint::lint
