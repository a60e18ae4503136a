// The pipelines users run, beside torch.onnx.export alone:
//  - tests/corpus/post: our own exports after the post-processors users run on them
//    (tools/models/export_post.py): onnxslim, onnxsim, and ONNX Runtime's symbolic shape
//    inference with and without auto_merge, each writing the graph and its value_info anew,
//    labelled by running each processed model on ONNX Runtime beside its source;
//  - tests/corpus/third: third-party exporters (tools/models/export_third.py): optimum-onnx's
//    main_export of tiny random transformers, ultralytics' YOLO export with and without its
//    onnxslim, labelled by ONNX Runtime against the eager module;
//  - tests/corpus/library: libraries' own export paths (tools/models/export_library.py): timm's
//    onnx_export(dynamic_size=True) through TorchScript and dynamo, transformers image models
//    called with interpolate_pos_encoding=True through both torch.onnx exporters, labelled the
//    same way;
//  - tests/corpus/fused: the corpora's transformers after ONNX Runtime's transformer optimizer
//    (tools/models/export_fused.py), its com.microsoft fused ops in the graph, labelled as post;
//  - tests/corpus/classes: small modules of three recall classes (tools/models/export_classes.py:
//    adaptive pooling, self-consistent literal operands, position tables and windows), each
//    through both torch.onnx exporters, with healthy lookalikes, labelled like tests/corpus/torch2.
// Each holds a third of its modules out (held_out): never looked at while the rules were tuned,
// and scored apart, so that a gap between the two shows tuning to the corpus.
//
// Asserted, linting each model alone and told its export sizes (corpus_score.h): every model
// loads and lints; no healthy model gets an error but those whose source shares the limit and
// says so, each explained in docs/ground-truth.md; at most 2 % of the healthy ones (or the
// ceiling measured) a warning; recall at or above its floors.
#include <catch2/catch.hpp>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "absl/strings/match.h"
#include "corpus/corpus_score.h"
#include "shapelint/ir/load.h"
#include "shapelint/lint/lint.h"
#include "test_files.h"

namespace shapelint::lint::corpus {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// Errors on breaking models, alone and told the export sizes, over every processor: what the
// linter reaches now (docs/ground-truth.md); raise them as it improves.
constexpr double kMinPostRecall = 0.48;
constexpr double kMinPostRecallWithExportDims = 0.63;
// The recall classes (tests/corpus/classes), errors on breaking models over every family: what
// the linter reaches now (docs/ground-truth.md); raise them as it improves.
// Measured 40 and 43 of 59: 34 and 37 of 47 before the floor-division family came, whose six
// breaking TorchScript exports get SL015's warning (TorchScript records no source), not an error.
constexpr double kMinClassesRecall = 0.67;
constexpr double kMinClassesRecallWithExportDims = 0.72;
// Healthy files with a warning, alone and told: loop_range_const's two exports, whose
// `for t in range(1, 3): x[:, t]` leaves a Gather index 2 that no recorded line writes (SL010:
// a limit that may be the source's own).
constexpr int kMaxClassesWarnedHealthy = 2;
// Libraries' own export paths (tests/corpus/library), errors on breaking models over every
// part: what the linter reaches now (docs/ground-truth.md); raise them as it improves.
// Measured 2 of 12 alone and told (MobileViT through both exporters).
constexpr double kMinLibraryRecall = 0.16;
constexpr double kMinLibraryRecallWithExportDims = 0.16;
// And errors or warnings, alone and told: 9 of 12 measured.
constexpr double kMinLibraryFlagged = 0.74;

TEST_CASE("post-processed exports: no false errors, few warnings, recall floors",
          "[corpus][pipelines]") {
  CheckScores(ScoreCorpus("post", false), kMinPostRecall);
  CheckScores(ScoreCorpus("post", true), kMinPostRecallWithExportDims);
}

TEST_CASE("third-party exporters: no false errors, few warnings", "[corpus][pipelines]") {
  // Two of the 45 break (the NMS-free YOLO head's TopK at small images), and lint misses both:
  // no recall floor to hold yet (docs/ground-truth.md).
  CheckScores(ScoreCorpus("third", false), 0);
  CheckScores(ScoreCorpus("third", true), 0);
}

// The held-out pipelines (tests/corpus/pipes, tools/models/export_pipes.py): optimum-onnx's
// main_export on 30 architectures tests/corpus/third does not hold, each as exported and after
// onnxslim, every file held out. Errors on 5 of the 9 breaking files (MobileViT's two; LongT5's
// merged decoder after onnxslim, which the loader refuses as invalid, invalid_models.h; mBART's
// and Pegasus' after onnxslim, whose Expand gets a computed shape of rank 4, SL016), errors or
// warnings on 7 (Swin's window padding, SL013), alone and told; 3 and 5 as first measured
// (docs/ground-truth.md). The miss: DPT's fusion stage, whose shapes the engine loses at
// int(math.sqrt(T)) (a square root is outside its algebra).
constexpr double kMinPipesRecall = 0.55;
constexpr double kMinPipesFlagged = 0.77;

TEST_CASE("held-out optimum pipelines: no false errors, few warnings, recall floors",
          "[corpus][pipelines]") {
  CheckScores(ScoreCorpus("pipes", false), kMinPipesRecall, kMinPipesFlagged);
  CheckScores(ScoreCorpus("pipes", true), kMinPipesRecall, kMinPipesFlagged);
}

// ONNX Runtime's transformer optimizer (tests/corpus/fused, tools/models/export_fused.py) on
// the corpora's transformers: 151 files, 27 breaking, of which 7 (T5 and LongT5, every one) fail
// at every size because ONNX Runtime's CPU build has no kernel for the RelativePositionBias the
// optimizer writes: no shape says so, and they are scored apart (corpus_score.cc). Of the other
// 20, errors on 5 and errors or warnings on 9 alone, 11 told (as first measured, at the last
// stop's linter: 3, 7 and 9). The misses are their sources' (docs/ground-truth.md), and the
// optimizer drops the nodes' metadata, so transformers' dynamo position tables lose the
// recorded interpolate_pos_encoding that made them warnings. Healthy files with a warning: 4,
// alone and told, each a float table the optimizer folded from a lookup (CLIP's positions,
// LeViT's and EfficientFormer's attention biases): SL005's hypothesis, as after onnxslim.
constexpr double kMinFusedRecall = 0.25;
constexpr double kMinFusedFlagged = 0.45;
constexpr int kMaxFusedWarnedHealthy = 4;

TEST_CASE("ONNX Runtime's transformer optimizer: no false errors, few warnings, recall floors",
          "[corpus][pipelines]") {
  for (const bool told : {false, true}) {
    const auto scores = ScoreCorpus("fused", told);
    CheckScores(scores, kMinFusedRecall, kMinFusedFlagged, kMaxFusedWarnedHealthy);
    CHECK(scores.at("all").no_kernel == 7);
  }
}

TEST_CASE("libraries' own export paths: no false errors, few warnings", "[corpus][pipelines]") {
  // 12 of the 31 break. The misses, each explained in docs/ground-truth.md: the position tables
  // of timm's TorchScript exports (ViT, DeiT, the ResNet hybrid: an SL004 note, as on the
  // healthy fixed-size ViT, which only a run tells apart). transformers' dynamo position tables
  // get SL004 warnings (the recorded stack asks to resample), Swin's crop back after the window
  // padding SL013 warnings, MobileViT errors.
  CheckScores(ScoreCorpus("library", false), kMinLibraryRecall, kMinLibraryFlagged);
  CheckScores(ScoreCorpus("library", true), kMinLibraryRecallWithExportDims, kMinLibraryFlagged);
}

TEST_CASE(
    "libraries' own export paths, held-out and fused pipelines, unseen, fresh, blind, sealed, "
    "veiled, cloaked, shrouded, obscured, masked, hidden and covert modules: the files name no "
    "machine's "
    "files",
    "[corpus][pipelines]") {
  // Stack traces in the dynamo files' metadata and export errors in the labels hold paths
  // relative to the repository or from site-packages/ on (torch2_runs.scrub_paths,
  // portable_text): an absolute one would be the generating machine's.
  for (const fs::path& file :
       DirectoryFiles({"library", "unseen", "fresh", "blind", "sealed", "veiled", "cloaked",
                       "shrouded", "obscured", "masked", "hidden", "covert", "pipes", "fused"})) {
    INFO(file.filename().string());
    const std::string text = testing::ReadFile(file);
    // Absolute prefixes, and this checkout's own path (a file regenerated here).
    for (const char* prefix : {"/site-packages/", "/tools/models/", "/tmp/", "/home/", "/root/",
                               "/usr/", SHAPELINT_SOURCE_DIR "/"}) {
      INFO(prefix);
      CHECK(!absl::StrContains(text, prefix));
    }
  }
}

TEST_CASE("recall classes corpus: no false errors, few warnings, recall floors",
          "[corpus][pipelines]") {
  CheckScores(ScoreCorpus("classes", false), kMinClassesRecall, 0, kMaxClassesWarnedHealthy);
  CheckScores(ScoreCorpus("classes", true), kMinClassesRecallWithExportDims, 0,
              kMaxClassesWarnedHealthy);
}

TEST_CASE("recall classes corpus: the errors' counterexamples on breaking files run as stated",
          "[corpus][pipelines]") {
  // export_classes.py stores them. KNOWN FAILURES: breaking files whose errors' counterexamples
  // move a size where eager PyTorch fails as well (measured when this check was added): the
  // U-Net decoders move the skip connection alone, where eager needs it twice the low map
  // (unet_add_int, unet_cat_int.ts), and the position tables resampled in a branch move the
  // token count to 10 or the channels to 9, where eager needs a square grid or the table's
  // channels (pos_branch_at9, pos_img_branch_at6.dynamo). Each breaks where eager runs by the
  // labels' own runs.
  CheckCounterexamplesConfirmed(
      "classes",
      {"pos_branch_at9.dynamo.onnx", "pos_branch_at9.ts.onnx", "pos_img_branch_at6.dynamo.onnx",
       "unet_add_int.dynamo.onnx", "unet_add_int.ts.onnx", "unet_cat_int.ts.onnx"});
}

// SL015 on real exports: every breaking module of the floor-division family (each a -(-n // k)
// or n // -k ceiling that both exporters lower to a truncating Div) gets it, an error where the
// dynamo exporter recorded the floordiv and a warning from TorchScript, which records nothing;
// the lookalikes ((n + k - 1) // k, H // 2, -(-4T // 4), Swin's (4 - H % 4) % 4) never do. The
// family was written after the rule; its held-out third is reported apart. The sealed corpus's
// ceil_neg_floordiv_pad, written before it, too.
TEST_CASE("SL015 on the exporters' floor division of a negated size, and only there",
          "[corpus][pipelines]") {
  struct Case {
    const char* corpus;
    std::string file;
    bool breaks, held_out;
  };
  std::vector<Case> cases = {{"sealed", "ceil_neg_floordiv_pad.dynamo.onnx", true, true},
                             {"sealed", "ceil_neg_floordiv_pad.ts.onnx", true, true}};
  const json truth = json::parse(testing::ReadFile(Dir("classes") / "ground_truth.json"));
  for (const auto& [file, label] : truth["models"].items()) {
    if (label["family"] != "floor division of sizes") continue;
    cases.push_back({"classes", file, label["breaks"].get<bool>(), label["held_out"].get<bool>()});
  }
  CHECK(cases.size() >= 20);
  int flagged[2] = {0, 0}, breaking[2] = {0, 0};
  for (const Case& c : cases) {
    INFO(c.corpus << "/" << c.file);
    auto model = ir::LoadModel((Dir(c.corpus) / c.file).string());
    REQUIRE(model.ok());
    auto findings = Lint(**model, {});
    REQUIRE(findings.ok());
    const bool dynamo = absl::StrContains(c.file, ".dynamo.");
    int sl015 = 0;
    for (const Finding& f : *findings) {
      if (f.rule != "SL015") continue;
      ++sl015;
      CHECK(f.severity == (dynamo ? Severity::kError : Severity::kWarning));
      CHECK(f.evidence == (dynamo ? Evidence::kSourceMismatch : Evidence::kHypothesis));
      CHECK(f.counterexample.has_value());
    }
    if (c.breaks) {
      ++breaking[c.held_out];
      flagged[c.held_out] += sl015 > 0;
    } else {
      CHECK(sl015 == 0);
    }
  }
  WARN("SL015 on breaking files: tuned " << flagged[0] << " of " << breaking[0] << ", held out "
                                         << flagged[1] << " of " << breaking[1]);
  CHECK(flagged[0] == breaking[0]);
  CHECK(flagged[1] == breaking[1]);
}

TEST_CASE("recall classes corpus: every family is there, a third of its modules held out",
          "[corpus][pipelines]") {
  const json truth = json::parse(testing::ReadFile(Dir("classes") / "ground_truth.json"));
  std::map<std::string, std::set<std::string>> modules, held_out;
  std::map<std::string, int> breaking, healthy;
  for (const auto& [file, label] : truth["models"].items()) {
    const std::string family = label["family"].get<std::string>();
    modules[family].insert(label["module"].get<std::string>());
    if (label["held_out"].get<bool>()) held_out[family].insert(label["module"].get<std::string>());
    ++(label["breaks"].get<bool>() ? breaking : healthy)[family];
  }
  for (const char* family : {"adaptive pooling", "self-consistent literal operands",
                             "position tables and windows", "floor division of sizes"}) {
    INFO(family);
    CHECK(modules[family].size() >= 10);
    CHECK(breaking[family] >= 5);  // what should fire, and the lookalikes that must stay silent
    CHECK(healthy[family] >= 5);
    CHECK(held_out[family].size() * 5 >= modules[family].size());  // a fifth at least (by hash)
  }
}

TEST_CASE("post-processed exports: every processor is there, a third held out",
          "[corpus][pipelines]") {
  const json truth = json::parse(testing::ReadFile(Dir("post") / "ground_truth.json"));
  std::map<std::string, int> by_processor, held_out;
  for (const auto& [file, label] : truth["models"].items()) {
    ++by_processor[label["processor"].get<std::string>()];
    held_out[label["processor"].get<std::string>()] += label.value("held_out", false);
  }
  for (const char* processor : {"slim", "sim", "ssi", "ssi-merge"}) {
    INFO(processor);
    CHECK(by_processor[processor] >= 250);
    CHECK(held_out[processor] * 5 >= by_processor[processor]);  // a fifth at least (by module)
  }
}

}  // namespace
}  // namespace shapelint::lint::corpus
