// Engine truth on real graphs: the shape of every value the engine knows, evaluated at the sizes
// ONNX Runtime ran each corpus model at, equals the shape ONNX Runtime computed for it.
//
// tools/models/intermediate_shapes.py ran every model of tests/corpus/{torch,exports,torch2,third,
// library,post,unseen,fresh,blind,sealed,veiled,cloaked,shrouded,obscured,masked,hidden,covert,classes}
// with every value of its main graph exposed as an output, at the export size and at up to three
// other sizes of its labels, and stored the shapes (intermediate_shapes.json beside each
// corpus). A known dim that differs is a defect of the engine: the target, and the test, is
// none, in every model and at every size. A dim the engine leaves unknown is no defect; how many
// it knows is reported and held to a floor, so that coverage cannot silently fall.
#include <catch2/catch.hpp>
#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "corpus/invalid_models.h"
#include "corpus/run_inputs.h"
#include "lint/analysis.h"
#include "shapelint/ir/load.h"
#include "test_files.h"

namespace shapelint::lint {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// Runs where the engine follows the ONNX specification and ONNX Runtime does not: the value,
// the run's inputs as the file writes them, and why.
struct Divergence {
  const char* model;
  const char* inputs;
  const char* why;
};
// Each export of the module that pools a width of 7 with a kernel of 10: the spec's
// floor((7 - 10) / 10 + 1) is 0; ONNX Runtime divides in C++ integers, truncating toward zero,
// and gives 1 (tests/corpus/exports_test.cc has the same divergence for the output).
constexpr const char* kPoolWiderThanInput = R"({"x":[3,6,9,7]})";
// By module: every export of it (both exporters, both example sizes) and every post-processed
// copy (onnxslim, onnx-simplifier, ORT's symbolic shape inference) pools the same way.
// The recall classes' adaptive pools exported at a width the window now exceeds behave the same.
constexpr const char* kWidthThree = R"({"x":[2,4,3]})";
constexpr Divergence kOrtDivergences[] = {
    {"avg_pool_kernel_int", kPoolWiderThanInput, "kernel 10 on a width of 7"},
    {"avg_pool_kernel_from_shape", kPoolWiderThanInput, "kernel 10 on a width of 7"},
    {"aap2d_f_none1", kPoolWiderThanInput, "kernel 10 on a width of 7"},
    {"aap1d_f_2", kWidthThree, "kernel 5 on a width of 3"},
    {"amp1d_f_2", kWidthThree, "kernel 5 on a width of 3"},
    {"aap1d_nn_3", kWidthThree, "kernel 4 on a width of 3"},
    // The masked corpus's CRNN pools its height with the kernel int(h) = 4 of the export; at a
    // page 4 high the convolution leaves 2 rows.
    {"crnn_height_maxpool_int_kernel", R"({"x":[2,1,4,9]})", "kernel 4 on a height of 2"},
    // ReduceMax(keepdims = 0) of the last axis of a [2, 4, 0, 4] tensor (no hop at T = 3): the
    // spec's output is [2, 4, 0]; ONNX Runtime returns an empty input as it is, [2, 4, 0, 4].
    {"fd_hop_frames_neg", kWidthThree, "a reduction of an empty tensor"},
};

bool Diverges(const std::string& model, const std::string& inputs) {
  const std::string module = model.substr(0, model.find('.'));
  for (const Divergence& d : kOrtDivergences) {
    if (module == d.model && inputs == d.inputs) return true;
  }
  return false;
}

struct Tally {
  int64_t runs = 0, values = 0, dims = 0, known = 0, wrong = 0, rank_wrong = 0;
  std::vector<std::string> wrong_examples;

  std::string Summary(const std::string& corpus) const {
    return absl::StrCat(corpus, ": ", runs, " runs, ", values, " values, ", dims, " dims; ", known,
                        " known to the engine (", dims == 0 ? 0 : (1000 * known / dims) / 10.0,
                        " %), ", wrong, " wrong dims, ", rank_wrong, " wrong ranks");
  }
};

// `run["shapes"]` holds the dims of each of the model's `values`, in order (null where the run
// did not return that value).
void Compare(const std::string& file, const Analysis& analysis, const json& values, const json& run,
             Tally& t) {
  const auto binding = analysis.BindInputs(RunInputs(run["inputs"]));
  REQUIRE(binding.has_value());
  ++t.runs;
  const json& shapes = run["shapes"];
  REQUIRE(shapes.size() == values.size());
  for (size_t k = 0; k < values.size(); ++k) {
    if (shapes[k].is_null()) continue;
    const std::string value = values[k].get<std::string>();
    const infer::TensorFact* fact = analysis.inference().Find(value);
    const std::vector<int64_t> dims = shapes[k].get<std::vector<int64_t>>();
    ++t.values;
    t.dims += static_cast<int64_t>(dims.size());
    if (fact == nullptr || !fact->shape) continue;
    if (fact->shape->size() != dims.size()) {
      ++t.rank_wrong;
      t.wrong_examples.push_back(absl::StrCat(file, " ", run["inputs"].dump(), " '", value,
                                              "': rank ", fact->shape->size(), ", ORT ",
                                              dims.size()));
      continue;
    }
    for (size_t i = 0; i < dims.size(); ++i) {
      const sym::MaybeExpr& dim = (*fact->shape)[i];
      const std::optional<int64_t> ours = dim ? dim->Evaluate(*binding) : std::nullopt;
      if (!ours) continue;
      ++t.known;
      if (*ours == dims[i]) continue;
      ++t.wrong;
      t.wrong_examples.push_back(absl::StrCat(file, " ", run["inputs"].dump(), " '", value,
                                              "' axis ", i, ": ", dim->ToString(80), " = ", *ours,
                                              ", ORT ", dims[i]));
    }
  }
}

Tally CheckCorpus(const std::string& corpus) {
  const fs::path dir = fs::path(SHAPELINT_SOURCE_DIR) / "tests" / "corpus" / corpus;
  const json truth = json::parse(testing::ReadFile(dir / "intermediate_shapes.json"));
  Tally t;
  for (const auto& [file, entry] : truth["models"].items()) {
    INFO("model " << corpus << "/" << file);
    if (RefusedAsInvalid(corpus, file) != nullptr) continue;
    auto model = ir::LoadModel((dir / file).string());
    REQUIRE(model.ok());
    sym::InternScope scope;
    Analysis analysis(**model);
    for (const json& run : entry["runs"]) {
      if (!run.contains("shapes") || Diverges(file, run["inputs"].dump())) continue;
      Compare(file, analysis, entry["values"], run, t);
    }
  }
  return t;
}

void Report(const std::string& corpus, const Tally& t, double min_known) {
  std::vector<std::string> shown(
      t.wrong_examples.begin(),
      t.wrong_examples.begin() +
          static_cast<std::ptrdiff_t>(std::min<size_t>(t.wrong_examples.size(), 40)));
  INFO(absl::StrJoin(shown, "\n"));
  WARN(t.Summary(corpus));
  CHECK(t.wrong == 0);
  CHECK(t.rank_wrong == 0);
  CHECK(t.known >= min_known * static_cast<double>(t.dims));
}

TEST_CASE("engine truth: torch 1.13 seed exports, every value's shape as ONNX Runtime's",
          "[corpus][engine-truth]") {
  Report("torch", CheckCorpus("torch"), 0.9);
}

TEST_CASE("engine truth: torch 1.13 corpus, every value's shape as ONNX Runtime's",
          "[corpus][engine-truth]") {
  Report("exports", CheckCorpus("exports"), 0.9);
}

TEST_CASE("engine truth: torch 2.x corpus, every value's shape as ONNX Runtime's",
          "[corpus][engine-truth]") {
  Report("torch2", CheckCorpus("torch2"), 0.9);
}

TEST_CASE("engine truth: third-party exporters, every value's shape as ONNX Runtime's",
          "[corpus][engine-truth]") {
  // optimum's and ultralytics' exports, with onnxslim's value_info (often wrong) where it ran.
  Report("third", CheckCorpus("third"), 0.9);
}

TEST_CASE("engine truth: held-out optimum pipelines, every value's shape as ONNX Runtime's",
          "[corpus][engine-truth]") {
  // optimum's exports of 30 more architectures, as written and after onnxslim.
  Report("pipes", CheckCorpus("pipes"), 0.9);
}

TEST_CASE(
    "engine truth: ONNX Runtime's transformer optimizer, every value's shape as ONNX "
    "Runtime's",
    "[corpus][engine-truth]") {
  // The corpora's transformers after onnxruntime.transformers.optimizer: com.microsoft fused
  // ops (SkipLayerNormalization, BiasGelu, Attention, EmbedLayerNormalization, ...).
  Report("fused", CheckCorpus("fused"), 0.9);
}

TEST_CASE("engine truth: libraries' own export paths, every value's shape as ONNX Runtime's",
          "[corpus][engine-truth]") {
  // timm's onnx_export through both exporters, transformers with interpolate_pos_encoding.
  Report("library", CheckCorpus("library"), 0.9);
}

TEST_CASE("engine truth: unseen modules, every value's shape as ONNX Runtime's",
          "[corpus][engine-truth]") {
  // Small modules written for this corpus and never used to tune anything, both exporters.
  Report("unseen", CheckCorpus("unseen"), 0.9);
}

TEST_CASE("engine truth: fresh modules, every value's shape as ONNX Runtime's",
          "[corpus][engine-truth]") {
  // A second corpus built as the unseen one, in idioms no other corpus uses, both exporters.
  Report("fresh", CheckCorpus("fresh"), 0.9);
}

TEST_CASE("engine truth: blind modules, every value's shape as ONNX Runtime's",
          "[corpus][engine-truth]") {
  // A third corpus built as the fresh one, linted only once its labels were final.
  Report("blind", CheckCorpus("blind"), 0.9);
}

TEST_CASE("engine truth: sealed modules, every value's shape as ONNX Runtime's",
          "[corpus][engine-truth]") {
  // A fourth corpus built as the blind one, linted only once its code and why were final.
  Report("sealed", CheckCorpus("sealed"), 0.9);
}

TEST_CASE("engine truth: veiled modules, every value's shape as ONNX Runtime's",
          "[corpus][engine-truth]") {
  // A fifth, linted only once its code, why and family were final and committed.
  Report("veiled", CheckCorpus("veiled"), 0.9);
}

TEST_CASE("engine truth: cloaked modules, every value's shape as ONNX Runtime's",
          "[corpus][engine-truth]") {
  // A sixth, linted only once its code, why and family were final.
  Report("cloaked", CheckCorpus("cloaked"), 0.9);
}

TEST_CASE("engine truth: shrouded modules, every value's shape as ONNX Runtime's",
          "[corpus][engine-truth]") {
  // A seventh, linted only once its code, why and family were final.
  Report("shrouded", CheckCorpus("shrouded"), 0.9);
}

TEST_CASE("engine truth: obscured modules, every value's shape as ONNX Runtime's",
          "[corpus][engine-truth]") {
  // An eighth, linted only once its code, why and family were final.
  Report("obscured", CheckCorpus("obscured"), 0.9);
}

TEST_CASE("engine truth: masked modules, every value's shape as ONNX Runtime's",
          "[corpus][engine-truth]") {
  // A ninth, linted only once its code, why and family were final.
  Report("masked", CheckCorpus("masked"), 0.9);
}

TEST_CASE("engine truth: hidden modules, every value's shape as ONNX Runtime's",
          "[corpus][engine-truth]") {
  // A tenth, linted only once its code, why and family were final.
  Report("hidden", CheckCorpus("hidden"), 0.9);
}

TEST_CASE("engine truth: covert modules, every value's shape as ONNX Runtime's",
          "[corpus][engine-truth]") {
  // An eleventh, linted only once its code, why and family were final.
  Report("covert", CheckCorpus("covert"), 0.9);
}

TEST_CASE("engine truth: recall classes, every value's shape as ONNX Runtime's",
          "[corpus][engine-truth]") {
  // The recall classes' small modules, both exporters: adaptive pools, self-consistent literal
  // operands, position tables and windows, floor division of sizes.
  Report("classes", CheckCorpus("classes"), 0.9);
}

TEST_CASE("engine truth: post-processed exports, every value's shape as ONNX Runtime's",
          "[corpus][engine-truth]") {
  // Our torch 2.x and 1.13 exports after onnxslim, onnx-simplifier and ORT's symbolic shape
  // inference, each with the value_info its tool wrote.
  Report("post", CheckCorpus("post"), 0.9);
}

}  // namespace
}  // namespace shapelint::lint
