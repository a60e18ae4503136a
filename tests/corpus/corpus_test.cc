// Real exports as ground truth: every model in tests/corpus/torch was run on ONNX Runtime and
// eager PyTorch at several sizes (docs/ground-truth.md); labels.json records those runs by hand.
// The linter must flag exactly the labelled findings, evaluating a model statically at a size
// must give what ONNX Runtime gave there, and a model that never broke must get no error.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "corpus/run_inputs.h"
#include "lint/analysis.h"
#include "shapelint/ir/load.h"
#include "shapelint/lint/lint.h"
#include "test_files.h"

namespace shapelint::lint {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

TEST_CASE("real torch exports: findings and static evaluation agree with ONNX Runtime",
          "[corpus]") {
  const fs::path dir = fs::path(SHAPELINT_SOURCE_DIR) / "tests" / "corpus" / "torch";
  const json labels = json::parse(testing::ReadFile(dir / "labels.json"));
  int models = 0, breaking = 0, caught = 0, false_alarms = 0, runs = 0;
  for (const auto& [file, label] : labels["models"].items()) {
    {
      INFO("model " << file);
      ++models;
      auto model = ir::LoadModel((dir / file).string());
      REQUIRE(model.ok());
      std::set<std::string> expected, actual;
      for (const auto& f : label["findings"]) expected.insert(f.get<std::string>());
      bool has_error = false;
      auto findings = Lint(**model);
      REQUIRE(findings.ok());
      for (const Finding& f : *findings) {
        actual.insert(
            absl::StrCat(std::string(SeverityName(f.severity)), " ", f.rule, " ", f.node.name));
        has_error = has_error || f.severity == Severity::kError;
      }
      CHECK(absl::StrJoin(actual, ", ") == absl::StrJoin(expected, ", "));

      Analysis analysis(**model);
      bool breaks = false;
      for (const auto& run : label["runs"]) {
        ++runs;
        const auto shapes = RunInputs(run["inputs"]);
        INFO("inputs " << run["inputs"].dump());
        auto binding = analysis.BindInputs(shapes);
        REQUIRE(binding.has_value());
        Counterexample at = analysis.Evaluate(*binding);
        if (run.contains("ort_fails_at")) {
          breaks = true;
          CHECK(at.node_fails);
          CHECK(at.failing_node.name == run["ort_fails_at"].get<std::string>());
          continue;
        }
        INFO("failure: " << at.failure);
        CHECK_FALSE(at.node_fails);
        for (const auto& [output, dims] : run["ort"].items()) {
          // Not captured by reference: Clang 14 does not let lambdas capture structured bindings.
          auto it = std::find_if(at.outputs.begin(), at.outputs.end(),
                                 [name = output](const ShapeAt& s) { return s.value == name; });
          // Where the label says the graph decides the rank at run time, the engine must not
          // claim one; everywhere else it must give ONNX Runtime's shape.
          const bool unknown =
              label.contains("unknown_outputs") && label["unknown_outputs"].contains(output);
          CHECK((it == at.outputs.end()) == unknown);
          if (it != at.outputs.end()) CHECK(it->actual == dims.get<std::vector<int64_t>>());
        }
        breaks = breaks || run["ort"] != run["pytorch"] || run.value("values_differ", false);
      }
      if (breaks) {
        ++breaking;
        if (has_error) {
          ++caught;
        } else {
          INFO("a model that breaks at another size got no error");
          CHECK(label.contains("known_miss"));
        }
      } else {
        false_alarms += has_error;
        CHECK_FALSE(has_error);
      }
    }
  }
  CHECK(models == 10);
  {
    WARN("torch corpus: " << models << " models, " << runs << " ONNX Runtime runs; " << caught
                          << " of " << breaking << " breaking models caught, " << false_alarms
                          << " false alarms");
  }
}

}  // namespace
}  // namespace shapelint::lint
