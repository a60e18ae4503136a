// SL017's repair on its fixture: the literal added where the cache length belongs is read from
// the cache's shape, only as an unsafe fix, and the repaired model runs at every cache length
// with the shapes eager PyTorch gives (worked out by hand below).
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "shapelint/ir/load.h"
#include "shapelint/lint/fix.h"
#include "shapelint/lint/lint.h"
#include "shapelint/lint/probe.h"
#include "test_files.h"

namespace shapelint::lint {
namespace {

std::string MaskModel() {
  auto model = ir::LoadModel(
      absl::StrCat(SHAPELINT_SOURCE_DIR, "/tests/rules/SL017/causal_mask_past_int.onnxtxt"));
  REQUIRE(model.ok());
  return (*model)->CompleteProto().SerializeAsString();
}

FixResult FixOf(const std::string& bytes, bool unsafe_fixes) {
  FixOptions options;
  options.unsafe_fixes = unsafe_fixes;
  auto result = Fix(bytes, "model.onnx", options);
  INFO(result.status().message());
  REQUIRE(result.ok());
  return *std::move(result);
}

TEST_CASE("fix: a literal added for the cache length is read from the cache", "[lint][fix]") {
  const std::string bytes = MaskModel();
  CHECK(FixOf(bytes, false).fixed.empty());
  FixResult r = FixOf(bytes, true);
  REQUIRE(r.fixed.size() == 1);
  CHECK(r.fixed[0].rule == "SL017");
  CHECK(r.fixed[0].fix_it->applicability == Applicability::kUnsafe);
  CHECK_THAT(r.fixed[0].fix_it->description,
             Catch::Matchers::Contains("compute the literal 5 as P from the input's shape"));
  auto fixed = ir::LoadModelFromBytes(r.model, "fixed.onnx", ir::ModelFormat::kBinary);
  REQUIRE(fixed.ok());
  auto findings = Lint(**fixed);
  REQUIRE(findings.ok());
  CHECK(findings->empty());
  // By hand: the scores are [B, T, P + T] and the mask now has P + T columns: y is
  // [B, T, P + T] at every P, as in eager PyTorch (at P = 5 as before the repair).
  for (const auto& [sizes, shape] :
       std::vector<std::pair<std::string, std::vector<int64_t>>>{{"B=2,T=3,D=4,P=5", {2, 3, 8}},
                                                                 {"B=1,T=2,D=4,P=9", {1, 2, 11}},
                                                                 {"B=3,T=1,D=2,P=1", {3, 1, 2}}}) {
    INFO("at " << sizes);
    auto spec = ParseSizes(sizes, kProbeSizes);
    REQUIRE(spec.ok());
    auto probes = Probe(**fixed, {{sizes, *spec}});
    REQUIRE(probes.ok());
    const ProbeResult& p = probes->front();
    CHECK_FALSE(p.breaks);
    REQUIRE(p.at.outputs.size() == 1);
    CHECK(p.at.outputs[0].actual == shape);
  }
}

}  // namespace
}  // namespace shapelint::lint
