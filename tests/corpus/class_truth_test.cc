// The sizes a note says the model works only for hold every size at which ONNX Runtime ran it:
// for every model of every labelled corpus, each residue class a finding states (SL010's "T a
// multiple of 4", SymbolRange::congruent_from) that holds whatever the other sizes are (the
// message names no others it holds at) must contain the symbol's size in every label run where
// ONNX Runtime returned outputs. A class built from the exporter's recorded range, not from the
// graph, broke this once (TSM's batch "even from 4 on" where torch.export recorded N >= 4 and
// ONNX Runtime runs at 2). No label is needed beyond the runs.
#include <catch2/catch.hpp>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "corpus/invalid_models.h"
#include "corpus/run_inputs.h"
#include "lint/analysis.h"
#include "shapelint/ir/load.h"
#include "shapelint/lint/lint.h"
#include "test_files.h"

namespace shapelint::lint {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

struct Tally {
  int classes = 0, checked = 0;
  std::vector<std::string> outside;  // "model rule: T = 6 ran, outside 'works only for ...'"
};

bool InClass(const SymbolRange& r, int64_t v) {
  return v >= *r.congruent_from &&
         ((v - *r.min) % *r.every + *r.every) % *r.every <= *r.max - *r.min;
}

void CheckModel(const fs::path& dir, const std::string& file, const json& label, Tally& t) {
  INFO("model " << file);
  auto model = ir::LoadModel((dir / file).string());
  REQUIRE(model.ok());
  auto findings = Lint(**model, {});
  REQUIRE(findings.ok());
  sym::InternScope scope;
  Analysis analysis(**model);
  for (const Finding& f : *findings) {
    // A class stated at the others' sizes says nothing of the runs at other sizes of them.
    if (!f.witness || absl::StrContains(f.message, "(each with the others at")) continue;
    for (const SymbolRange& r : f.witness->ranges) {
      if (!r.congruent_from || !r.every || !r.min || !r.max) continue;
      ++t.classes;
      for (const json& run : label["runs"]) {
        if (!run.contains("ort") || !(run["ort"].is_array() || run["ort"].is_object())) continue;
        const auto binding = analysis.BindInputs(RunInputs(run["inputs"]));
        if (!binding) continue;
        const std::optional<int64_t> v = binding->Get(r.symbol);
        if (!v) continue;
        ++t.checked;
        if (!InClass(r, *v)) {
          t.outside.push_back(absl::StrCat(file, " ", f.rule, ": ", r.symbol, " = ", *v,
                                           " ran, outside '", f.witness->summary, "'"));
        }
      }
    }
  }
}

TEST_CASE("class truth: a residue class a finding states holds every size ONNX Runtime ran",
          "[corpus][class-truth]") {
  int classes = 0, checked = 0;
  for (const char* corpus : {"exports", "torch2", "post", "third", "library", "classes", "unseen",
                             "fresh", "blind", "sealed", "veiled", "cloaked", "shrouded",
                             "obscured", "masked", "hidden", "covert", "pipes", "fused"}) {
    const fs::path dir = fs::path(SHAPELINT_SOURCE_DIR) / "tests" / "corpus" / corpus;
    const json truth = json::parse(testing::ReadFile(dir / "ground_truth.json"));
    Tally t;
    for (const auto& [file, label] : truth["models"].items()) {
      if (RefusedAsInvalid(corpus, file) == nullptr) CheckModel(dir, file, label, t);
    }
    classes += t.classes;
    checked += t.checked;
    INFO(corpus << ": " << absl::StrJoin(t.outside, "\n"));
    CHECK(t.outside.empty());
  }
  WARN(classes << " classes stated, " << checked
               << " label runs of ONNX Runtime checked against them");
  // The check is not vacuous: the corpora hold such classes and runs that test them.
  CHECK(checked >= 50);
}

}  // namespace
}  // namespace shapelint::lint
