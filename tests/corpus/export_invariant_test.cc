// The corpus tests' check that no error is false at the export size (export_invariant.h) finds
// what it is meant to: an error whose failing node fails at the export sizes as well.
#include "corpus/export_invariant.h"

#include <catch2/catch.hpp>

#include "shapelint/ir/load.h"

namespace shapelint::lint {
namespace {

// y = x + [1, 2, 3]: runs at n = 3 (and 1), fails at every other n.
constexpr char kModel[] = R"(<ir_version: 8, opset_import: ["" : 17]>
m (float[n] x) => (float[n] y) {
  c = Constant <value = float[3] {1, 2, 3}> ()
  y = Add (x, c)
})";

Finding ErrorFailingAtAdd() {
  Finding f;
  f.rule = "SL005";
  f.severity = Severity::kError;
  Counterexample cx;
  cx.binding = {{"n", 4}};
  cx.inputs = {{"x", {4}}};
  cx.failing_node = {"", "Add", 1, "main", "<Add #1>"};
  cx.node_fails = true;
  f.counterexample = cx;
  return f;
}

TEST_CASE("export invariant: an error whose node fails at the export sizes too is reported",
          "[corpus]") {
  auto model = ir::LoadModelFromBytes(kModel, "m.onnxtxt");
  REQUIRE(model.ok());
  const std::vector<Finding> findings = {ErrorFailingAtAdd()};
  // Exported at n = 5 the Add fails there too: the error is not about a baked size.
  CHECK(ErrorsFalseAtExport(**model, findings, nlohmann::json::parse(R"({"x": [5]})")).size() == 1);
  // Exported at n = 3, where the graph runs, it is.
  CHECK(ErrorsFalseAtExport(**model, findings, nlohmann::json::parse(R"({"x": [3]})")).empty());
  // A warning is not an error; sizes that do not fit the file check nothing.
  std::vector<Finding> warning = findings;
  warning[0].severity = Severity::kWarning;
  CHECK(ErrorsFalseAtExport(**model, warning, nlohmann::json::parse(R"({"x": [5]})")).empty());
  CHECK(ErrorsFalseAtExport(**model, findings, nlohmann::json::parse(R"({"z": [5]})")).empty());
}

}  // namespace
}  // namespace shapelint::lint
