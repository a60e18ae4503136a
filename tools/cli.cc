// The command line: linting (the default command), and dispatch to the subcommands.
#include "tools/cli.h"

#include <algorithm>
#include <exception>
#include <filesystem>
#include <optional>
#include <sstream>
#include <string>
#include <system_error>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "shapelint/lint/finding.h"
#include "shapelint/lint/lint.h"
#include "shapelint/report/baseline.h"
#include "shapelint/report/report.h"
#include "tools/help.h"
#include "tools/lint_run.h"
#include "tools/options.h"
#include "tools/rule_docs.h"
#include "tools/subcommands.h"
#include "tools/write_file.h"

namespace shapelint::cli {
namespace {

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

// The root of the repository a SARIF log is for (docs/sarif.md): the nearest directory with a
// .git entry from the current directory up (the checkout, where code scanning resolves paths),
// else the current directory. Found without running git, which need not be installed.
std::string SourceRoot() {
  std::error_code ec;
  const std::filesystem::path cwd = std::filesystem::current_path(ec);
  if (ec) return "";
  for (std::filesystem::path dir = cwd; !dir.empty(); dir = dir.parent_path()) {
    if (std::filesystem::exists(dir / ".git", ec)) return dir.string();
    if (dir == dir.parent_path()) break;
  }
  return cwd.string();
}

// The report in the format the options ask for.
std::string Report(const std::vector<report::ModelResult>& results, const Options& options,
                   const Environment& env) {
  std::ostringstream report;
  if (options.statistics) {
    if (options.format == Format::kJson) {
      report::WriteStatisticsJson(results, report);
    } else {
      report::WriteStatisticsText(results, report);
    }
  } else if (options.format == Format::kJson) {
    report::WriteJson(results, report);
  } else if (options.format == Format::kSarif) {
    report::WriteSarif(results, {.source_root = SourceRoot()}, report);
  } else if (options.format == Format::kGithub) {
    report::WriteGithub(results, report);
  } else if (options.format == Format::kHtml) {
    report::WriteHtml(results, report);
  } else {
    const bool to_terminal = !options.output && env.stdout_is_tty;
    report::TextOptions text;
    text.color = options.color == ColorMode::kAlways ||
                 (options.color == ColorMode::kAuto && to_terminal && !env.no_color);
    text.summary = !options.quiet;
    text.verbose = options.verbose;
    report::WriteText(results, text, report);
  }
  return std::move(report).str();
}

// What linting `options.models` is, after the options were read: the baselines, the report
// and the exit code.
int Lint(const Options& options, std::ostream& out, std::ostream& err, const Environment& env) {
  std::vector<ModelJob> jobs = PlanJobs(ExpandModels(options.models), options);
  // Before any work: the report or baseline must not replace a model of the run (a directory
  // argument's models too) or its weights.
  std::vector<std::string> paths;
  paths.reserve(jobs.size());
  for (const ModelJob& job : jobs) paths.push_back(job.path);
  for (const std::optional<std::string>& target : {options.output, options.write_baseline}) {
    if (!target) continue;
    if (std::optional<std::string> refused = OverwritesInput(*target, paths)) {
      err << kProgram << ": error: " << *refused << "\n";
      return kExitError;
    }
  }
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

  const std::string report = Report(results, options, env);
  if (options.output) {
    if (absl::Status written = WriteFileAtomically(*options.output, report); !written.ok()) {
      err << kProgram << ": error: " << written.message() << "\n";
      return kExitError;
    }
  } else {
    out << report;
  }
  if (load_failed) return kExitError;
  return failing ? kExitFindings : kExitClean;
}

int RunUnguarded(const std::vector<std::string>& args, std::ostream& out, std::ostream& err,
                 const Environment& env) {
  if (!args.empty() && args[0] == "probe")
    return RunProbe({args.begin() + 1, args.end()}, out, err);
  if (!args.empty() && args[0] == "confirm") {
    return RunConfirm({args.begin() + 1, args.end()}, out, err);
  }
  if (!args.empty() && args[0] == "fix") return RunFix({args.begin() + 1, args.end()}, out, err);
  if (!args.empty() && args[0] == "shapes") {
    return RunShapes({args.begin() + 1, args.end()}, out, err);
  }
  Options options;
  if (std::optional<UsageError> e = ParseArguments(args, LintOptionTable(), "", options)) {
    return ReportUsageError(err, e->message);
  }
  if (options.help) {
    out << HelpText();
    return kExitClean;
  }
  if (options.version) {
    out << kProgram << " " << lint::Version() << "\n";
    return kExitClean;
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
  if (options.models.empty()) return ReportUsageError(err, "no model given");
  if (std::count(options.models.begin(), options.models.end(), "-") > 1) {
    return ReportUsageError(err, "'-' (standard input) can be given only once");
  }
  if (options.statistics && options.format != Format::kText && options.format != Format::kJson) {
    return ReportUsageError(err, "--statistics writes 'text' or 'json' only");
  }
  return Lint(options, out, err, env);
}

}  // namespace

int Run(const std::vector<std::string>& args, std::ostream& out, std::ostream& err,
        const Environment& env) {
  // Per-model failures are caught where each model is linted; this is for the rest (e.g. out
  // of memory while writing the report), so that the caller always gets an exit code and never
  // an exception.
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
