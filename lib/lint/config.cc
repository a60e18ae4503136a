#include "shapelint/lint/config.h"

#include <toml++/toml.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "lint/selection.h"
#include "nlohmann/json.hpp"

namespace shapelint::lint {
namespace {

namespace fs = std::filesystem;
// Keys keep the file's order: per-path entries apply in that order.
using Json = nlohmann::ordered_json;

constexpr std::string_view kJsonName = ".onnx-shapelint.json";
constexpr std::string_view kPyprojectName = "pyproject.toml";

// Walking up stops after this many directories (a bind mount loop cannot hang it).
constexpr int kMaxParents = 256;

absl::Status Bad(const std::string& file, std::string_view where, std::string_view what) {
  return absl::InvalidArgumentError(
      absl::StrCat(file, ": ", std::string(where), ": ", std::string(what)));
}

// A list of strings, or one string of comma-separated items.
absl::StatusOr<std::vector<std::string>> Strings(const Json& v, const std::string& file,
                                                 const std::string& key) {
  std::vector<std::string> out;
  auto add = [&](const std::string& s) {
    for (absl::string_view piece : absl::StrSplit(s, ',')) {
      std::string item(absl::StripAsciiWhitespace(piece));
      if (!item.empty()) out.push_back(std::move(item));
    }
  };
  if (v.is_string()) {
    add(v.get<std::string>());
    return out;
  }
  if (!v.is_array()) return Bad(file, key, "expected a string or a list of strings");
  for (const Json& item : v) {
    if (!item.is_string()) return Bad(file, key, "expected a list of strings");
    add(item.get<std::string>());
  }
  return out;
}

absl::StatusOr<std::vector<std::string>> Rules(const Json& v, const std::string& file,
                                               const std::string& key,
                                               absl::Span<const RuleInfo> rules) {
  auto items = Strings(v, file, key);
  if (!items.ok()) return items.status();
  std::vector<std::string> codes;
  for (const std::string& item : *items) {
    std::vector<std::string> found = RulesMatching(item, rules);
    if (found.empty()) return Bad(file, key, absl::StrCat("unknown rule '", item, "'"));
    for (std::string& c : found) {
      if (std::find(codes.begin(), codes.end(), c) == codes.end()) codes.push_back(std::move(c));
    }
  }
  return codes;
}

// The settings keys of one layer; `where` prefixes error locations ("per-path.models/*").
absl::StatusOr<Settings> ParseSettings(const Json& obj, const std::string& file,
                                       const std::string& where,
                                       const std::set<std::string>& also_allowed,
                                       absl::Span<const RuleInfo> rules) {
  Settings s;
  auto at = [&](const std::string& key) { return where.empty() ? key : where + "." + key; };
  for (const auto& [key, value] : obj.items()) {
    if (key == "select") {
      auto r = Rules(value, file, at(key), rules);
      if (!r.ok()) return r.status();
      s.select = *std::move(r);
    } else if (key == "extend-select" || key == "ignore") {
      auto r = Rules(value, file, at(key), rules);
      if (!r.ok()) return r.status();
      (key == "ignore" ? s.ignore : s.extend_select) = *std::move(r);
    } else if (key == "fail-on") {
      auto severity = value.is_string() ? ParseSeverity(value.get<std::string>()) : std::nullopt;
      if (!severity) return Bad(file, at(key), "expected \"error\", \"warning\" or \"note\"");
      s.fail_on = severity;
    } else if (key == "export-dims") {
      auto items = Strings(value, file, at(key));
      if (!items.ok()) return items.status();
      auto spec = ParseSizes(absl::StrJoin(*items, ","), kExportSizes);
      if (!spec.ok()) return Bad(file, at(key), std::string(spec.status().message()));
      s.export_dims = *std::move(spec);
    } else if (key == "dynamic") {
      auto items = Strings(value, file, at(key));
      if (!items.ok()) return items.status();
      for (const std::string& item : *items) {
        auto axis = ParseDynamicAxis(item);
        if (!axis.ok()) return Bad(file, at(key), std::string(axis.status().message()));
        s.dynamic.push_back(*std::move(axis));
      }
    } else if (key == "static") {
      if (!value.is_object()) return Bad(file, at(key), "expected a table of NAME = SIZE");
      for (const auto& [name, size] : value.items()) {
        const std::string where = at(absl::StrCat(key, ".", name));
        if (!size.is_number_integer()) return Bad(file, where, "expected a size");
        const absl::Status valid = CheckNamedSize(name, size.get<int64_t>());
        if (!valid.ok()) return Bad(file, where, std::string(valid.message()));
        s.static_dims.emplace_back(name, size.get<int64_t>());
      }
    } else if (also_allowed.count(key) == 0) {
      return Bad(file, at(key), "unknown key (see docs/configuration.md)");
    }
  }
  return s;
}

absl::StatusOr<Config> FromJson(const Json& doc, const std::string& file,
                                absl::Span<const RuleInfo> rules) {
  if (!doc.is_object()) return Bad(file, "top level", "expected an object");
  Config config;
  config.file = file;
  config.dir = fs::path(file).parent_path().string();
  auto settings = ParseSettings(doc, file, "", {"per-path", "suppress"}, rules);
  if (!settings.ok()) return settings.status();
  config.settings = *std::move(settings);
  if (doc.contains("per-path")) {
    const Json& per_path = doc["per-path"];
    if (!per_path.is_object()) return Bad(file, "per-path", "expected a table of glob = {...}");
    for (const auto& [glob, entry] : per_path.items()) {
      const std::string where = absl::StrCat("per-path.\"", glob, "\"");
      if (!entry.is_object()) return Bad(file, where, "expected a table of settings");
      auto s = ParseSettings(entry, file, where, {}, rules);
      if (!s.ok()) return s.status();
      config.per_path.push_back({glob, *std::move(s)});
    }
  }
  if (doc.contains("suppress")) {
    const Json& suppress = doc["suppress"];
    if (!suppress.is_array()) return Bad(file, "suppress", "expected a list of tables");
    for (size_t i = 0; i < suppress.size(); ++i) {
      const std::string where = absl::StrCat("suppress[", i, "]");
      const Json& entry = suppress[i];
      if (!entry.is_object()) return Bad(file, where, "expected a table");
      Suppression s;
      for (const auto& [key, value] : entry.items()) {
        if (!value.is_string())
          return Bad(file, absl::StrCat(where, ".", key), "expected a string");
        const std::string text = value.get<std::string>();
        if (key == "rule") {
          s.codes = RulesMatching(text, rules);
          if (s.codes.empty()) {
            return Bad(file, where + ".rule", absl::StrCat("unknown rule '", text, "'"));
          }
          s.rule = text;
        } else if (key == "node") {
          s.node = text;
        } else if (key == "path") {
          s.path = text;
        } else if (key == "reason") {
          s.reason = text;
        } else {
          return Bad(file, absl::StrCat(where, ".", key), "unknown key (rule, node, path, reason)");
        }
      }
      if (s.rule.empty() || s.node.empty()) {
        return Bad(file, where, "needs \"rule\" and \"node\"");
      }
      config.suppress.push_back(std::move(s));
    }
  }
  return config;
}

// TOML values as JSON, so that both kinds of file share one reader.
std::optional<Json> TomlToJson(const toml::node& node) {
  if (const auto* t = node.as_table()) {
    Json obj = Json::object();
    for (const auto& [key, value] : *t) {
      auto v = TomlToJson(value);
      if (!v) return std::nullopt;
      obj[std::string(key.str())] = *std::move(v);
    }
    return obj;
  }
  if (const auto* a = node.as_array()) {
    Json arr = Json::array();
    for (const auto& value : *a) {
      auto v = TomlToJson(value);
      if (!v) return std::nullopt;
      arr.push_back(*std::move(v));
    }
    return arr;
  }
  if (auto s = node.value<std::string>()) return Json(*s);
  if (node.is_integer()) return Json(*node.value<int64_t>());
  if (node.is_floating_point()) return Json(*node.value<double>());
  if (auto b = node.value<bool>()) return Json(*b);
  return std::nullopt;  // dates and times mean nothing here
}

std::string ReadAll(const fs::path& path, bool* ok) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  *ok = static_cast<bool>(in) || in.eof();
  return buffer.str();
}

bool GlobFrom(std::string_view p, std::string_view s) {
  if (p.empty()) return s.empty();
  if (p.substr(0, 2) == "**") {
    std::string_view rest = p.substr(2);
    if (!rest.empty() && rest[0] == '/') {
      // "**/" matches zero or more whole components.
      std::string_view after = rest.substr(1);
      if (GlobFrom(after, s)) return true;
      for (size_t i = 0; i < s.size(); ++i) {
        if (s[i] == '/' && GlobFrom(after, s.substr(i + 1))) return true;
      }
      return false;
    }
    for (size_t i = 0; i <= s.size(); ++i) {
      if (GlobFrom(rest, s.substr(i))) return true;
    }
    return false;
  }
  if (p[0] == '*') {
    for (size_t i = 0; i <= s.size(); ++i) {
      if (GlobFrom(p.substr(1), s.substr(i))) return true;
      if (i < s.size() && s[i] == '/') break;
    }
    return false;
  }
  if (s.empty()) return false;
  if (p[0] == '?' ? s[0] != '/' : p[0] == s[0]) return GlobFrom(p.substr(1), s.substr(1));
  return false;
}

}  // namespace

void Settings::Overlay(const Settings& over) {
  if (over.select) {
    select = over.select;
    extend_select.clear();  // a new selection starts afresh, as on the command line
  }
  extend_select.insert(extend_select.end(), over.extend_select.begin(), over.extend_select.end());
  ignore.insert(ignore.end(), over.ignore.begin(), over.ignore.end());
  if (over.fail_on) fail_on = over.fail_on;
  if (over.export_dims) export_dims = over.export_dims;
  dynamic.insert(dynamic.end(), over.dynamic.begin(), over.dynamic.end());
  static_dims.insert(static_dims.end(), over.static_dims.begin(), over.static_dims.end());
}

LintOptions Settings::ToLintOptions() const {
  LintOptions o;
  if (select) {
    o.select = *select;
    o.select->insert(o.select->end(), extend_select.begin(), extend_select.end());
  }
  o.ignore = ignore;
  o.export_dims = export_dims;
  o.dynamic = dynamic;
  o.static_dims = static_dims;
  return o;
}

Settings Config::SettingsFor(std::string_view path) const {
  Settings s = settings;
  const std::string relative = RelativePath(path, dir);
  for (const PerPath& p : per_path) {
    if (GlobMatch(p.glob, relative)) s.Overlay(p.settings);
  }
  return s;
}

bool Config::Suppressed(std::string_view path, const Finding& finding) const {
  const std::string relative = RelativePath(path, dir);
  for (const Suppression& s : suppress) {
    if (std::find(s.codes.begin(), s.codes.end(), finding.rule) == s.codes.end()) continue;
    if (s.node != finding.node.name && s.node != finding.node.label) continue;
    if (!s.path.empty() && !GlobMatch(s.path, relative)) continue;
    return true;
  }
  return false;
}

absl::StatusOr<DynamicAxis> ParseDynamicAxis(std::string_view text) {
  DynamicAxis d;
  std::pair<std::string, std::string> axis_name =
      absl::StrSplit(absl::string_view(text.data(), text.size()), absl::MaxSplits('=', 1));
  const size_t colon = axis_name.first.rfind(':');
  const bool has_name = text.find('=') != std::string_view::npos;
  if (colon == std::string::npos || colon == 0 ||
      !absl::SimpleAtoi(axis_name.first.substr(colon + 1), &d.axis) ||
      (has_name && axis_name.second.empty())) {
    return absl::InvalidArgumentError(absl::StrCat("invalid axis '", std::string(text),
                                                   "' (expected INPUT:AXIS or INPUT:AXIS=NAME)"));
  }
  d.input = axis_name.first.substr(0, colon);
  d.name = axis_name.second;
  return d;
}

absl::StatusOr<Config> ParseJsonConfig(std::string_view text, const std::string& file,
                                       absl::Span<const RuleInfo> rules) {
  Json doc = Json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false,
                         /*ignore_comments=*/true);
  if (doc.is_discarded()) return Bad(file, "JSON", "not valid JSON");
  return FromJson(doc, file, rules);
}

absl::StatusOr<std::optional<Config>> ParsePyprojectConfig(std::string_view text,
                                                           const std::string& file,
                                                           absl::Span<const RuleInfo> rules) {
  toml::table doc;
  try {
    doc = toml::parse(text, file);
  } catch (const toml::parse_error& e) {
    return Bad(file, absl::StrCat("line ", e.source().begin.line), std::string(e.description()));
  }
  const toml::node* table = doc["tool"]["onnx-shapelint"].node();
  if (table == nullptr) return std::optional<Config>();
  if (!table->is_table()) return Bad(file, "tool.onnx-shapelint", "expected a table");
  auto json = TomlToJson(*table);
  if (!json) return Bad(file, "tool.onnx-shapelint", "dates and times are not settings");
  auto config = FromJson(*json, file, rules);
  if (!config.ok()) return config.status();
  return std::optional<Config>(*std::move(config));
}

absl::StatusOr<std::optional<Config>> ReadConfig(const std::string& path,
                                                 absl::Span<const RuleInfo> rules) {
  bool ok = false;
  const std::string text = ReadAll(path, &ok);
  if (!ok) return absl::NotFoundError(absl::StrCat(path, ": cannot read the configuration"));
  if (fs::path(path).filename() == kPyprojectName) {
    return ParsePyprojectConfig(text, path, rules);
  }
  auto config = ParseJsonConfig(text, path, rules);
  if (!config.ok()) return config.status();
  return std::optional<Config>(*std::move(config));
}

absl::StatusOr<std::optional<Config>> FindConfig(const std::string& model_path,
                                                 absl::Span<const RuleInfo> rules) {
  ConfigFinder finder(rules);
  absl::StatusOr<std::shared_ptr<const Config>> found = finder.Find(model_path);
  if (!found.ok()) return found.status();
  if (*found == nullptr) return std::optional<Config>();
  return std::optional<Config>(**found);
}

absl::StatusOr<std::shared_ptr<const Config>> ConfigFinder::Find(const std::string& model_path) {
  using Found = absl::StatusOr<std::shared_ptr<const Config>>;
  std::error_code ec;
  fs::path dir = model_path == "-" ? fs::current_path(ec)
                                   : fs::absolute(fs::path(model_path), ec).parent_path();
  if (ec) return std::shared_ptr<const Config>();
  // What applies in a directory applies in every directory below it that has no file of its
  // own: the directories walked through get the answer found above them.
  std::vector<std::string> walked;
  Found found = std::shared_ptr<const Config>();
  for (int up = 0; up < kMaxParents && !dir.empty(); ++up) {
    std::string key = dir.string();
    if (auto it = by_dir_.find(key); it != by_dir_.end()) {
      found = it->second;
      break;
    }
    walked.push_back(std::move(key));
    bool here = false;
    for (std::string_view name : {kJsonName, kPyprojectName}) {
      const fs::path candidate = dir / std::string(name);
      if (!fs::is_regular_file(candidate, ec)) continue;
      absl::StatusOr<std::optional<Config>> config = ReadConfig(candidate.string(), rules_);
      if (!config.ok()) {
        found = config.status();
      } else if (!*config) {
        continue;  // a pyproject.toml without our table does not count
      } else {
        found = std::make_shared<const Config>(**std::move(config));
      }
      here = true;
      break;
    }
    if (here || dir == dir.parent_path()) break;
    dir = dir.parent_path();
  }
  for (std::string& d : walked) by_dir_.emplace(std::move(d), found);
  return found;
}

std::vector<std::string> RulesMatching(std::string_view item, absl::Span<const RuleInfo> rules) {
  return CodesMatching(rules, item);
}

bool GlobMatch(std::string_view pattern, std::string_view path) { return GlobFrom(pattern, path); }

std::string RelativePath(std::string_view path, std::string_view dir) {
  std::error_code ec;
  const fs::path abs_path = fs::absolute(fs::path(path), ec).lexically_normal();
  const fs::path abs_dir =
      fs::absolute(fs::path(dir.empty() ? std::string_view(".") : dir), ec).lexically_normal();
  return abs_path.lexically_relative(abs_dir).generic_string();
}

}  // namespace shapelint::lint
