// Every error's counterexample is true of the ONNX model, on the corpora whose labels do not
// store the runs (the torch 2.x corpus and the module corpora check theirs in their own tests):
// the torch 1.13 exports, the post-processed ones, the third-party exporters' and the libraries'
// own export paths. tools/models/counterexample_ort.py linted each model alone and told its
// export sizes and ran ONNX Runtime at every error's counterexample
// (counterexample_runs.json beside each corpus). Here every error counterexample the linter
// states now must be among those runs, and ONNX Runtime must have done what it says: failed
// where a node fails, returned the output shapes it gives where the graph runs.
#include <catch2/catch.hpp>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "corpus/export_invariant.h"
#include "corpus/invalid_models.h"
#include "corpus/run_inputs.h"
#include "shapelint/ir/load.h"
#include "shapelint/lint/lint.h"
#include "test_files.h"

namespace shapelint::lint {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

void CheckCorpus(const std::string& corpus) {
  const fs::path dir = fs::path(SHAPELINT_SOURCE_DIR) / "tests" / "corpus" / corpus;
  const json truth = json::parse(testing::ReadFile(dir / "ground_truth.json"));
  const json runs = json::parse(testing::ReadFile(dir / "counterexample_runs.json"))["models"];
  std::vector<std::string> unstored, untrue;
  int errors = 0, node_fails = 0;
  for (const auto& [file, label] : truth["models"].items()) {
    if (!fs::exists(dir / file) || RefusedAsInvalid(corpus, file) != nullptr) continue;
    INFO(corpus << "/" << file);
    auto model = ir::LoadModel((dir / file).string());
    REQUIRE(model.ok());
    std::vector<std::string> outputs;  // the graph's outputs, in ONNX Runtime's order
    for (const auto& o : (*model)->graph().proto().output()) outputs.push_back(o.name());
    for (const bool told : {false, true}) {
      if (told && !label.contains("export_inputs")) continue;
      LintOptions options;
      if (told) options.export_dims = ProbeSpec{{}, RunInputs(label["export_inputs"]), {}, 0, 0};
      auto findings = Lint(**model, options);
      // The export sizes may not fit a file whose processor renamed an input: alone covers it.
      if (!findings.ok()) continue;
      for (const Finding& f : *findings) {
        if (f.severity != Severity::kError || !f.counterexample) continue;
        ++errors;
        node_fails += f.counterexample->node_fails;
        const json* stored =
            runs.contains(file) ? StoredRun(runs[file], f.counterexample->inputs) : nullptr;
        std::string where = absl::StrCat(file, " ", f.rule, told ? " (told)" : "", " at");
        for (const auto& [input, dims] : f.counterexample->inputs) {
          absl::StrAppend(&where, " ", input, "=[", absl::StrJoin(dims, ","), "]");
        }
        if (stored == nullptr) {
          unstored.push_back(where);
        } else if (std::string wrong = UntrueOfModel(*f.counterexample, *stored, outputs);
                   !wrong.empty()) {
          untrue.push_back(absl::StrCat(where, ": ", wrong));
        }
      }
    }
  }
  WARN(corpus << ": " << errors << " error counterexamples (alone and told), " << node_fails
              << " of them a node failing; not run: " << unstored.size()
              << "; contradicted by ONNX Runtime: " << untrue.size());
  INFO("not run (tools/models/counterexample_ort.py stores them): " << absl::StrJoin(unstored,
                                                                                     "; "));
  INFO("contradicted by ONNX Runtime: " << absl::StrJoin(untrue, "; "));
  CHECK(unstored.empty());
  CHECK(untrue.empty());
}

TEST_CASE("counterexamples true of the model: torch 1.13 exports", "[corpus][counterexamples]") {
  CheckCorpus("exports");
}

TEST_CASE("counterexamples true of the model: post-processed exports",
          "[corpus][counterexamples]") {
  CheckCorpus("post");
}

TEST_CASE("counterexamples true of the model: third-party exporters", "[corpus][counterexamples]") {
  CheckCorpus("third");
}

TEST_CASE("counterexamples true of the model: held-out optimum pipelines",
          "[corpus][counterexamples]") {
  CheckCorpus("pipes");
}

TEST_CASE("counterexamples true of the model: ONNX Runtime's transformer optimizer",
          "[corpus][counterexamples]") {
  CheckCorpus("fused");
}

TEST_CASE("counterexamples true of the model: libraries' own export paths",
          "[corpus][counterexamples]") {
  CheckCorpus("library");
}

}  // namespace
}  // namespace shapelint::lint
