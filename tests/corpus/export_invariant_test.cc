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

TEST_CASE("export invariant: a witness that leaves out the export size is reported", "[corpus]") {
  auto model = ir::LoadModelFromBytes(kModel, "m.onnxtxt");
  REQUIRE(model.ok());
  const std::map<std::string, int64_t> at5 =
      ExportSizes(**model, nlohmann::json::parse(R"({"x": [5]})"));
  CHECK(at5 == std::map<std::string, int64_t>{{"n", 5}});
  Finding f = ErrorFailingAtAdd();
  f.witness = Witness{{SymbolRange{"n", 3, 3, 3}}, {}, "works only for n = 3"};
  // "Works only for n = 3" of a model exported at n = 5, where it ran: not a bake of n.
  CHECK(WitnessLeavesOutExport(f, at5) == std::vector<std::string>{"n=5 outside the witness"});
  CHECK(WitnessLeavesOutExport(f, {{"n", 3}}).empty());
  // A residue class (a multiple of 4 from 4 on) holds 8 and leaves out 6.
  f.witness->ranges[0] = SymbolRange{"n", 4, 4, 4, 4, 4};
  CHECK(WitnessLeavesOutExport(f, {{"n", 8}}).empty());
  CHECK(WitnessLeavesOutExport(f, {{"n", 6}}).size() == 1);
  // Unbounded above: every larger size is inside.
  f.witness->ranges[0] = SymbolRange{"n", 3, 3, std::nullopt};
  CHECK(WitnessLeavesOutExport(f, {{"n", 50}}).empty());
  CHECK(WitnessLeavesOutExport(f, {{"n", 2}}).size() == 1);
}

}  // namespace
}  // namespace shapelint::lint
