// The command line's options: one table per command, from which the arguments are parsed and
// --help is written (tools/help.cc).
#ifndef SHAPELINT_TOOLS_OPTIONS_H_
#define SHAPELINT_TOOLS_OPTIONS_H_

#include <cstdint>
#include <optional>
#include <ostream>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "shapelint/lint/finding.h"
#include "shapelint/lint/lint.h"
#include "shapelint/lint/probe.h"

namespace shapelint::cli {

inline constexpr std::string_view kProgram = "onnx-shapelint";

enum class Format { kText, kJson, kSarif, kGithub, kHtml };
enum class ColorMode { kAuto, kAlways, kNever };

// What the options of any command set. Each command reads the fields its table fills in.
struct Options {
  Format format = Format::kText;
  std::optional<lint::Severity> fail_on;  // unset: the configuration's, else error
  ColorMode color = ColorMode::kAuto;
  std::optional<std::vector<std::string>> select;  // rule codes, validated; unset: all
  std::vector<std::string> extend_select, ignore;  // rule codes, validated
  std::optional<lint::ProbeSpec> export_dims;
  std::vector<lint::DynamicAxis> dynamic;
  std::vector<std::pair<std::string, int64_t>> static_dims;
  std::vector<std::string> dims;  // `shapes` and `probe`: each --dims value, in order
  std::optional<std::string> output;
  bool quiet = false;
  bool verbose = false;
  bool statistics = false;
  bool unsafe_fixes = false;          // `fix`: apply unsafe fix-its too
  bool diff = false;                  // `fix`: print the graph changes instead of writing
  int jobs = 0;                       // 0: one per core
  std::optional<std::string> config;  // --config: this file for every model
  bool isolated = false;              // --isolated: no configuration file at all
  std::optional<std::string> baseline, write_baseline;
  bool list_rules = false;
  std::optional<std::string> explain;
  bool help = false;
  bool version = false;
  std::vector<std::string> models;
};

// A problem with the command line; reported with a pointer to --help.
struct UsageError {
  std::string message;
};

// What an option does with its value (empty for a flag). `option` is the name it was given as,
// for messages. Debian's Abseil has its own absl::string_view, which std::string_view does not
// convert to: option text is kept in std::string so it can go to absl::StrCat as is.
using ApplyOption = std::optional<UsageError> (*)(const std::string& option,
                                                  const std::string& value, Options& options);

// One option of a command.
struct OptionSpec {
  std::string_view name = {};        // "--format"
  std::string_view alias = {};       // "-v" for --verbose; empty when there is none
  std::string_view value_name = {};  // "FORMAT" when the option takes a value; empty for a flag
  // What --help says of it, broken into lines where --help prints them; empty for an option
  // that the command's section of --help does not list.
  std::string_view help = {};
  ApplyOption apply = nullptr;  // nullptr only for the end of options ("--")
  bool acts_at_once = false;    // --help and --version: the later arguments are not read
  bool ends_options = false;    // "--": every later argument is a MODEL
  bool takes_value() const { return !value_name.empty(); }
};

// The options of linting (onnx-shapelint [OPTIONS] MODEL...), of `shapes` and of `probe`.
std::span<const OptionSpec> LintOptionTable();
std::span<const OptionSpec> ShapesOptionTable();
std::span<const OptionSpec> ProbeOptionTable();
std::span<const OptionSpec> FixOptionTable();

// Reads `args` by the options in `table` into `options`; other arguments are MODELs. A value
// follows its option as the next argument, or after '=' (--format=json); an argument that
// starts with '-' is not taken as a value. `command` names a subcommand in messages ("" for
// linting). Stops at the first problem, or after an option that acts at once.
std::optional<UsageError> ParseArguments(const std::vector<std::string>& args,
                                         std::span<const OptionSpec> table,
                                         std::string_view command, Options& options);

// The sizes `value` of `option` lists (lint::ParseSizes); an error names the option and the
// whole value after the item at fault.
absl::StatusOr<lint::ProbeSpec> ParseSizeList(const std::string& option, const std::string& value,
                                              lint::SizeSyntax syntax);

// Prints a usage error with the pointer to --help; returns the exit code for it.
int ReportUsageError(std::ostream& err, std::string_view message);

}  // namespace shapelint::cli

#endif  // SHAPELINT_TOOLS_OPTIONS_H_
