#include "tools/cli.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <memory>
#include <optional>
#include <ostream>
#include <sstream>
#include <string>
#include <string_view>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/synchronization/mutex.h"
#include "shapelint/infer/engine.h"
#include "shapelint/ir/load.h"
#include "shapelint/lint/config.h"
#include "shapelint/lint/finding.h"
#include "shapelint/lint/lint.h"
#include "shapelint/lint/probe.h"
#include "shapelint/report/baseline.h"
#include "shapelint/report/probe.h"
#include "shapelint/report/report.h"
#include "shapelint/report/shapes.h"
#include "shapelint/sym/expr.h"
#include "tools/rule_docs.h"

namespace shapelint::cli {
namespace {

constexpr std::string_view kProgram = "onnx-shapelint";

// Keep in sync with docs/cli.md.
constexpr std::string_view kHelp =
    R"(Usage: onnx-shapelint [OPTIONS] MODEL...
       onnx-shapelint --explain CODE
       onnx-shapelint shapes [--format FORMAT] [--dims NAME=SIZE,...] MODEL...
       onnx-shapelint probe [--format FORMAT] --dims SIZES [--dims SIZES]... MODEL...

Finds sizes of the example input baked into ONNX models exported with dynamic
axes: graphs that work at the export size and fail, or silently return another
shape, at other sizes of the axes they declare dynamic.

MODEL is a serialized ONNX model (.onnx), a model in ONNX text format
(.onnxtxt), a directory (every *.onnx file under it, recursively), or '-'
for standard input. Models are linted in parallel and reported in the order
given (files of a directory sorted by path). Every model is reported, even
when some cannot be loaded.

Options:
  --format FORMAT     Report format: 'text' (default), compiler-style lines
                      for people; 'json', one document for tools (see
                      docs/json-format.md); 'sarif', SARIF 2.1.0 for code
                      scanning (docs/sarif.md); 'github', GitHub Actions
                      workflow commands that annotate the files.
  --output FILE       Write the report to FILE instead of standard output
                      (written to a temporary file first, then renamed, so
                      an interrupted run never leaves half a report).
  --fail-on SEVERITY  Exit with 1 when a finding at or above SEVERITY exists:
                      'error' (default), 'warning' or 'note'.
  --select RULES      Run only these rules: a comma-separated list of codes,
                      code prefixes or names (SL001,SL00,baked-pool-kernel,
                      ALL); may be repeated. Default: every rule.
  --extend-select RULES
                      Add these rules to the selection.
  --ignore RULES      Do not run these rules, even when selected.
  --quiet             Text report: print the findings only, without the
                      summary line.
  -v, --verbose       Text report: add the symbolic expressions behind each
                      finding (the failing requirements, the node's shapes).
  --statistics        Print how many findings each rule has instead of the
                      findings ('text' or 'json').
  --jobs N            Lint at most N models at once (default: one per core).
  --export-dims SIZES The sizes the model was exported at (the example input
                      given to the exporter), in --dims syntax without ranges:
                      x=2x3x224x224 or batch=2,height=224. Literals equal to a
                      size derived from them are then reported too (SL007,
                      SL008): a Slice end of height // 2, a Gather of the
                      last row, a mean divided by the example width.
  --dynamic INPUT:AXIS[=NAME]
                      Lint as if the model declared this input axis dynamic
                      (named NAME), whatever it declares: which literals
                      would break if it were exported dynamic? Comma-
                      separated, may be repeated.
  --static NAME=SIZE  Lint as if the input dim NAME were fixed to SIZE.
                      Comma-separated, may be repeated.
  --config FILE       Use this configuration file (.onnx-shapelint.json or a
                      pyproject.toml) for every model, instead of looking for
                      the nearest one above each model (docs/configuration.md).
  --isolated          Use no configuration file at all.
  --baseline FILE     Report only findings that FILE does not hold: adopt the
                      linter and fail on new findings only.
  --write-baseline FILE
                      Record the findings in FILE as the baseline; exits 0
                      unless a model cannot be loaded.
  --color WHEN        Colour the text report: 'auto' (default; only when
                      standard output is a terminal and NO_COLOR is unset),
                      'always' or 'never'.
  --list-rules        Print every rule (code, name, summary) and exit.
  --explain CODE      Print a rule's documentation (by code or name) and
                      exit.
  --version           Print the version and exit.
  -h, --help          Print this help and exit.
  --                  End of options: every later argument is a MODEL.

An option's value follows it as the next argument or after '='
(--format=json).

'shapes' prints what the engine infers for every value instead of linting:
its shape as expressions over the input dims, the values of small integer
tensors (shape computations), and notes on ops it does not model.
  --format FORMAT     'text' (default) or 'json'.
  --dims NAME=SIZE    Also evaluate every dim with these sizes for the input
                      dims (comma-separated, may be repeated): batch=2,seq=128.

'probe' evaluates each model at the sizes of each --dims, without running it:
the output shapes there next to the declared ones, and the first node that
would fail, with the reason. SIZES is a comma-separated list of
  NAME=SIZE           an input dim by its name (batch=8)
  INPUT=AxBxC         every dim of a graph input (x=2x3x8x9)
  NAME=LO..HI         every size in a range (batch=1..64): which of them break
Dims not given take sizes at which the model works. Exit 1 when a probe
breaks.

Exit status:
  0  no finding at or above --fail-on
  1  at least one finding at or above --fail-on
  2  usage error, or a model could not be loaded (the others are still
     linted and reported)
)";

enum class Format { kText, kJson, kSarif, kGithub };
enum class ColorMode { kAuto, kAlways, kNever };

struct Options {
  Format format = Format::kText;
  std::optional<lint::Severity> fail_on;  // unset: the configuration's, else error
  ColorMode color = ColorMode::kAuto;
  std::optional<std::vector<std::string>> select;  // rule codes, validated; unset: all
  std::vector<std::string> extend_select, ignore;  // rule codes, validated
  std::optional<lint::ProbeSpec> export_dims;
  std::vector<lint::DynamicAxis> dynamic;
  std::vector<std::pair<std::string, int64_t>> static_dims;
  std::optional<std::string> output;
  bool quiet = false;
  bool verbose = false;
  bool statistics = false;
  int jobs = 0;                       // 0: one per core
  std::optional<std::string> config;  // --config: this file for every model
  bool isolated = false;              // --isolated: no configuration file at all
  std::optional<std::string> baseline, write_baseline;
  bool list_rules = false;
  std::optional<std::string> explain;
  std::vector<std::string> models;
};

// A problem with the command line; reported with a pointer to --help.
struct UsageError {
  std::string message;
};

int Usage(std::ostream& err, std::string_view message) {
  err << kProgram << ": error: " << message << "\n"
      << "Try '" << kProgram << " --help' for more information.\n";
  return kExitError;
}

// Adds the rules of a comma-separated `value` of `option` to `codes`, once each.
std::optional<UsageError> AddRules(const std::string& option, const std::string& value,
                                   std::vector<std::string>& codes) {
  for (absl::string_view piece : absl::StrSplit(value, ',')) {
    std::string item(absl::StripAsciiWhitespace(piece));
    if (item.empty()) {
      return UsageError{absl::StrCat("empty rule name in ", option, " '", value, "'")};
    }
    std::vector<std::string> found = lint::RulesMatching(item);
    if (found.empty()) {
      return UsageError{
          absl::StrCat("unknown rule '", item, "' in ", option, " (see --list-rules)")};
    }
    for (std::string& code : found) {
      if (std::find(codes.begin(), codes.end(), code) == codes.end()) {
        codes.push_back(std::move(code));
      }
    }
  }
  return std::nullopt;
}

// Debian's Abseil has its own absl::string_view, which std::string_view does not convert to;
// option text is kept in std::string so it can go to absl::StrCat and friends as is.
std::optional<UsageError> ApplyValue(const std::string& option, const std::string& value,
                                     Options& options) {
  auto invalid = [&](const char* expected) {
    return UsageError{
        absl::StrCat("invalid value '", value, "' for ", option, " (expected ", expected, ")")};
  };
  if (option == "--format") {
    if (value == "text") {
      options.format = Format::kText;
    } else if (value == "json") {
      options.format = Format::kJson;
    } else if (value == "sarif") {
      options.format = Format::kSarif;
    } else if (value == "github") {
      options.format = Format::kGithub;
    } else {
      return invalid("text, json, sarif or github");
    }
  } else if (option == "--fail-on") {
    std::optional<lint::Severity> severity = lint::ParseSeverity(value);
    if (!severity) return invalid("error, warning or note");
    options.fail_on = *severity;
  } else if (option == "--color") {
    if (value == "auto") {
      options.color = ColorMode::kAuto;
    } else if (value == "always") {
      options.color = ColorMode::kAlways;
    } else if (value == "never") {
      options.color = ColorMode::kNever;
    } else {
      return invalid("auto, always or never");
    }
  } else if (option == "--export-dims") {
    absl::StatusOr<lint::ProbeSpec> spec = lint::ParseProbeSpec(value);
    if (!spec.ok()) {
      return UsageError{absl::StrCat(spec.status().message(), " in --export-dims '", value, "'")};
    }
    if (spec->range_symbol) {
      return UsageError{absl::StrCat("--export-dims takes sizes, not a range: '", value, "'")};
    }
    // Repeated --export-dims add up, for models with several inputs.
    if (!options.export_dims) options.export_dims = lint::ProbeSpec{};
    for (auto& s : spec->sizes) options.export_dims->sizes.push_back(std::move(s));
    for (auto& s : spec->shapes) options.export_dims->shapes.push_back(std::move(s));
  } else if (option == "--select") {
    if (!options.select) options.select.emplace();
    return AddRules(option, value, *options.select);
  } else if (option == "--extend-select") {
    return AddRules(option, value, options.extend_select);
  } else if (option == "--ignore") {
    return AddRules(option, value, options.ignore);
  } else if (option == "--dynamic") {
    for (absl::string_view item : absl::StrSplit(value, ',', absl::SkipEmpty())) {
      absl::StatusOr<lint::DynamicAxis> axis = lint::ParseDynamicAxis(std::string(item));
      if (!axis.ok()) return UsageError{absl::StrCat(axis.status().message(), " in --dynamic")};
      options.dynamic.push_back(*std::move(axis));
    }
  } else if (option == "--static") {
    for (absl::string_view item : absl::StrSplit(value, ',', absl::SkipEmpty())) {
      std::pair<std::string, std::string> kv = absl::StrSplit(item, absl::MaxSplits('=', 1));
      int64_t size = 0;
      if (kv.first.empty() || !absl::SimpleAtoi(kv.second, &size) || size < 0) {
        return UsageError{absl::StrCat("invalid size '", std::string(item),
                                       "' in --static (expected NAME=SIZE, SIZE >= 0)")};
      }
      options.static_dims.emplace_back(kv.first, size);
    }
  } else if (option == "--config" || option == "--baseline" || option == "--write-baseline") {
    if (value.empty()) return invalid("a file name");
    (option == "--config"     ? options.config
     : option == "--baseline" ? options.baseline
                              : options.write_baseline) = value;
  } else if (option == "--output") {
    if (value.empty()) return invalid("a file name");
    options.output = value;
  } else if (option == "--jobs") {
    int jobs = 0;
    if (!absl::SimpleAtoi(value, &jobs) || jobs < 1 || jobs > 1024) {
      return invalid("a number of models from 1 to 1024");
    }
    options.jobs = jobs;
  } else if (option == "--explain") {
    std::vector<std::string> codes = lint::RulesMatching(value);
    if (codes.size() != 1) {
      return UsageError{
          absl::StrCat("unknown rule '", value, "' for --explain (see --list-rules)")};
    }
    options.explain = codes[0];
  }
  return std::nullopt;
}

bool TakesValue(const std::string& option) {
  return option == "--format" || option == "--fail-on" || option == "--select" ||
         option == "--color" || option == "--export-dims" || option == "--extend-select" ||
         option == "--ignore" || option == "--output" || option == "--jobs" ||
         option == "--explain" || option == "--dynamic" || option == "--static" ||
         option == "--config" || option == "--baseline" || option == "--write-baseline";
}

void ListRules(std::ostream& out) {
  size_t code_width = 0, name_width = 0;
  for (const lint::RuleInfo& rule : lint::AllRules()) {
    code_width = std::max(code_width, rule.code.size());
    name_width = std::max(name_width, rule.name.size());
  }
  for (const lint::RuleInfo& rule : lint::AllRules()) {
    out << rule.code << std::string(code_width - rule.code.size() + 2, ' ') << rule.name
        << std::string(name_width - rule.name.size() + 2, ' ') << rule.summary << "\n";
  }
}

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

// The models to lint: each MODEL as given, except that a directory stands for the *.onnx files
// under it, recursively, sorted by path. A directory that cannot be read, or holds no model,
// is kept as given, so that loading it reports the problem in its place.
std::vector<std::string> ExpandModels(const std::vector<std::string>& models) {
  namespace fs = std::filesystem;
  std::vector<std::string> paths;
  for (const std::string& model : models) {
    std::error_code ec;
    if (model == "-" || !fs::is_directory(model, ec)) {
      paths.push_back(model);
      continue;
    }
    std::vector<std::string> found;
    fs::recursive_directory_iterator it(model, fs::directory_options::skip_permission_denied, ec);
    for (; !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
      if (it->path().extension() == ".onnx" && it->is_regular_file(ec)) {
        found.push_back(it->path().string());
      }
    }
    if (ec || found.empty()) {
      paths.push_back(model);
      continue;
    }
    std::sort(found.begin(), found.end());
    paths.insert(paths.end(), found.begin(), found.end());
  }
  return paths;
}

// One model to lint, with the options that apply to it.
struct ModelJob {
  std::string path;
  lint::LintOptions options;
  lint::Severity fail_on = lint::Severity::kError;
  std::shared_ptr<const lint::Config> config;  // for its suppressions; may be null
  std::optional<std::string> error;            // the configuration could not be read
};

// Lints every job, `jobs` at a time (0: one per core); results in the order of `models`.
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

// Each model with its options: --config's file, or the nearest configuration above it (each
// directory looked in once), under the command line's settings.
std::vector<ModelJob> PlanJobs(const std::vector<std::string>& paths, const Options& options) {
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
  for (const std::string& path : paths) {
    ModelJob job;
    job.path = path;
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

bool WriteAll(int fd, const std::string& text) {
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

absl::Status CannotWrite(const std::string& path, int error) {
  return absl::UnavailableError(absl::StrCat("cannot write '", path, "': ", std::strerror(error)));
}

// Writes `text` to `path` through a temporary file in the same directory and a rename, so
// that readers see the old file or the whole new one, never a part. A path that is not a
// regular file (/dev/null, a pipe, a terminal) is written to as it is: renaming over it would
// replace the device with a file. A symbolic link is followed, and the new file keeps the
// permissions of the one it replaces (a new one gets the umask's).
absl::Status WriteFileAtomically(const std::string& requested, const std::string& text) {
  std::string path = requested;
  struct stat st {};
  const bool exists = stat(path.c_str(), &st) == 0;
  if (exists && !S_ISREG(st.st_mode)) {
    const int fd = open(path.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
    if (fd < 0) return CannotWrite(path, errno);
    const bool ok = WriteAll(fd, text);
    const int saved = errno;
    close(fd);
    return ok ? absl::OkStatus() : CannotWrite(path, saved);
  }
  if (exists) {
    std::error_code ec;
    std::filesystem::path target = std::filesystem::canonical(path, ec);
    if (!ec) path = target.string();
  }
  mode_t mode = 0;
  if (exists) {
    mode = st.st_mode & 07777;
  } else {
    const mode_t mask = umask(0);
    umask(mask);
    mode = 0666 & ~mask;
  }
  std::string temp = path + ".tmp.XXXXXX";
  const int fd = mkstemp(temp.data());
  if (fd < 0) return CannotWrite(path, errno);
  const bool ok = fchmod(fd, mode) == 0 && WriteAll(fd, text) && fsync(fd) == 0;
  const int saved = errno;
  close(fd);
  if (!ok || std::rename(temp.c_str(), path.c_str()) != 0) {
    const int error = ok ? errno : saved;
    std::remove(temp.c_str());
    return absl::UnavailableError(
        absl::StrCat("cannot write '", path, "': ", std::strerror(error)));
  }
  return absl::OkStatus();
}

int RunUnguarded(const std::vector<std::string>& args, std::ostream& out, std::ostream& err,
                 const Environment& env) {
  Options options;
  bool options_ended = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (options_ended || arg == "-" || !absl::StartsWith(arg, "-")) {
      options.models.push_back(arg);
      continue;
    }
    if (arg == "--") {
      options_ended = true;
      continue;
    }
    std::string option = arg;
    std::optional<std::string> inline_value;
    if (size_t eq = option.find('='); absl::StartsWith(option, "--") && eq != option.npos) {
      inline_value = option.substr(eq + 1);
      option = option.substr(0, eq);
    }
    if (TakesValue(option)) {
      std::string value;
      if (inline_value) {
        value = *inline_value;
      } else if (i + 1 < args.size() &&
                 (args[i + 1] == "-" || !absl::StartsWith(args[i + 1], "-"))) {
        // An argument that looks like an option is not taken as a value: "--select --format
        // json" is a missing value, not an unknown rule named "--format".
        value = args[++i];
      } else {
        return Usage(err, absl::StrCat("option '", option, "' needs a value"));
      }
      if (std::optional<UsageError> e = ApplyValue(option, value, options)) {
        return Usage(err, e->message);
      }
      continue;
    }
    const bool is_flag = option == "--help" || option == "-h" || option == "--version" ||
                         option == "--list-rules" || option == "--quiet" || option == "--verbose" ||
                         option == "-v" || option == "--statistics" || option == "--isolated";
    if (!is_flag) return Usage(err, absl::StrCat("unknown option '", option, "'"));
    if (inline_value) return Usage(err, absl::StrCat("option '", option, "' takes no value"));
    // Like most tools, --help and --version act as soon as they are seen.
    if (option == "--help" || option == "-h") {
      out << kHelp;
      return kExitClean;
    }
    if (option == "--version") {
      out << kProgram << " " << lint::Version() << "\n";
      return kExitClean;
    }
    if (option == "--quiet") {
      options.quiet = true;
    } else if (option == "--verbose" || option == "-v") {
      options.verbose = true;
    } else if (option == "--isolated") {
      options.isolated = true;
    } else if (option == "--statistics") {
      options.statistics = true;
    } else {
      options.list_rules = true;
    }
  }

  if (options.list_rules) {
    ListRules(out);
    return kExitClean;
  }
  if (options.explain) {
    // Every registered rule has its page (a test checks), so this always prints one.
    out << RuleDoc(*options.explain).value_or("");
    return kExitClean;
  }
  if (options.models.empty()) return Usage(err, "no model given");
  if (std::count(options.models.begin(), options.models.end(), "-") > 1) {
    return Usage(err, "'-' (standard input) can be given only once");
  }
  if (options.statistics && options.format != Format::kText && options.format != Format::kJson) {
    return Usage(err, "--statistics writes 'text' or 'json' only");
  }

  std::vector<ModelJob> jobs = PlanJobs(ExpandModels(options.models), options);
  std::vector<report::ModelResult> results = LintAll(jobs, options.jobs, env.exits_after_run);
  if (options.write_baseline) {
    const report::Baseline baseline = report::Baseline::Of(results, *options.write_baseline);
    if (absl::Status written = WriteFileAtomically(*options.write_baseline, baseline.ToJson());
        !written.ok()) {
      err << kProgram << ": error: " << written.message() << "\n";
      return kExitError;
    }
  }
  if (options.baseline) {
    absl::StatusOr<report::Baseline> baseline = report::Baseline::Read(*options.baseline);
    if (!baseline.ok()) {
      err << kProgram << ": error: " << baseline.status().message() << "\n";
      return kExitError;
    }
    baseline->Filter(results);
  }
  bool load_failed = false;
  bool failing = false;
  for (size_t i = 0; i < results.size(); ++i) {
    if (results[i].error) load_failed = true;
    for (const lint::Finding& f : results[i].findings) {
      if (static_cast<int>(f.severity) >= static_cast<int>(jobs[i].fail_on)) failing = true;
    }
  }
  // Writing a baseline accepts the findings there are: only load errors fail the run.
  if (options.write_baseline) failing = false;

  std::ostringstream report;
  const bool to_terminal = !options.output && env.stdout_is_tty;
  if (options.statistics) {
    if (options.format == Format::kJson) {
      report::WriteStatisticsJson(results, report);
    } else {
      report::WriteStatisticsText(results, report);
    }
  } else if (options.format == Format::kJson) {
    report::WriteJson(results, report);
  } else if (options.format == Format::kSarif) {
    report::WriteSarif(results, report);
  } else if (options.format == Format::kGithub) {
    report::WriteGithub(results, report);
  } else {
    report::TextOptions text;
    text.color = options.color == ColorMode::kAlways ||
                 (options.color == ColorMode::kAuto && to_terminal && !env.no_color);
    text.summary = !options.quiet;
    text.verbose = options.verbose;
    report::WriteText(results, text, report);
  }
  if (options.output) {
    if (absl::Status written = WriteFileAtomically(*options.output, report.str()); !written.ok()) {
      err << kProgram << ": error: " << written.message() << "\n";
      return kExitError;
    }
  } else {
    out << report.str();
  }

  if (load_failed) return kExitError;
  return failing ? kExitFindings : kExitClean;
}

// What `shapes` and `probe` take: MODEL paths, --format text|json and --dims values.
struct SubcommandArgs {
  Format format = Format::kText;
  std::vector<std::string> models;
  std::vector<std::string> dims;  // each --dims value, in order
};

// Parses a subcommand's arguments; returns an exit code when that ends the command (--help,
// or a usage error).
std::optional<int> ParseSubcommand(std::string_view command, const std::vector<std::string>& args,
                                   std::ostream& out, std::ostream& err, SubcommandArgs& parsed) {
  for (size_t i = 0; i < args.size(); ++i) {
    std::string arg = args[i];
    if (arg == "-" || !absl::StartsWith(arg, "-")) {
      parsed.models.push_back(arg);
      continue;
    }
    if (arg == "--help" || arg == "-h") {
      out << kHelp;
      return kExitClean;
    }
    std::string value;
    if (size_t eq = arg.find('='); eq != arg.npos && (absl::StartsWith(arg, "--format=") ||
                                                      absl::StartsWith(arg, "--dims="))) {
      value = arg.substr(eq + 1);
      arg = arg.substr(0, eq);
    } else if (arg == "--format" || arg == "--dims") {
      if (i + 1 >= args.size()) return Usage(err, absl::StrCat("option '", arg, "' needs a value"));
      value = args[++i];
    } else {
      return Usage(err, absl::StrCat("unknown option '", arg, "' for ", std::string(command)));
    }
    if (arg == "--dims") {
      parsed.dims.push_back(value);
    } else if (value == "text" || value == "json") {
      parsed.format = value == "json" ? Format::kJson : Format::kText;
    } else {
      return Usage(
          err, absl::StrCat("invalid value '", value, "' for --format (expected text or json)"));
    }
  }
  if (parsed.models.empty()) return Usage(err, "no model given");
  return std::nullopt;
}

// `shapes MODEL...`: the engine's facts for every value.
int RunShapes(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  SubcommandArgs parsed;
  if (auto code = ParseSubcommand("shapes", args, out, err, parsed)) return *code;
  const Format format = parsed.format;
  const std::vector<std::string>& models = parsed.models;
  // The inferences below hold expressions until every report is written: the scope outlives
  // them, and frees their expressions at the end.
  sym::InternScope scope;
  sym::Binding dims;
  bool has_dims = false;
  for (const std::string& value : parsed.dims) {
    for (absl::string_view item : absl::StrSplit(value, ',', absl::SkipEmpty())) {
      std::pair<std::string, std::string> kv = absl::StrSplit(item, absl::MaxSplits('=', 1));
      int64_t size = 0;
      if (kv.first.empty() || !absl::SimpleAtoi(kv.second, &size) || size < 0) {
        return Usage(err, absl::StrCat("invalid size '", std::string(item),
                                       "' in --dims (expected NAME=SIZE, SIZE >= 0)"));
      }
      dims.Set(kv.first, size);
      has_dims = true;
    }
  }
  struct Loaded {
    std::unique_ptr<ir::Model> model;
    infer::Inference inference;
  };
  std::vector<std::unique_ptr<Loaded>> loaded;
  bool load_failed = false;
  std::vector<report::ShapesReport> reports;
  for (const std::string& path : models) {
    auto model = ir::LoadModel(path);
    if (!model.ok()) {
      err << kProgram << ": error: " << model.status().message() << "\n";
      load_failed = true;
      continue;
    }
    auto& l = loaded.emplace_back(std::make_unique<Loaded>());
    l->model = *std::move(model);
    l->inference = infer::Infer(*l->model);
    reports.push_back({path, l->model.get(), &l->inference, has_dims ? &dims : nullptr});
  }
  if (format == Format::kJson) {
    report::WriteShapesJson(reports, out);
  } else {
    for (const auto& r : reports) report::WriteShapesText(r, out);
  }
  return load_failed ? kExitError : kExitClean;
}

// `probe --dims SPEC MODEL...`: the model evaluated statically at the given sizes.
int RunProbe(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  SubcommandArgs parsed;
  if (auto code = ParseSubcommand("probe", args, out, err, parsed)) return *code;
  const Format format = parsed.format;
  const std::vector<std::string>& models = parsed.models;
  std::vector<std::pair<std::string, lint::ProbeSpec>> specs;
  for (const std::string& value : parsed.dims) {
    auto spec = lint::ParseProbeSpec(value);
    if (!spec.ok()) {
      return Usage(err, absl::StrCat(spec.status().message(), " in --dims '", value, "'"));
    }
    specs.emplace_back(value, *std::move(spec));
  }
  if (specs.empty()) return Usage(err, "probe needs at least one --dims");
  std::vector<report::ProbeReport> reports;
  bool failed = false, breaks = false;
  for (const std::string& path : models) {
    report::ProbeReport& r = reports.emplace_back();
    r.path = path;
    auto model = ir::LoadModel(path);
    if (!model.ok()) {
      r.error = WithoutSource(model.status().message(), path == "-" ? "<stdin>" : path);
      failed = true;
      continue;
    }
    auto results = lint::Probe(**model, specs);
    if (!results.ok()) {
      r.error = std::string(results.status().message());
      failed = true;
      continue;
    }
    for (const lint::ProbeResult& p : *results) breaks = breaks || p.breaks;
    r.probes = *std::move(results);
  }
  if (format == Format::kJson) {
    report::WriteProbeJson(reports, out);
  } else {
    report::WriteProbeText(reports, out);
  }
  if (failed) return kExitError;
  return breaks ? kExitFindings : kExitClean;
}

}  // namespace

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

int Run(const std::vector<std::string>& args, std::ostream& out, std::ostream& err,
        const Environment& env) {
  if (!args.empty() && args[0] == "probe") {
    try {
      return RunProbe({args.begin() + 1, args.end()}, out, err);
    } catch (const std::exception& e) {
      err << kProgram << ": internal error: " << e.what() << "\n";
      return kExitError;
    }
  }
  if (!args.empty() && args[0] == "shapes") {
    try {
      return RunShapes({args.begin() + 1, args.end()}, out, err);
    } catch (const std::exception& e) {
      err << kProgram << ": internal error: " << e.what() << "\n";
      return kExitError;
    }
  }
  // Per-model failures are caught in LintOne; this is for the rest (e.g. out of memory while
  // writing the report), so that the caller always gets an exit code and never an exception.
  try {
    return RunUnguarded(args, out, err, env);
  } catch (const std::exception& e) {
    err << kProgram << ": internal error: " << e.what() << "\n";
  } catch (...) {
    err << kProgram << ": internal error\n";
  }
  return kExitError;
}

}  // namespace shapelint::cli
