#include "tools/lint_run.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <exception>
#include <filesystem>
#include <new>
#include <system_error>
#include <thread>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "shapelint/ir/load.h"
#include "tools/cli.h"

namespace shapelint::cli {
namespace {

// The file that makes a directory a TensorFlow SavedModel.
constexpr char kSavedModelFile[] = "saved_model.pb";

// Load errors start with the path the loader was given; the report already shows the path.
std::string WithoutSource(absl::string_view message, const std::string& source) {
  const std::string prefix = source + ": ";
  if (absl::StartsWith(message, prefix)) message.remove_prefix(prefix.size());
  return std::string(message);
}

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
                            bool last_in_process) {
  report::ModelResult result;
  result.path = path;
  // One bad model must not take down the report on the others, whatever goes wrong.
  try {
    absl::StatusOr<std::unique_ptr<ir::Model>> model = ir::LoadModel(path);
    if (!model.ok()) {
      result.error = WithoutSource(model.status().message(), path == "-" ? "<stdin>" : path);
      return result;
    }
    absl::StatusOr<std::vector<lint::Finding>> findings = lint::Lint(**model, lint_options);
    if (!findings.ok()) {
      result.error = std::string(findings.status().message());
      return result;
    }
    result.findings = *std::move(findings);
    if (last_in_process) KeepUntilExit(*std::move(model));
  } catch (const std::bad_alloc&) {
    result.error = "out of memory";
  } catch (const std::exception& e) {
    result.error = absl::StrCat("internal error: ", e.what());
  } catch (...) {
    result.error = "internal error";
  }
  return result;
}

// Why a directory stands for no model. A TensorFlow SavedModel is a directory: it is named.
std::string DirectoryWithoutModels(const std::string& dir) {
  std::error_code ec;
  if (std::filesystem::is_regular_file(std::filesystem::path(dir) / kSavedModelFile, ec)) {
    return "is a TensorFlow SavedModel, not an ONNX model: convert it with tf2onnx --saved-model";
  }
  return "is a directory without any *.onnx file under it";
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

std::vector<ModelInput> ExpandModels(const std::vector<std::string>& models) {
  namespace fs = std::filesystem;
  std::vector<ModelInput> inputs;
  for (const std::string& model : models) {
    std::error_code ec;
    if (model == "-" || !fs::is_directory(model, ec)) {
      inputs.push_back({model, std::nullopt});
      continue;
    }
    std::vector<std::string> found;
    fs::recursive_directory_iterator it(model, fs::directory_options::skip_permission_denied, ec);
    for (; !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
      if (it->path().extension() == ".onnx" && it->is_regular_file(ec)) {
        found.push_back(it->path().string());
      }
    }
    if (ec) {
      inputs.push_back({model, absl::StrCat("cannot read the directory: ", ec.message())});
    } else if (found.empty()) {
      inputs.push_back({model, DirectoryWithoutModels(model)});
    }
    std::sort(found.begin(), found.end());
    for (std::string& path : found) inputs.push_back({std::move(path), std::nullopt});
  }
  return inputs;
}

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
      results[i] =
          LintOne(m.path, m.options, /*last_in_process=*/exits_after && models.size() == 1);
      if (m.config == nullptr) continue;
      std::vector<lint::Finding>& findings = results[i].findings;
      findings.erase(
          std::remove_if(findings.begin(), findings.end(),
                         [&](const lint::Finding& f) { return m.config->Suppressed(m.path, f); }),
          findings.end());
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
