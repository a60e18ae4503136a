// `onnx-shapelint fix`: the thin command over lint::Fix.
#include "shapelint/lint/fix.h"
#include "tools/cli.h"
#include "tools/help.h"
#include "tools/lint_run.h"
#include "tools/options.h"
#include "tools/subcommands.h"
#include "tools/write_file.h"

namespace shapelint::cli {
namespace {

std::string Label(const lint::Finding& f) {
  return absl::StrCat(f.rule, " ", f.node.op_type, " '", f.node.label, "'");
}

void PrintResult(const std::string& path, const lint::FixResult& r, bool diff, std::ostream& out) {
  for (const lint::Finding& f : r.fixed) {
    out << path << ": fixed " << Label(f) << ": " << f.fix_it->description << "\n";
  }
  for (const lint::UnfixedFinding& u : r.unfixed) {
    out << path << ": left " << lint::SeverityName(u.finding.severity) << " " << Label(u.finding)
        << ": " << u.reason << "\n";
  }
  for (const std::string& note : r.notes) out << path << ": note: " << note << "\n";
  if (diff) {
    for (const std::string& line : r.diff) out << line << "\n";
  }
  out << r.fixed.size() << (r.fixed.size() == 1 ? " finding" : " findings") << " fixed, "
      << r.unfixed.size() << " left\n";
}

bool ErrorLeft(const lint::FixResult& r) {
  for (const lint::UnfixedFinding& u : r.unfixed) {
    if (u.finding.severity == lint::Severity::kError) return true;
  }
  return false;
}

}  // namespace

int RunFix(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  Options options;
  if (std::optional<UsageError> e = ParseArguments(args, FixOptionTable(), "fix", options)) {
    return ReportUsageError(err, e->message);
  }
  if (options.help) {
    out << HelpText();
    return kExitClean;
  }
  if (options.models.size() != 1 || options.models[0] == "-") {
    return ReportUsageError(err, "fix takes one model file");
  }
  if (!options.output && !options.diff) return ReportUsageError(err, "fix needs -o OUT or --diff");
  const std::string& path = options.models[0];
  // The input and every file it keeps weights in: fix never writes to a model.
  if (std::optional<std::string> refused =
          options.output ? OverwritesInput(*options.output, {path}) : std::nullopt) {
    err << kProgram << ": error: " << *refused << "; give another -o\n";
    return kExitError;
  }
  std::vector<ModelJob> jobs = PlanJobs(ExpandModels(options.models), options);
  if (jobs.size() != 1 || jobs[0].error) {
    err << kProgram
        << ": error: " << (jobs.size() == 1 ? *jobs[0].error : path + ": not a model file") << "\n";
    return kExitError;
  }
  absl::StatusOr<lint::FixResult> result =
      lint::FixFile(path, {.lint = jobs[0].options, .unsafe_fixes = options.unsafe_fixes});
  if (!result.ok()) {
    err << kProgram << ": error: " << result.status().message() << "\n";
    return kExitError;
  }
  std::string written = result->model;
  if (options.output && !options.diff) {
    absl::StatusOr<std::string> moved =
        lint::MoveExternalData(result->model, path, *options.output);
    if (!moved.ok()) {
      err << kProgram << ": error: " << moved.status().message() << "\n";
      return kExitError;
    }
    written = *std::move(moved);
  }
  PrintResult(path, *result, options.diff, out);
  if (options.output && !options.diff) {
    if (absl::Status st = WriteFileAtomically(*options.output, written); !st.ok()) {
      err << kProgram << ": error: " << st.message() << "\n";
      return kExitError;
    }
  }
  return ErrorLeft(*result) ? kExitFindings : kExitClean;
}

}  // namespace shapelint::cli
