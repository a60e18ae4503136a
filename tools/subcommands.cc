#include "tools/subcommands.h"

#include <memory>
#include <optional>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "shapelint/infer/engine.h"
#include "shapelint/ir/load.h"
#include "shapelint/lint/probe.h"
#include "shapelint/report/probe.h"
#include "shapelint/report/shapes.h"
#include "shapelint/sym/expr.h"
#include "tools/cli.h"
#include "tools/help.h"
#include "tools/options.h"

namespace shapelint::cli {
namespace {

// Load errors start with the path the loader was given; the report already shows the path.
std::string WithoutSource(absl::string_view message, const std::string& source) {
  const std::string prefix = source + ": ";
  if (absl::StartsWith(message, prefix)) message.remove_prefix(prefix.size());
  return std::string(message);
}

// Parses a subcommand's arguments; returns an exit code when that ends the command (--help,
// or a usage error).
std::optional<int> ParseSubcommand(std::string_view command, std::span<const OptionSpec> table,
                                   const std::vector<std::string>& args, std::ostream& out,
                                   std::ostream& err, Options& options) {
  if (std::optional<UsageError> e = ParseArguments(args, table, command, options)) {
    return ReportUsageError(err, e->message);
  }
  if (options.help) {
    out << HelpText();
    return kExitClean;
  }
  if (options.models.empty()) return ReportUsageError(err, "no model given");
  return std::nullopt;
}

}  // namespace

int RunShapes(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  Options options;
  if (auto code = ParseSubcommand("shapes", ShapesOptionTable(), args, out, err, options)) {
    return *code;
  }
  // The inferences below hold expressions until every report is written: the scope outlives
  // them, and frees their expressions at the end.
  sym::InternScope scope;
  sym::Binding dims;
  bool has_dims = false;
  for (const std::string& value : options.dims) {
    absl::StatusOr<lint::ProbeSpec> sizes = ParseSizeList("--dims", value, lint::kNamedSizes);
    if (!sizes.ok()) return ReportUsageError(err, std::string(sizes.status().message()));
    for (const auto& [name, size] : sizes->sizes) dims.Set(name, size);
    has_dims = true;
  }
  struct Loaded {
    std::unique_ptr<ir::Model> model;
    infer::Inference inference;
  };
  std::vector<std::unique_ptr<Loaded>> loaded;
  bool load_failed = false;
  std::vector<report::ShapesReport> reports;
  for (const std::string& path : options.models) {
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
  if (options.format == Format::kJson) {
    report::WriteShapesJson(reports, out);
  } else {
    for (const auto& r : reports) report::WriteShapesText(r, out);
  }
  return load_failed ? kExitError : kExitClean;
}

int RunProbe(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  Options options;
  if (auto code = ParseSubcommand("probe", ProbeOptionTable(), args, out, err, options)) {
    return *code;
  }
  std::vector<std::pair<std::string, lint::ProbeSpec>> specs;
  for (const std::string& value : options.dims) {
    absl::StatusOr<lint::ProbeSpec> spec = ParseSizeList("--dims", value, lint::kProbeSizes);
    if (!spec.ok()) return ReportUsageError(err, std::string(spec.status().message()));
    specs.emplace_back(value, *std::move(spec));
  }
  if (specs.empty()) return ReportUsageError(err, "probe needs at least one --dims");
  std::vector<report::ProbeReport> reports;
  bool failed = false, breaks = false;
  for (const std::string& path : options.models) {
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
  if (options.format == Format::kJson) {
    report::WriteProbeJson(reports, out);
  } else {
    report::WriteProbeText(reports, out);
  }
  if (failed) return kExitError;
  return breaks ? kExitFindings : kExitClean;
}

}  // namespace shapelint::cli
