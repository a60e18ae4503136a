#include "tools/subcommands.h"

#include <algorithm>
#include <memory>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "shapelint/infer/engine.h"
#include "shapelint/lint/probe.h"
#include "shapelint/report/probe.h"
#include "shapelint/report/shapes.h"
#include "shapelint/sym/expr.h"
#include "tools/cli.h"
#include "tools/help.h"
#include "tools/model_inputs.h"
#include "tools/options.h"

namespace shapelint::cli {
namespace {

// The probes of `model` into `report`, or why they do not fit it.
std::optional<std::string> ProbeInto(
    const ir::Model& model, const std::vector<std::pair<std::string, lint::ProbeSpec>>& specs,
    report::ProbeReport& report) {
  return Guarded([&]() -> std::optional<std::string> {
    absl::StatusOr<std::vector<lint::ProbeResult>> results = lint::Probe(model, specs);
    if (!results.ok()) return std::string(results.status().message());
    report.probes = *std::move(results);
    return std::nullopt;
  });
}

// A model and what the engine infers for it, which a `shapes` report points into.
struct Inferred {
  std::unique_ptr<ir::Model> model;
  infer::Inference inference;
};

// What `shapes` reports of `input`, evaluated `at` the given sizes (or nullptr). The report
// points into what it adds to `kept`, which must outlive it.
report::ShapesReport ShapesOf(const ModelInput& input, const sym::Binding* at,
                              std::vector<std::unique_ptr<Inferred>>& kept) {
  report::ShapesReport r{.path = input.path, .error = input.error};
  if (r.error) return r;
  LoadedModel loaded = LoadForReport(input.path);
  r.error = std::move(loaded.error);
  if (r.error) return r;
  auto& one = kept.emplace_back(std::make_unique<Inferred>());
  one->model = std::move(loaded.model);
  r.error = Guarded([&]() -> std::optional<std::string> {
    one->inference = infer::Infer(*one->model);
    return std::nullopt;
  });
  if (r.error) return r;
  r.model = one->model.get();
  r.inference = &one->inference;
  r.at = at;
  return r;
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
  std::vector<std::unique_ptr<Inferred>> kept;
  std::vector<report::ShapesReport> reports;
  for (const ModelInput& input : ExpandModels(options.models)) {
    reports.push_back(ShapesOf(input, has_dims ? &dims : nullptr, kept));
  }
  if (options.format == Format::kJson) {
    report::WriteShapesJson(reports, out);
  } else {
    for (const auto& r : reports) report::WriteShapesText(r, out);
  }
  const bool load_failed = std::any_of(reports.begin(), reports.end(),
                                       [](const auto& r) { return r.error.has_value(); });
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
  for (const auto& [path, error] : ExpandModels(options.models)) {
    report::ProbeReport& r = reports.emplace_back();
    r.path = path;
    r.error = error;
    if (!r.error) {
      LoadedModel loaded = LoadForReport(path);
      r.error = std::move(loaded.error);
      if (!r.error) r.error = ProbeInto(*loaded.model, specs, r);
    }
    failed = failed || r.error.has_value();
    for (const lint::ProbeResult& p : r.probes) breaks = breaks || p.breaks;
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
