// A post-processor's intermediate value_info is a hint (docs/severity.md): where it is false at
// the export size, where the graph runs, the tool that wrote it annotated wrongly, and the
// finding is a note whichever rule claims the contradiction. onnxslim writes such hints for
// products of dims (h + w where the graph computes h * w); on timm's PoolFormer, exported at
// 224 and slimmed, a GroupNorm's Reshape [0, 1, -1] got a warning from one of them.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "shapelint/ir/load.h"
#include "shapelint/lint/lint.h"

namespace shapelint::lint {
namespace {

// GroupNorm(G) as the exporters write it: the channels regrouped by a Reshape to [0, G, -1]
// and back to the input's shape. r is [n, G, 8 / G * h * w]; its value_info says otherwise.
std::string GroupNormModel(int groups) {
  return std::string(R"(<ir_version: 8, opset_import: ["" : 17]>
g (float[n, 8, h, w] x) => (float[n, 8, h, w] y) <float[n, G, q] r> {
  t = Constant <value = int64[3] {0, )") +
         std::to_string(groups) + R"(, -1}> ()
  r = Reshape (x, t)
  s = Shape (x)
  y = Reshape (r, s)
})";
}

struct Seen {
  std::string rule;
  Severity severity;
};

// Lints the model with r's axis 2 declared as `hint`, told the export size 2 x 8 x 4 x 4.
std::vector<Seen> LintWithHint(int groups, const std::string& hint) {
  auto parsed = ir::LoadModelFromBytes(GroupNormModel(groups), "m.onnxtxt", ir::ModelFormat::kText);
  INFO(parsed.status().ToString());
  REQUIRE(parsed.ok());
  ONNX_NAMESPACE::ModelProto proto = (*parsed)->CompleteProto();
  REQUIRE(proto.graph().value_info_size() == 1);
  auto* shape = proto.mutable_graph()
                    ->mutable_value_info(0)
                    ->mutable_type()
                    ->mutable_tensor_type()
                    ->mutable_shape();
  shape->mutable_dim(1)->set_dim_value(groups);
  shape->mutable_dim(2)->set_dim_param(hint);
  auto model = ir::Model::FromProto(proto, "m.onnx");
  REQUIRE(model.ok());
  LintOptions options;
  options.export_dims = ProbeSpec{{}, {{"x", {2, 8, 4, 4}}}, {}, 0, 0};
  auto findings = Lint(**model, options);
  INFO(findings.status().ToString());
  REQUIRE(findings.ok());
  std::vector<Seen> seen;
  for (const Finding& f : *findings) {
    INFO(f.rule << " " << f.message);
    seen.push_back({f.rule, f.severity});
  }
  return seen;
}

bool Has(const std::vector<Seen>& seen, const std::string& rule, Severity severity) {
  for (const Seen& s : seen) {
    if (s.rule == rule && s.severity == severity) return true;
  }
  return false;
}

bool Any(const std::vector<Seen>& seen, Severity severity) {
  for (const Seen& s : seen) {
    if (s.severity == severity) return true;
  }
  return false;
}

TEST_CASE("a value_info false at the export size is a wrong annotation, a note",
          "[lint][severity]") {
  // 4 groups: r is [n, 4, 2 * h * w], 32 at 4 x 4; the hint's 2 * h + w is 12 there. The
  // Reshape's literal 4 (a group count) is what SL002 claims the contradiction through.
  const std::vector<Seen> seen = LintWithHint(4, "2*h + w");
  CHECK(Has(seen, "SL002", Severity::kNote));
  CHECK_FALSE(Any(seen, Severity::kWarning));
  CHECK_FALSE(Any(seen, Severity::kError));
}

TEST_CASE("a value_info true at the export size and false elsewhere stays a warning",
          "[lint][severity]") {
  // h * w + 16 is 32 at 4 x 4, as the graph computes, and wrong at every other size: no
  // evidence it was wrong where the model was exported, so a hint, a warning.
  const std::vector<Seen> seen = LintWithHint(4, "h*w + 16");
  CHECK(Has(seen, "SL002", Severity::kWarning));
  CHECK_FALSE(Any(seen, Severity::kError));
}

TEST_CASE("a Reshape target of 0, 1 and -1 holds no example size", "[lint][severity]") {
  // GroupNorm(1), PoolFormer's: r is [n, 1, 8 * h * w]. The 1 follows no input dim, so the
  // contradiction is the value_info's alone, reported as such (SL003), not as a baked target.
  const std::vector<Seen> seen = LintWithHint(1, "8*h + w");
  CHECK(Has(seen, "SL003", Severity::kNote));
  for (const Seen& s : seen) CHECK(s.rule != "SL002");
  CHECK_FALSE(Any(seen, Severity::kWarning));
  CHECK_FALSE(Any(seen, Severity::kError));
}

}  // namespace
}  // namespace shapelint::lint
