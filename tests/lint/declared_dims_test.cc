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

namespace shapelint::lint {
namespace {

// optimum names a decoder's logits axis 1 with the dim_param "1", on purpose: a dim that may take
// any size. A dim_param is a name whatever it reads like; taken as the number 1 it pinned the
// sequence length to 1 and blamed a Reshape with a -1 (SL002) on BART, Marian and Whisper
// decoders that run at every length. The same output declared with the number 1 (dim_value) is
// a declaration the graph contradicts.
TEST_CASE("a dim_param that reads as a number is a name, not the number", "[lint][declared]") {
  auto model = ir::LoadModelFromBytes(R"(<ir_version: 8, opset_import: ["" : 17]>
g (float[B, L, 8] x) => (float[B, one, 8] y) {
  y = Relu (x)
}
)",
                                      "model.onnxtxt", ir::ModelFormat::kText);
  REQUIRE(model.ok());
  ONNX_NAMESPACE::ModelProto named = (*model)->CompleteProto();
  auto* dim = named.mutable_graph()
                  ->mutable_output(0)
                  ->mutable_type()
                  ->mutable_tensor_type()
                  ->mutable_shape()
                  ->mutable_dim(1);
  dim->set_dim_param("1");
  auto as_name = ir::Model::FromProto(named, "named.onnx");
  REQUIRE(as_name.ok());
  auto quiet = Lint(**as_name, {});
  REQUIRE(quiet.ok());
  CHECK(quiet->empty());

  dim->set_dim_value(1);
  auto as_number = ir::Model::FromProto(named, "numbered.onnx");
  REQUIRE(as_number.ok());
  auto contradicted = Lint(**as_number, {});
  REQUIRE(contradicted.ok());
  REQUIRE(contradicted->size() == 1);
  CHECK(contradicted->front().rule == "SL003");
}

}  // namespace
}  // namespace shapelint::lint
