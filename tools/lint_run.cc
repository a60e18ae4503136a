#include "tools/lint_run.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <filesystem>
#include <system_error>
#include <thread>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "shapelint/lint/finding_path.h"
#include "tools/cli.h"

namespace shapelint::cli {
namespace {

// A model linted by a one-model run is not freed: the process is about to exit, and handing
// its pages back to the system at once costs nothing, while freeing a large graph object by
// object took a tenth of the run (compilers skip freeing at exit for the same reason). The
// model stays reachable from here, so leak checkers do not report it.
void KeepUntilExit(std::unique_ptr<ir::Model> model) {
  static absl::Mutex mutex(absl::kConstInit);
  static auto* kept = new std::vector<std::unique_ptr<ir::Model>>();
  absl::MutexLock lock(&mutex);
  kept->push_back(std::move(model));
}

report::ModelResult LintOne(const std::string& path, const lint::LintOptions& lint_options,
                            bool with_paths, bool last_in_process) {
  report::ModelResult result;
  result.path = path;
  LoadedModel loaded = LoadForReport(path);
  result.error = std::move(loaded.error);
  if (result.error) return result;
  result.error = Guarded([&]() -> std::optional<std::string> {
    absl::StatusOr<std::vector<lint::Finding>> findings = lint::Lint(*loaded.model, lint_options);
    if (!findings.ok()) return std::string(findings.status().message());
    result.findings = *std::move(findings);
    if (with_paths) {
      absl::StatusOr<std::vector<lint::FindingPath>> paths =
          lint::PathsOf(*loaded.model, lint_options, result.findings);
      // Lint accepted the same options: this cannot fail, and a page without the drawings
      // would still say everything else.
      if (paths.ok()) result.paths = *std::move(paths);
    }
    return std::nullopt;
  });
  if (!result.error && last_in_process) KeepUntilExit(std::move(loaded.model));
  return result;
}

// The command line's own settings: the top layer over any configuration file.
lint::Settings CommandLineSettings(const Options& options) {
  lint::Settings s;
  s.select = options.select;
  s.extend_select = options.extend_select;
  s.ignore = options.ignore;
  s.fail_on = options.fail_on;
  s.export_dims = options.export_dims;
  s.dynamic = options.dynamic;
  s.static_dims = options.static_dims;
  return s;
}

}  // namespace

std::vector<ModelJob> PlanJobs(const std::vector<ModelInput>& models, const Options& options) {
  const lint::Settings cli = CommandLineSettings(options);
  using Found = absl::StatusOr<std::shared_ptr<const lint::Config>>;
  auto load = [](absl::StatusOr<std::optional<lint::Config>> c) -> Found {
    if (!c.ok()) return c.status();
    if (!*c) return std::shared_ptr<const lint::Config>();
    return std::make_shared<const lint::Config>(**std::move(c));
  };
  std::optional<Found> explicit_config;
  if (options.config) {
    absl::StatusOr<std::optional<lint::Config>> c = lint::ReadConfig(*options.config);
    if (c.ok() && !*c) {
      c = absl::InvalidArgumentError(
          absl::StrCat(*options.config, ": no [tool.onnx-shapelint] table"));
    }
    explicit_config = load(std::move(c));
  }
  lint::ConfigFinder finder;
  std::vector<ModelJob> jobs;
  for (const auto& [path, error] : models) {
    ModelJob job;
    job.path = path;
    if (error) {
      job.error = error;
      jobs.push_back(std::move(job));
      continue;
    }
    Found found = std::shared_ptr<const lint::Config>();
    if (explicit_config) {
      found = *explicit_config;
    } else if (!options.isolated) {
      found = finder.Find(path);
    }
    if (!found.ok()) {
      job.error = absl::StrCat("configuration: ", found.status().message());
      jobs.push_back(std::move(job));
      continue;
    }
    job.config = *found;
    lint::Settings settings = job.config ? job.config->SettingsFor(path) : lint::Settings();
    settings.Overlay(cli);
    job.options = settings.ToLintOptions();
    job.fail_on = settings.fail_on.value_or(lint::Severity::kError);
    job.with_paths = options.format == Format::kHtml && !options.statistics;
    jobs.push_back(std::move(job));
  }
  return jobs;
}

std::vector<report::ModelResult> LintAll(const std::vector<ModelJob>& models, int jobs,
                                         bool exits_after) {
  std::vector<report::ModelResult> results(models.size());
  size_t threads = jobs > 0 ? static_cast<size_t>(jobs) : std::thread::hardware_concurrency();
  threads = std::min(std::max<size_t>(threads, 1), models.size());
  // With several threads, a large model started last keeps one of them busy while the others
  // have run out of work: the largest start first.
  std::vector<size_t> order;
  if (threads > 1) {
    std::vector<std::string> paths;
    paths.reserve(models.size());
    for (const ModelJob& m : models) paths.push_back(m.path);
    order = LargestFirst(paths);
  }
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t k = next++; k < models.size(); k = next++) {
      const size_t i = order.empty() ? k : order[k];
      const ModelJob& m = models[i];
      if (m.error) {
        results[i].path = m.path;
        results[i].error = m.error;
        continue;
      }
      results[i] = LintOne(m.path, m.options, m.with_paths,
                           /*last_in_process=*/exits_after && models.size() == 1);
      if (m.config == nullptr) continue;
      report::ModelResult& r = results[i];
      // The paths go with their findings.
      const bool paired = r.paths.size() == r.findings.size();
      size_t kept = 0;
      for (size_t f = 0; f < r.findings.size(); ++f) {
        if (m.config->Suppressed(m.path, r.findings[f])) continue;
        if (kept != f) {
          r.findings[kept] = std::move(r.findings[f]);
          if (paired) r.paths[kept] = std::move(r.paths[f]);
        }
        ++kept;
      }
      r.findings.resize(kept);
      if (paired) r.paths.resize(kept);
    }
  };
  std::vector<std::thread> pool;
  try {
    for (size_t t = 1; t < threads; ++t) pool.emplace_back(work);
  } catch (const std::system_error&) {
    // No more threads to be had: the ones started and this one share the rest.
  }
  work();
  for (std::thread& t : pool) t.join();
  return results;
}

std::vector<size_t> LargestFirst(const std::vector<std::string>& paths) {
  std::vector<std::pair<uintmax_t, size_t>> sized;  // (size, index); size 0 when unknown
  sized.reserve(paths.size());
  for (size_t i = 0; i < paths.size(); ++i) {
    std::error_code ec;
    uintmax_t size = paths[i] == "-" ? 0 : std::filesystem::file_size(paths[i], ec);
    sized.emplace_back(ec ? 0 : size, i);
  }
  std::stable_sort(sized.begin(), sized.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  std::vector<size_t> order;
  order.reserve(sized.size());
  for (const auto& [size, index] : sized) order.push_back(index);
  return order;
}

}  // namespace shapelint::cli
