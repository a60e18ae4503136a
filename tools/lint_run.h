// Linting many models: the files a MODEL argument stands for, the configuration that applies to
// each, and the parallel run over them.
#ifndef SHAPELINT_TOOLS_LINT_RUN_H_
#define SHAPELINT_TOOLS_LINT_RUN_H_

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "shapelint/lint/config.h"
#include "shapelint/lint/finding.h"
#include "shapelint/lint/lint.h"
#include "shapelint/report/report.h"
#include "tools/model_inputs.h"
#include "tools/options.h"

namespace shapelint::cli {

// One model to lint, with the options that apply to it.
struct ModelJob {
  std::string path;
  lint::LintOptions options;
  lint::Severity fail_on = lint::Severity::kError;
  std::shared_ptr<const lint::Config> config;  // for its suppressions; may be null
  std::optional<std::string> error;            // the configuration could not be read
  // The HTML report draws each finding's path through the graph: computed while the model is
  // loaded (lint::PathsOf), and only for that report.
  bool with_paths = false;
};

// Each model with its options: --config's file, or the nearest configuration above it (each
// directory looked in once), under the command line's settings.
std::vector<ModelJob> PlanJobs(const std::vector<ModelInput>& models, const Options& options);

// Lints every job, `jobs` at a time (0: one per core); results in the order of `models`.
// `exits_after`: the process exits after this run (Environment::exits_after_run).
std::vector<report::ModelResult> LintAll(const std::vector<ModelJob>& models, int jobs,
                                         bool exits_after);

}  // namespace shapelint::cli

#endif  // SHAPELINT_TOOLS_LINT_RUN_H_
