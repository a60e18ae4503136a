// Real exports, labelled by running them: tests/corpus/exports holds 121 models exported by
// torch 1.13 (single modules and torchvision networks, every activation axis dynamic), and
// ground_truth.json what ONNX Runtime and eager PyTorch did with each at 4-5 sizes, written by
// tools/models/export_corpus.py. A model "breaks" when ORT fails or disagrees with eager at a
// size where eager runs; "responsible" names the nodes where the example size entered.
//
// Asserted here: no healthy model gets an error (zero false alarms); where the linter catches a
// break, its finding or blame chain names a responsible node in at least 90% of the models;
// recall stays at or above its floor; and evaluating a model statically at each probed size
// gives ONNX Runtime's output shapes wherever the engine knows them.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "corpus/run_inputs.h"
#include "lint/analysis.h"
#include "shapelint/ir/load.h"
#include "shapelint/lint/lint.h"

namespace shapelint::lint {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// Breaking models caught, as a fraction: raise it as rules are added (see docs/ground-truth.md
// for the models still missed and why).
constexpr double kMinRecall = 0.6;
constexpr double kMinBlameAccuracy = 0.9;

// Sizes at which ONNX Runtime's output shape departs from the ONNX specification, which the
// engine follows. Each entry must still differ, so that none goes stale.
struct Divergence {
  const char* model;
  const char* inputs;  // the run's inputs, as ground_truth.json writes them
  const char* why;
};
constexpr Divergence kOrtDivergences[] = {
    {"avg_pool_kernel_int.onnx", R"({"x":[3,6,9,7]})",
     "kernel 10 on a width of 7: the spec's floor((7 - 10) / 10 + 1) is 0; ONNX Runtime "
     "divides in C++ integers, truncating toward zero, and gives 1"},
};

const Divergence* FindDivergence(const std::string& model, const std::string& inputs) {
  for (const Divergence& d : kOrtDivergences) {
    if (model == d.model && inputs == d.inputs) return &d;
  }
  return nullptr;
}

TEST_CASE("real exports labelled by ONNX Runtime: recall, false alarms, blame", "[corpus]") {
  const fs::path dir = fs::path(SHAPELINT_SOURCE_DIR) / "tests" / "corpus" / "exports";
  std::ifstream in(dir / "ground_truth.json");
  REQUIRE(in);
  const json truth = json::parse(in);
  int models = 0, breaking = 0, caught = 0, blamed = 0, false_alarms = 0;
  int shapes_compared = 0, shapes_unknown = 0;
  std::vector<std::string> missed, wrong_blame, alarms;
  for (const auto& [file, label] : truth["models"].items()) {
    INFO("model " << file << ": " << label["source"].get<std::string>());
    ++models;
    auto model = ir::LoadModel((dir / file).string());
    REQUIRE(model.ok());
    std::set<std::string> named;  // nodes the errors point at, with their blame chains
    std::vector<std::string> errors;
    for (const Finding& f : Lint(**model)) {
      if (f.severity != Severity::kError) continue;
      errors.push_back(absl::StrCat(f.rule, " ", f.node.name));
      named.insert(f.node.name);
      for (const Note& n : f.notes) {
        if (n.node) named.insert(n.node->name);
      }
    }
    const bool breaks = label["breaks"].get<bool>();
    if (breaks) {
      ++breaking;
      if (errors.empty()) {
        missed.push_back(file);
      } else {
        ++caught;
        bool hit = false;
        for (const auto& r : label["responsible"])
          hit = hit || named.contains(r.get<std::string>());
        if (hit) {
          ++blamed;
        } else {
          wrong_blame.push_back(absl::StrCat(file, " (", absl::StrJoin(errors, ", "), ")"));
        }
      }
    } else if (!errors.empty()) {
      ++false_alarms;
      alarms.push_back(absl::StrCat(file, " (", absl::StrJoin(errors, ", "), ")"));
    }

    // Static evaluation at every probed size where ONNX Runtime produced outputs.
    Analysis analysis(**model);
    for (const auto& run : label["runs"]) {
      if (!run.contains("ort") || !run["ort"].is_object()) continue;
      const auto shapes = RunInputs(run["inputs"]);
      INFO("inputs " << run["inputs"].dump());
      auto binding = analysis.BindInputs(shapes);
      REQUIRE(binding.has_value());
      for (const auto& [output, dims] : run["ort"].items()) {
        auto ours = analysis.ShapeAt(output, *binding);
        if (!ours) {
          ++shapes_unknown;
          continue;
        }
        INFO("output " << output);
        if (const Divergence* d = FindDivergence(file, run["inputs"].dump())) {
          INFO("known divergence: " << d->why);
          CHECK(*ours != dims.get<std::vector<int64_t>>());
          continue;
        }
        ++shapes_compared;
        CHECK(*ours == dims.get<std::vector<int64_t>>());
      }
    }
  }
  WARN(absl::StrCat("exports corpus: ", models, " models, ", breaking, " break; caught ", caught,
                    " (recall ", caught * 100 / std::max(breaking, 1),
                    "%), responsible node named in ", blamed, " of ", caught, "; false alarms ",
                    false_alarms, "; ORT output shapes ", "matched statically: ", shapes_compared,
                    " (", shapes_unknown, " unknown)"));
  WARN("missed: " << absl::StrJoin(missed, ", "));
  INFO("false alarms: " << absl::StrJoin(alarms, "; "));
  INFO("caught without naming a responsible node: " << absl::StrJoin(wrong_blame, "; "));
  CHECK(false_alarms == 0);
  CHECK(blamed >= kMinBlameAccuracy * caught);
  CHECK(caught >= kMinRecall * breaking);
}

}  // namespace
}  // namespace shapelint::lint
