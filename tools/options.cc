#include "tools/options.h"

#include <algorithm>
#include <array>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "shapelint/lint/config.h"
#include "tools/cli.h"

namespace shapelint::cli {
namespace {

// --jobs above this is surely a typo; it would only start threads that wait.
constexpr int kMaxJobs = 1024;

using Result = std::optional<UsageError>;

UsageError Invalid(const std::string& option, const std::string& value, const char* expected) {
  return UsageError{
      absl::StrCat("invalid value '", value, "' for ", option, " (expected ", expected, ")")};
}

Result ApplyFormat(const std::string& option, const std::string& value, Options& options) {
  if (value == "text") {
    options.format = Format::kText;
  } else if (value == "json") {
    options.format = Format::kJson;
  } else if (value == "sarif") {
    options.format = Format::kSarif;
  } else if (value == "github") {
    options.format = Format::kGithub;
  } else if (value == "html") {
    options.format = Format::kHtml;
  } else {
    return Invalid(option, value, "text, json, sarif, github or html");
  }
  return std::nullopt;
}

// `shapes` and `probe` write text or JSON only.
Result ApplyTextOrJson(const std::string& option, const std::string& value, Options& options) {
  if (value != "text" && value != "json") return Invalid(option, value, "text or json");
  options.format = value == "json" ? Format::kJson : Format::kText;
  return std::nullopt;
}

Result ApplyFailOn(const std::string& option, const std::string& value, Options& options) {
  std::optional<lint::Severity> severity = lint::ParseSeverity(value);
  if (!severity) return Invalid(option, value, "error, warning or note");
  options.fail_on = *severity;
  return std::nullopt;
}

Result ApplyColor(const std::string& option, const std::string& value, Options& options) {
  if (value == "auto") {
    options.color = ColorMode::kAuto;
  } else if (value == "always") {
    options.color = ColorMode::kAlways;
  } else if (value == "never") {
    options.color = ColorMode::kNever;
  } else {
    return Invalid(option, value, "auto, always or never");
  }
  return std::nullopt;
}

Result ApplyExportDims(const std::string& option, const std::string& value, Options& options) {
  absl::StatusOr<lint::ProbeSpec> spec = ParseSizeList(option, value, lint::kExportSizes);
  if (!spec.ok()) return UsageError{std::string(spec.status().message())};
  // Repeated --export-dims add up, for models with several inputs.
  if (!options.export_dims) options.export_dims = lint::ProbeSpec{};
  for (auto& s : spec->sizes) options.export_dims->sizes.push_back(std::move(s));
  for (auto& s : spec->shapes) options.export_dims->shapes.push_back(std::move(s));
  return std::nullopt;
}

// Adds the rules of a comma-separated `value` of `option` to `codes`, once each.
Result AddRules(const std::string& option, const std::string& value,
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

Result ApplySelect(const std::string& option, const std::string& value, Options& options) {
  if (!options.select) options.select.emplace();
  return AddRules(option, value, *options.select);
}

Result ApplyExtendSelect(const std::string& option, const std::string& value, Options& options) {
  return AddRules(option, value, options.extend_select);
}

Result ApplyIgnore(const std::string& option, const std::string& value, Options& options) {
  return AddRules(option, value, options.ignore);
}

Result ApplyDynamic(const std::string& option, const std::string& value, Options& options) {
  for (absl::string_view item : absl::StrSplit(value, ',', absl::SkipEmpty())) {
    absl::StatusOr<lint::DynamicAxis> axis = lint::ParseDynamicAxis(std::string(item));
    if (!axis.ok()) return UsageError{absl::StrCat(axis.status().message(), " in ", option)};
    options.dynamic.push_back(*std::move(axis));
  }
  return std::nullopt;
}

Result ApplyStatic(const std::string& option, const std::string& value, Options& options) {
  absl::StatusOr<lint::ProbeSpec> spec = ParseSizeList(option, value, lint::kNamedSizes);
  if (!spec.ok()) return UsageError{std::string(spec.status().message())};
  for (auto& s : spec->sizes) options.static_dims.push_back(std::move(s));
  return std::nullopt;
}

// `shapes` and `probe` parse their --dims once the command is known: the forms differ.
Result ApplyDims(const std::string& /*option*/, const std::string& value, Options& options) {
  options.dims.push_back(value);
  return std::nullopt;
}

// A file name, for --config, --baseline, --write-baseline and --output.
Result SetFile(const std::string& option, const std::string& value,
               std::optional<std::string>& file) {
  if (value.empty()) return Invalid(option, value, "a file name");
  file = value;
  return std::nullopt;
}

Result ApplyOutput(const std::string& option, const std::string& value, Options& options) {
  return SetFile(option, value, options.output);
}

Result ApplyConfig(const std::string& option, const std::string& value, Options& options) {
  return SetFile(option, value, options.config);
}

Result ApplyBaseline(const std::string& option, const std::string& value, Options& options) {
  return SetFile(option, value, options.baseline);
}

Result ApplyWriteBaseline(const std::string& option, const std::string& value, Options& options) {
  return SetFile(option, value, options.write_baseline);
}

Result ApplyJobs(const std::string& option, const std::string& value, Options& options) {
  int jobs = 0;
  if (!absl::SimpleAtoi(value, &jobs) || jobs < 1 || jobs > kMaxJobs) {
    return Invalid(option, value, "a number of models from 1 to 1024");
  }
  options.jobs = jobs;
  return std::nullopt;
}

Result ApplyExplain(const std::string& option, const std::string& value, Options& options) {
  // The severity policy, which every rule follows, has a page of its own (docs/severity.md).
  if (value == "severity") {
    options.explain = value;
    return std::nullopt;
  }
  std::vector<std::string> codes = lint::RulesMatching(value);
  if (codes.size() != 1) {
    return UsageError{absl::StrCat("unknown rule '", value, "' for ", option,
                                   " (see --list-rules; 'severity' explains the severity policy)")};
  }
  options.explain = codes[0];
  return std::nullopt;
}

// A flag: sets its field; the value is always empty.
template <bool Options::*kField>
Result ApplyFlag(const std::string&, const std::string&, Options& options) {
  options.*kField = true;
  return std::nullopt;
}

// Keep in sync with docs/cli.md (a test checks that it names every option listed here).
constexpr std::array kLintOptions = {
    OptionSpec{.name = "--format",
               .value_name = "FORMAT",
               .help = "Report format: 'text' (default), compiler-style lines\n"
                       "for people; 'json', one document for tools (see\n"
                       "docs/json-format.md); 'sarif', SARIF 2.1.0 for code\n"
                       "scanning (docs/sarif.md); 'github', GitHub Actions\n"
                       "workflow commands that annotate the files; 'html', one\n"
                       "self-contained page that draws each finding's path\n"
                       "through the graph (docs/html.md).",
               .apply = ApplyFormat},
    OptionSpec{.name = "--output",
               .value_name = "FILE",
               .help = "Write the report to FILE instead of standard output\n"
                       "(written to a temporary file first, then renamed, so\n"
                       "an interrupted run never leaves half a report).",
               .apply = ApplyOutput},
    OptionSpec{.name = "--fail-on",
               .value_name = "SEVERITY",
               .help = "Exit with 1 when a finding at or above SEVERITY exists:\n"
                       "'error' (default), 'warning' or 'note'.",
               .apply = ApplyFailOn},
    OptionSpec{.name = "--select",
               .value_name = "RULES",
               .help = "Run only these rules: a comma-separated list of codes,\n"
                       "code prefixes or names (SL001,SL00,baked-pool-kernel,\n"
                       "ALL); may be repeated. Default: every rule.",
               .apply = ApplySelect},
    OptionSpec{.name = "--extend-select",
               .value_name = "RULES",
               .help = "Add these rules to the selection.",
               .apply = ApplyExtendSelect},
    OptionSpec{.name = "--ignore",
               .value_name = "RULES",
               .help = "Do not run these rules, even when selected.",
               .apply = ApplyIgnore},
    OptionSpec{.name = "--quiet",
               .help = "Text report: print the findings only, without the\n"
                       "summary line.",
               .apply = ApplyFlag<&Options::quiet>},
    OptionSpec{.name = "--verbose",
               .alias = "-v",
               .help = "Text report: add the symbolic expressions behind each\n"
                       "finding (the failing requirements, the node's shapes).",
               .apply = ApplyFlag<&Options::verbose>},
    OptionSpec{.name = "--statistics",
               .help = "Print how many findings each rule has instead of the\n"
                       "findings ('text' or 'json').",
               .apply = ApplyFlag<&Options::statistics>},
    OptionSpec{.name = "--jobs",
               .value_name = "N",
               .help = "Lint at most N models at once (default: one per core).",
               .apply = ApplyJobs},
    OptionSpec{.name = "--export-dims",
               .value_name = "SIZES",
               .help = "The sizes the model was exported at (the example input\n"
                       "given to the exporter), in --dims syntax without ranges:\n"
                       "x=2x3x224x224 or batch=2,height=224 (a NAME that is no\n"
                       "dim but a 1-D input gives its length: lengths=2).\n"
                       "Literals equal to a size derived from them are then\n"
                       "reported too (SL007, SL008): a Slice end of height // 2,\n"
                       "a Gather of the last row, a mean divided by the example\n"
                       "width.",
               .apply = ApplyExportDims},
    OptionSpec{.name = "--dynamic",
               .value_name = "INPUT:AXIS[=NAME]",
               .help = "Lint as if the model declared this input axis dynamic\n"
                       "(named NAME), whatever it declares: which literals\n"
                       "would break if it were exported dynamic? Comma-\n"
                       "separated, may be repeated.",
               .apply = ApplyDynamic},
    OptionSpec{.name = "--static",
               .value_name = "NAME=SIZE",
               .help = "Lint as if the input dim NAME were fixed to SIZE.\n"
                       "Comma-separated, may be repeated.",
               .apply = ApplyStatic},
    OptionSpec{.name = "--config",
               .value_name = "FILE",
               .help = "Use this configuration file (.onnx-shapelint.json or a\n"
                       "pyproject.toml) for every model, instead of looking for\n"
                       "the nearest one above each model (docs/configuration.md).",
               .apply = ApplyConfig},
    OptionSpec{.name = "--isolated",
               .help = "Use no configuration file at all.",
               .apply = ApplyFlag<&Options::isolated>},
    OptionSpec{.name = "--baseline",
               .value_name = "FILE",
               .help = "Report only findings that FILE does not hold: adopt the\n"
                       "linter and fail on new findings only.",
               .apply = ApplyBaseline},
    OptionSpec{.name = "--write-baseline",
               .value_name = "FILE",
               .help = "Record the findings in FILE as the baseline; exits 0\n"
                       "unless a model cannot be loaded.",
               .apply = ApplyWriteBaseline},
    OptionSpec{.name = "--color",
               .value_name = "WHEN",
               .help = "Colour the text report: 'auto' (default; only when\n"
                       "standard output is a terminal and NO_COLOR is unset),\n"
                       "'always' or 'never'.",
               .apply = ApplyColor},
    OptionSpec{.name = "--list-rules",
               .help = "Print every rule (code, name, summary) and exit.",
               .apply = ApplyFlag<&Options::list_rules>},
    OptionSpec{.name = "--explain",
               .value_name = "CODE",
               .help = "Print a rule's documentation (by code or name), or\n"
                       "the severity policy ('severity'), and exit.",
               .apply = ApplyExplain},
    OptionSpec{.name = "--version",
               .help = "Print the version and exit.",
               .apply = ApplyFlag<&Options::version>,
               .acts_at_once = true},
    OptionSpec{.name = "--help",
               .alias = "-h",
               .help = "Print this help and exit.",
               .apply = ApplyFlag<&Options::help>,
               .acts_at_once = true},
    OptionSpec{.name = "--",
               .help = "End of options: every later argument is a MODEL.",
               .ends_options = true},
};

// The subcommands' --help and "--" are not listed in their sections of --help, which is the
// same page as linting's.
constexpr OptionSpec kSubcommandHelp{
    .name = "--help", .alias = "-h", .apply = ApplyFlag<&Options::help>, .acts_at_once = true};
constexpr OptionSpec kSubcommandEnd{.name = "--", .ends_options = true};

constexpr std::array kShapesOptions = {
    OptionSpec{.name = "--format",
               .value_name = "FORMAT",
               .help = "'text' (default) or 'json'.",
               .apply = ApplyTextOrJson},
    OptionSpec{.name = "--dims",
               .value_name = "NAME=SIZE",
               .help = "Also evaluate every dim with these sizes for the input\n"
                       "dims (comma-separated, may be repeated): batch=2,seq=128.",
               .apply = ApplyDims},
    kSubcommandHelp,
    kSubcommandEnd,
};

// `probe`'s section of --help describes its --dims in prose, SIZES form by form.
constexpr std::array kProbeOptions = {
    OptionSpec{.name = "--format", .value_name = "FORMAT", .apply = ApplyTextOrJson},
    OptionSpec{.name = "--dims", .value_name = "SIZES", .apply = ApplyDims},
    kSubcommandHelp,
    kSubcommandEnd,
};

// `fix` reads the rules and sizes as linting does; its section of --help lists its own.
constexpr std::array kFixOptions = {
    OptionSpec{.name = "--output",
               .alias = "-o",
               .value_name = "OUT",
               .help = "Write the fixed model to OUT (never the input itself;\n"
                       "written to a temporary file, then renamed).",
               .apply = ApplyOutput},
    OptionSpec{.name = "--diff",
               .help = "Print the graph changes (nodes added, removed and\n"
                       "rewired, declarations) instead of writing a model.",
               .apply = ApplyFlag<&Options::diff>},
    OptionSpec{.name = "--unsafe-fixes",
               .help = "Also apply fixes that change outputs where the model\n"
                       "works (docs/fix.md).",
               .apply = ApplyFlag<&Options::unsafe_fixes>},
    OptionSpec{.name = "--select", .value_name = "RULES", .apply = ApplySelect},
    OptionSpec{.name = "--extend-select", .value_name = "RULES", .apply = ApplyExtendSelect},
    OptionSpec{.name = "--ignore", .value_name = "RULES", .apply = ApplyIgnore},
    OptionSpec{.name = "--export-dims", .value_name = "SIZES", .apply = ApplyExportDims},
    OptionSpec{.name = "--dynamic", .value_name = "INPUT:AXIS[=NAME]", .apply = ApplyDynamic},
    OptionSpec{.name = "--static", .value_name = "NAME=SIZE", .apply = ApplyStatic},
    OptionSpec{.name = "--config", .value_name = "FILE", .apply = ApplyConfig},
    OptionSpec{.name = "--isolated", .apply = ApplyFlag<&Options::isolated>},
    kSubcommandHelp,
    kSubcommandEnd,
};

const OptionSpec* Find(std::span<const OptionSpec> table, const std::string& option) {
  for (const OptionSpec& spec : table) {
    if (option == spec.name || (!spec.alias.empty() && option == spec.alias)) return &spec;
  }
  return nullptr;
}

bool IsOperand(const std::string& arg) { return arg == "-" || !absl::StartsWith(arg, "-"); }

}  // namespace

absl::StatusOr<lint::ProbeSpec> ParseSizeList(const std::string& option, const std::string& value,
                                              lint::SizeSyntax syntax) {
  absl::StatusOr<lint::ProbeSpec> spec = lint::ParseSizes(value, syntax);
  if (!spec.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(spec.status().message(), " in ", option, " '", value, "'"));
  }
  return spec;
}

std::span<const OptionSpec> LintOptionTable() { return kLintOptions; }
std::span<const OptionSpec> ShapesOptionTable() { return kShapesOptions; }
std::span<const OptionSpec> ProbeOptionTable() { return kProbeOptions; }
std::span<const OptionSpec> FixOptionTable() { return kFixOptions; }

std::optional<UsageError> ParseArguments(const std::vector<std::string>& args,
                                         std::span<const OptionSpec> table,
                                         std::string_view command, Options& options) {
  bool options_ended = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (options_ended || IsOperand(arg)) {
      options.models.push_back(arg);
      continue;
    }
    std::string option = arg;
    std::optional<std::string> inline_value;
    if (size_t eq = option.find('='); absl::StartsWith(option, "--") && eq != option.npos) {
      inline_value = option.substr(eq + 1);
      option = option.substr(0, eq);
    }
    const OptionSpec* spec = Find(table, option);
    if (spec == nullptr) {
      return UsageError{absl::StrCat("unknown option '", option, "'",
                                     command.empty() ? "" : " for ", std::string(command))};
    }
    std::string value;
    if (spec->takes_value()) {
      if (inline_value) {
        value = *inline_value;
      } else if (i + 1 < args.size() && IsOperand(args[i + 1])) {
        // An argument that looks like an option is not taken as a value: "--select --format
        // json" is a missing value, not an unknown rule named "--format".
        value = args[++i];
      } else {
        return UsageError{absl::StrCat("option '", option, "' needs a value")};
      }
    } else if (inline_value) {
      return UsageError{absl::StrCat("option '", option, "' takes no value")};
    }
    if (spec->ends_options) {
      options_ended = true;
      continue;
    }
    if (Result error = spec->apply(option, value, options)) return error;
    // Like most tools, --help and --version act as soon as they are seen.
    if (spec->acts_at_once) break;
  }
  return std::nullopt;
}

int ReportUsageError(std::ostream& err, std::string_view message) {
  err << kProgram << ": error: " << message << "\n"
      << "Try '" << kProgram << " --help' for more information.\n";
  return kExitError;
}

}  // namespace shapelint::cli
