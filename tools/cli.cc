#include "tools/cli.h"

#include <algorithm>
#include <cstddef>
#include <exception>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "shapelint/infer/engine.h"
#include "shapelint/ir/load.h"
#include "shapelint/lint/finding.h"
#include "shapelint/lint/lint.h"
#include "shapelint/lint/probe.h"
#include "shapelint/report/probe.h"
#include "shapelint/report/report.h"
#include "shapelint/report/shapes.h"

namespace shapelint::cli {
namespace {

constexpr std::string_view kProgram = "onnx-shapelint";

// Keep in sync with docs/cli.md.
constexpr std::string_view kHelp =
    R"(Usage: onnx-shapelint [OPTIONS] MODEL...
       onnx-shapelint shapes [--format FORMAT] [--dims NAME=SIZE,...] MODEL...
       onnx-shapelint probe [--format FORMAT] --dims SIZES [--dims SIZES]... MODEL...

Finds sizes of the example input baked into ONNX models exported with dynamic
axes: graphs that work at the export size and fail, or silently return another
shape, at other sizes of the axes they declare dynamic.

MODEL is a serialized ONNX model (.onnx), a model in ONNX text format
(.onnxtxt), or '-' for standard input. Every model is reported, even when
some cannot be loaded.

Options:
  --format FORMAT     Report format: 'text' (default), compiler-style lines
                      for people, or 'json', one document for tools
                      (see docs/json-format.md).
  --fail-on SEVERITY  Exit with 1 when a finding at or above SEVERITY exists:
                      'error' (default), 'warning' or 'note'.
  --select RULES      Run only these rules: a comma-separated list of codes
                      or names (SL001,baked-pool-kernel); may be repeated.
                      Default: every rule.
  --export-dims SIZES The sizes the model was exported at (the example input
                      given to the exporter), in --dims syntax without ranges:
                      x=2x3x224x224 or batch=2,height=224. Literals equal to a
                      size derived from them are then reported too (SL007,
                      SL008): a Slice end of height // 2, a Gather of the
                      last row, a mean divided by the example width.
  --color WHEN        Colour the text report: 'auto' (default; only when
                      standard output is a terminal and NO_COLOR is unset),
                      'always' or 'never'.
  --list-rules        Print every rule (code, name, summary) and exit.
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

enum class Format { kText, kJson };
enum class ColorMode { kAuto, kAlways, kNever };

struct Options {
  Format format = Format::kText;
  lint::Severity fail_on = lint::Severity::kError;
  ColorMode color = ColorMode::kAuto;
  std::vector<std::string> select;  // rule codes, validated
  std::optional<lint::ProbeSpec> export_dims;
  bool list_rules = false;
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

// The code of the rule named by `item` (a code or a name, any case), or nullopt.
std::optional<std::string> FindRule(const std::string& item) {
  for (const lint::RuleInfo& rule : lint::AllRules()) {
    if (absl::EqualsIgnoreCase(item, std::string(rule.code)) ||
        absl::EqualsIgnoreCase(item, std::string(rule.name))) {
      return std::string(rule.code);
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
    } else {
      return invalid("text or json");
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
    for (absl::string_view piece : absl::StrSplit(value, ',')) {
      std::string item(absl::StripAsciiWhitespace(piece));
      if (item.empty()) {
        return UsageError{absl::StrCat("empty rule name in --select '", value, "'")};
      }
      std::optional<std::string> code = FindRule(item);
      if (!code) {
        return UsageError{absl::StrCat("unknown rule '", item, "' in --select (see --list-rules)")};
      }
      if (std::find(options.select.begin(), options.select.end(), *code) == options.select.end()) {
        options.select.push_back(*std::move(code));
      }
    }
  }
  return std::nullopt;
}

bool TakesValue(const std::string& option) {
  return option == "--format" || option == "--fail-on" || option == "--select" ||
         option == "--color" || option == "--export-dims";
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

report::ModelResult LintOne(const std::string& path, const lint::LintOptions& lint_options) {
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
  } catch (const std::bad_alloc&) {
    result.error = "out of memory";
  } catch (const std::exception& e) {
    result.error = absl::StrCat("internal error: ", e.what());
  } catch (...) {
    result.error = "internal error";
  }
  return result;
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
    const bool is_flag =
        option == "--help" || option == "-h" || option == "--version" || option == "--list-rules";
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
    options.list_rules = true;
  }

  if (options.list_rules) {
    ListRules(out);
    return kExitClean;
  }
  if (options.models.empty()) return Usage(err, "no model given");
  if (std::count(options.models.begin(), options.models.end(), "-") > 1) {
    return Usage(err, "'-' (standard input) can be given only once");
  }

  lint::LintOptions lint_options;
  lint_options.select = options.select;
  lint_options.export_dims = options.export_dims;
  std::vector<report::ModelResult> results;
  results.reserve(options.models.size());
  bool load_failed = false;
  bool failing = false;
  for (const std::string& path : options.models) {
    report::ModelResult result = LintOne(path, lint_options);
    if (result.error) load_failed = true;
    for (const lint::Finding& f : result.findings) {
      if (static_cast<int>(f.severity) >= static_cast<int>(options.fail_on)) failing = true;
    }
    results.push_back(std::move(result));
  }

  if (options.format == Format::kJson) {
    report::WriteJson(results, out);
  } else {
    report::TextOptions text;
    text.color = options.color == ColorMode::kAlways ||
                 (options.color == ColorMode::kAuto && env.stdout_is_tty && !env.no_color);
    report::WriteText(results, text, out);
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
