// Shared by the corpus tests of generated pipelines and held-out modules: lint each labelled
// model of a corpus alone or told its export sizes and score it (errors and warnings on breaking
// models, false errors and warnings on healthy ones, errors the export sizes contradict), by
// part and with the held-out third apart.
#ifndef SHAPELINT_TESTS_CORPUS_CORPUS_SCORE_H_
#define SHAPELINT_TESTS_CORPUS_CORPUS_SCORE_H_

#include <filesystem>
#include <initializer_list>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"

namespace shapelint::lint::corpus {

// tests/corpus/<corpus> in the source tree.
std::filesystem::path Dir(const std::string& corpus);

struct Score {
  int models = 0, breaking = 0, caught = 0, flagged = 0, healthy = 0, warned_healthy = 0;
  int errors_source_shares = 0;  // on kSourceSharesLimit's models, each saying so
  int known_false_errors = 0;    // on the listed known failures (kUnseenKnownFalseErrors, ...)
  int no_kernel = 0;  // fail for an op ONNX Runtime's CPU build lacks: not scored (neither side)
  // Post-processed models only: breaking ones whose unprocessed source gets an error, and how
  // many of those get one after the processor. What the processor costs is the difference; the
  // rest of a part's misses are its modules' (the source is missed as well).
  int source_caught = 0, caught_of_source_caught = 0;
  std::vector<std::string> false_errors, warned;
  std::vector<std::string> false_at_export;  // errors the export sizes break as well

  std::string Summary() const {
    return absl::StrCat(models, " models, ", breaking, " break: errors on ", caught,
                        ", errors or warnings on ", flagged, "; healthy: ", false_errors.size(),
                        " errors (and ", errors_source_shares, " the source shares, said so; ",
                        known_false_errors, " known), ", warned_healthy, " warned of ", healthy,
                        "; breaking with an error on the source: ", source_caught,
                        ", of them with an error here: ", caught_of_source_caught,
                        no_kernel > 0 ? absl::StrCat("; not scored (no kernel): ", no_kernel) : "");
  }
};

// Scores by part, and the held-out third apart: "slim", "slim held out", ..., "all".
std::map<std::string, Score> ScoreCorpus(const std::string& corpus, bool told,
                                         const std::set<std::string>& known_false_errors = {});

// No false error, no error the export sizes contradict, warned healthy models at most
// max_warned_healthy (a count; a negative one means 2 % of the healthy), and the floors.
void CheckScores(const std::map<std::string, Score>& scores, double min_recall,
                 double min_flagged = 0, int max_warned_healthy = -1);

// The files of these corpora's directories.
std::vector<std::filesystem::path> DirectoryFiles(std::initializer_list<const char*> corpora);

// The scores of a corpus every module of which is held out (the unseen and fresh modules): its
// floors and ceilings alone and told, the listed known false errors counted apart and reported
// when they no longer err.
struct HeldOutFloors {
  double recall, recall_told, flagged, flagged_told;
  int warned_healthy, warned_healthy_told;
};

void CheckHeldOutScores(const std::string& corpus, const HeldOutFloors& floors,
                        const std::set<std::string>& known_false_errors);

// Every module of `corpus` is held out, and each of `families` has `min_modules` modules with a
// file at least, with `min_breaking` breaking files (what should fire) and 5 healthy (the
// lookalikes that must stay silent).
void CheckHeldOutFamilies(const std::string& corpus, const std::vector<std::string>& families,
                          int min_modules = 10, int min_breaking = 5);

// The labels of a held-out corpus store each error's counterexample run on ONNX Runtime and
// eager PyTorch (torch2_runs.confirm): on a breaking file, one at least must show ONNX Runtime
// failing or differing from eager, or the file is one of `listed`, the known failures; and
// every error's counterexample the linter states now, alone and told, is a stored one, and ONNX
// Runtime did there what it says, but on the files of `rewritten`: there ONNX Runtime's default
// session (the labels' runs) ran a graph its own graph optimizations rewrote, where ONNX's
// definition and a session without them fail as the counterexample says (checked by hand, each
// explained where listed).
void CheckCounterexamplesConfirmed(const std::string& corpus, const std::set<std::string>& listed,
                                   const std::set<std::string>& rewritten = {});

// Every error on the healthy files of `listed` (the known false errors, where eager PyTorch fails
// too: the module's own table), alone and told, says that the source may share the limit and
// that a run of the module settles it: the severity policy's terms for an error on a model
// whose source accepts only the export size, on the command line (docs/severity.md).
void CheckKnownFalseErrorsSayTheSourceMayShare(const std::string& corpus,
                                               const std::set<std::string>& listed);

}  // namespace shapelint::lint::corpus

#endif  // SHAPELINT_TESTS_CORPUS_CORPUS_SCORE_H_
