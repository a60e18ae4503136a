// --dynamic on a model exported with a static size: the value_info the exporter inferred from
// that size is not held against the graph, the file's other declarations are.
#include <catch2/catch.hpp>
#include <memory>
#include <string>
#include <vector>

#include "shapelint/ir/load.h"
#include "shapelint/lint/lint.h"

namespace shapelint::lint {
namespace {

// Exported at height 8 with the height static: the exporter wrote r's shape at that height.
const char kStaticExport[] = R"(<ir_version: 8, opset_import: ["" : 17]>
g (float[1, 3, 8, 8] x) => (float[1, 3, h, 8] y)
<float[1, 3, 8, 8] r> {
  r = Relu (x)
  y = Relu (r)
}
)";

// The same graph exported with the height dynamic, r still declared at 8: the file itself says
// the graph was traced with a static height.
const char kDynamicExport[] = R"(<ir_version: 8, opset_import: ["" : 17]>
g (float[1, 3, h, 8] x) => (float[1, 3, h, 8] y)
<float[1, 3, 8, 8] r> {
  r = Relu (x)
  y = Relu (r)
}
)";

std::vector<std::string> Findings(const char* text, std::vector<DynamicAxis> dynamic) {
  auto model = ir::LoadModelFromBytes(text, "model.onnxtxt", ir::ModelFormat::kText);
  INFO(model.status().ToString());
  REQUIRE(model.ok());
  LintOptions options;
  options.dynamic = std::move(dynamic);
  auto findings = Lint(**model, options);
  INFO(findings.status().ToString());
  REQUIRE(findings.ok());
  std::vector<std::string> out;
  for (const Finding& f : *findings) out.push_back(f.rule + " " + f.message);
  return out;
}

const char kStaleR[] =
    "SL003 value_info 'r' declares axis 2 as 8, but the graph computes h (equal only where h == "
    "8)";

TEST_CASE("a dynamic axis forgets the static value_info inferred from it", "[lint][dynamic]") {
  CHECK(Findings(kStaticExport, {}).empty());
  CHECK(Findings(kStaticExport, {{"x", 2, "h"}}).empty());
  CHECK(Findings(kStaticExport, {{"x", -2, ""}}).empty());
}

TEST_CASE("value_info stays a declaration where the file declares the axis dynamic",
          "[lint][dynamic]") {
  CHECK(Findings(kDynamicExport, {}) == std::vector<std::string>{kStaleR});
  // Renaming an axis that was dynamic already relaxes nothing the exporter inferred.
  CHECK(Findings(kDynamicExport, {{"x", 2, "h"}}) == std::vector<std::string>{kStaleR});
}

}  // namespace
}  // namespace shapelint::lint
