// Runs recorded in the model (onnx_shapelint.runs, written by onnx_shapelint.torch.export):
// the severity a run settled is the one every later lint and fix gives, from the same policy.
#include "lint/run_records.h"

#include <catch2/catch.hpp>
#include <string>

#include "absl/strings/str_cat.h"
#include "shapelint/ir/load.h"
#include "shapelint/lint/fix.h"
#include "shapelint/lint/lint.h"
#include "shapelint/lint/probe.h"

namespace shapelint::lint {
namespace {

// x[..., :int(x.size(-1)) // 2] exported at W = 10 (tests/rules/SL007/slice_half_width.onnxtxt):
// a warning on the graph alone, whose literal 5 might be the module's own.
constexpr char kHalf[] = R"(<ir_version: 8, opset_import: ["" : 17]>
half (float[N,C,H,W] x) => (float[N,C,H,?] y) {
  starts = Constant <value = int64[1] {0}> ()
  ends = Constant <value = int64[1] {5}> ()
  axes = Constant <value = int64[1] {3}> ()
  y = Slice (x, starts, ends, axes)
}
)";

// The model with metadata entry onnx_shapelint.runs = `runs`, serialized.
std::string WithRuns(const std::string& runs) {
  auto text = ir::LoadModelFromBytes(kHalf, "half.onnxtxt", ir::ModelFormat::kText);
  REQUIRE(text.ok());
  auto bytes = ir::SetModelMetadata((*text)->CompleteProto().SerializeAsString(),
                                    std::string(kRunsKey), runs);
  REQUIRE(bytes.ok());
  return *bytes;
}

LintOptions Told() {
  LintOptions options;
  auto spec = ParseSizes("x=2x4x8x10", kExportSizes);
  REQUIRE(spec.ok());
  options.export_dims = *std::move(spec);
  return options;
}

std::vector<Finding> LintOf(const std::string& bytes) {
  auto model = ir::LoadModelFromBytes(bytes, "half.onnx", ir::ModelFormat::kBinary);
  REQUIRE(model.ok());
  auto findings = Lint(**model, Told());
  REQUIRE(findings.ok());
  return *std::move(findings);
}

// A run at W = 12 as export() records it: ONNX Runtime returns 5 columns, PyTorch 6.
std::string Record(const std::string& node, const std::string& attribute) {
  return absl::StrCat(R"([{"rule": "SL007", "node": ")", node, R"(", "attribute": ")", attribute,
                      R"(", "binding": {"W": 12}, "inputs": {"x": [2, 4, 8, 12]}, )",
                      R"j("detail": "ONNX Runtime returns (2, 4, 8, 5), PyTorch (2, 4, 8, 6)", )j",
                      R"("node_fails": false, "versions": "torch 2.15.0, onnxruntime 1.31.1"}])");
}

TEST_CASE("run records: a recorded run makes the warning an error with a safe fix", "[lint]") {
  const std::vector<Finding> alone = LintOf(WithRuns("[]"));
  REQUIRE(alone.size() == 1);
  const Finding& warning = alone[0];
  CHECK(warning.severity == Severity::kWarning);
  CHECK(warning.evidence == Evidence::kHypothesis);

  const std::string recorded = WithRuns(Record(warning.node.label, warning.attribute));
  const std::vector<Finding> settled = LintOf(recorded);
  REQUIRE(settled.size() == 1);
  const Finding& f = settled[0];
  CHECK(f.severity == Severity::kError);
  CHECK(f.evidence == Evidence::kRun);
  REQUIRE(f.counterexample);
  CHECK(f.counterexample->binding == std::vector<std::pair<std::string, int64_t>>{{"W", 12}});
  CHECK(f.counterexample->failure == "ONNX Runtime returns (2, 4, 8, 5), PyTorch (2, 4, 8, 6)");
  CHECK(f.notes.back().message.find("torch 2.15.0, onnxruntime 1.31.1") != std::string::npos);

  // fix, told the same sizes and without --unsafe-fixes, repairs it: one policy for both.
  auto fixed = Fix(recorded, "half.onnx", {.lint = Told()});
  REQUIRE(fixed.ok());
  REQUIRE(fixed->fixed.size() == 1);
  CHECK(fixed->fixed[0].rule == "SL007");
  CHECK(fixed->fixed[0].fix_it->applicability == Applicability::kSafe);
  auto without = Fix(WithRuns("[]"), "half.onnx", {.lint = Told()});
  REQUIRE(without.ok());
  CHECK(without->fixed.empty());
}

// Runs at W = 11, 12 and 20 as export() records them where both sides agree: the 5 is the
// module's own (a fixed crop), not half the example's width.
std::string Agreed(const std::string& node, const std::string& attribute,
                   const std::string& verdict = "agree") {
  return absl::StrCat(R"([{"rule": "SL007", "node": ")", node, R"(", "attribute": ")", attribute,
                      R"(", "binding": {}, "inputs": {"x": [2, 4, 8, 11]}, "verdict": ")", verdict,
                      R"(", "detail": "ONNX Runtime and PyTorch agree at W=11; W=12; )",
                      R"(W=20: the literal is the module's own", "node_fails": false, )",
                      R"("versions": "torch 2.15.0, onnxruntime 1.31.1"}])");
}

TEST_CASE("run records: runs that agree make the hypothesis a note, and nothing else", "[lint]") {
  const std::vector<Finding> alone = LintOf(WithRuns("[]"));
  REQUIRE(alone.size() == 1);
  const std::string node = alone[0].node.label, attribute = alone[0].attribute;

  const std::vector<Finding> settled = LintOf(WithRuns(Agreed(node, attribute)));
  REQUIRE(settled.size() == 1);
  CHECK(settled[0].severity == Severity::kNote);
  CHECK(settled[0].evidence == Evidence::kDesign);
  CHECK(settled[0].notes.back().message.find("agree at W=11; W=12; W=20") != std::string::npos);
  // A verdict the records do not know is no record.
  const std::vector<Finding> unknown = LintOf(WithRuns(Agreed(node, attribute, "maybe")));
  REQUIRE(unknown.size() == 1);
  CHECK(unknown[0].severity == Severity::kWarning);

  // A contradiction the graph shows is evidence no run near the export size refutes.
  Finding error;
  error.rule = "SL007";
  error.node.label = node;
  error.attribute = attribute;
  error.evidence = Evidence::kContradiction;
  error.severity = Severity::kError;
  RunRecord agreed;
  agreed.rule = "SL007";
  agreed.node = node;
  agreed.attribute = attribute;
  agreed.agree = true;
  std::vector<Finding> findings{error};
  CHECK(ApplyRunRecords({agreed}, findings) == 0);
  CHECK(findings[0].severity == Severity::kError);
  CHECK(findings[0].evidence == Evidence::kContradiction);
}

TEST_CASE("run records: a record that names nothing or does not read settles nothing", "[lint]") {
  const std::vector<Finding> alone = LintOf(WithRuns("[]"));
  REQUIRE(alone.size() == 1);
  const std::string node = alone[0].node.label, attribute = alone[0].attribute;
  for (const std::string& runs :
       {Record("another node", attribute), Record(node, "another attribute"), std::string("{"),
        std::string("not json"), std::string(R"({"rule": "SL007"})"),
        absl::StrCat(R"([{"rule": "SL007", "node": ")", node, R"(", "attribute": ")", attribute,
                     R"(", "binding": {"W": -3}, "inputs": {"x": [2, 4, 8, 12]}, )",
                     R"("detail": "x"}])"),
        absl::StrCat(R"([{"rule": "SL007", "node": ")", node, R"(", "attribute": ")", attribute,
                     R"(", "binding": {"W": 12}, "inputs": {"x": "wide"}, "detail": "x"}])")}) {
    INFO(runs);
    const std::vector<Finding> findings = LintOf(WithRuns(runs));
    REQUIRE(findings.size() == 1);
    CHECK(findings[0].severity == Severity::kWarning);
  }
}

}  // namespace
}  // namespace shapelint::lint
