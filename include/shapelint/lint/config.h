// Configuration files: `.onnx-shapelint.json`, or a `[tool.onnx-shapelint]` table in
// `pyproject.toml`, found by walking up from each model's directory (docs/configuration.md).
//
// Precedence, lowest first: the built-in defaults, the configuration file, its `per-path`
// entries that match the model (in file order), then the command line.
#ifndef SHAPELINT_LINT_CONFIG_H_
#define SHAPELINT_LINT_CONFIG_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "shapelint/lint/finding.h"
#include "shapelint/lint/lint.h"

namespace shapelint::lint {

// What a configuration layer (a file, a per-path entry, the command line) may set. Unset
// fields leave the layer below as it is; lists of rules to add or ignore add up.
struct Settings {
  std::optional<std::vector<std::string>> select;  // rule codes; replaces the selection
  std::vector<std::string> extend_select;          // rule codes added to the selection
  std::vector<std::string> ignore;                 // rule codes never run
  std::optional<Severity> fail_on;
  std::optional<ProbeSpec> export_dims;
  std::vector<DynamicAxis> dynamic;
  std::vector<std::pair<std::string, int64_t>> static_dims;

  // `over` laid on top of this.
  void Overlay(const Settings& over);
  // The lint options these settings give.
  LintOptions ToLintOptions() const;
};

// A finding the repository has decided to keep: its rule (code, prefix or name), the node's
// name or label, and optionally the models it applies to (a glob, relative to the
// configuration file's directory).
struct Suppression {
  std::string rule;
  std::vector<std::string> codes;  // the codes `rule` stands for, resolved when read
  std::string node;
  std::string path;  // empty: every model
  std::string reason;
};

struct Config {
  std::string file;  // the file it was read from
  std::string dir;   // its directory: paths in it are relative to this
  Settings settings;
  struct PerPath {
    std::string glob;
    Settings settings;
  };
  std::vector<PerPath> per_path;
  std::vector<Suppression> suppress;

  // The settings for the model at `path`: the file's, then every matching per-path entry.
  Settings SettingsFor(std::string_view path) const;
  // True when a suppression covers `finding` of the model at `path`.
  bool Suppressed(std::string_view path, const Finding& finding) const;
};

// The functions below resolve the rules a configuration names against `rules`: by default the
// built-in ones (AllRules), evaluated where the function is called.

// Parses a configuration in JSON (`.onnx-shapelint.json`) or in TOML (the
// `[tool.onnx-shapelint]` table of `pyproject.toml`, or nullopt when it has none). `file` names
// it in errors; unknown keys, wrong types and rules that `rules` does not have are errors.
absl::StatusOr<Config> ParseJsonConfig(std::string_view text, const std::string& file,
                                       absl::Span<const RuleInfo> rules = AllRules());
absl::StatusOr<std::optional<Config>> ParsePyprojectConfig(
    std::string_view text, const std::string& file, absl::Span<const RuleInfo> rules = AllRules());
// Reads the configuration file at `path` (either kind, by its name).
absl::StatusOr<std::optional<Config>> ReadConfig(const std::string& path,
                                                 absl::Span<const RuleInfo> rules = AllRules());
// The configuration that applies to the model at `model_path`: the nearest directory, from the
// model's own upwards, that has `.onnx-shapelint.json` or a `pyproject.toml` with a
// `[tool.onnx-shapelint]` table (the JSON file wins in the same directory). nullopt if none.
absl::StatusOr<std::optional<Config>> FindConfig(const std::string& model_path,
                                                 absl::Span<const RuleInfo> rules = AllRules());

// FindConfig for many models at once: remembers what applies in every directory it has looked
// in, so that models in sibling directories share the walk up (a corpus with one model per
// directory costs one look per directory, not one per ancestor of each). Each file is read
// once. Not thread-safe.
class ConfigFinder {
 public:
  explicit ConfigFinder(absl::Span<const RuleInfo> rules = AllRules()) : rules_(rules) {}
  // What FindConfig(model_path) gives, shared; nullptr when no configuration applies.
  absl::StatusOr<std::shared_ptr<const Config>> Find(const std::string& model_path);

 private:
  absl::Span<const RuleInfo> rules_;
  absl::flat_hash_map<std::string, absl::StatusOr<std::shared_ptr<const Config>>> by_dir_;
};

// "x:2=height" (input x, axis 2, named height) or "x:-1" (unnamed), as --dynamic takes it.
absl::StatusOr<DynamicAxis> ParseDynamicAxis(std::string_view text);

// The codes of the rules of `rules` that `item` names, in their order: a code or a name in any
// case, a code prefix of two or more characters ("SL00"), or "ALL". Empty when it names none.
std::vector<std::string> RulesMatching(std::string_view item,
                                       absl::Span<const RuleInfo> rules = AllRules());

// Whether `path` matches the glob `pattern` ('*' within a path component, '**' across
// components, '?' one character), both relative paths with '/' separators.
bool GlobMatch(std::string_view pattern, std::string_view path);

// `path` relative to the directory `dir` ("" is the current one), both made absolute first,
// with '/' separators: how configuration globs and baselines name models.
std::string RelativePath(std::string_view path, std::string_view dir);

}  // namespace shapelint::lint

#endif  // SHAPELINT_LINT_CONFIG_H_
