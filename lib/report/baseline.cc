#include "shapelint/report/baseline.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "report/json_dump.h"
#include "shapelint/lint/config.h"

namespace shapelint::report {
namespace {

namespace fs = std::filesystem;

// Version of the baseline file layout; bumped on incompatible change.
constexpr int kBaselineVersion = 1;

// Entries are stored as separate fields; the key joins them with a separator no path or
// name contains.
constexpr char kSep = '\x1f';

std::string JoinKey(const std::string& path, const std::string& rule, const std::string& node,
                    const std::string& attribute) {
  return absl::StrCat(path, std::string(1, kSep), rule, std::string(1, kSep), node,
                      std::string(1, kSep), attribute);
}

}  // namespace

std::string Baseline::Key(const std::string& model_path, const lint::Finding& f) const {
  const std::string node = absl::StrCat(f.node.graph, "/", f.node.label);
  const std::string path = model_path == "-" ? "-" : lint::RelativePath(model_path, dir_);
  // As the file holds them: a finding of a node whose name is not UTF-8 matches the entry that
  // recorded it.
  return JoinKey(AsWrittenInJson(path), AsWrittenInJson(f.rule), AsWrittenInJson(node),
                 AsWrittenInJson(f.attribute));
}

Baseline Baseline::Of(const std::vector<ModelResult>& results, const std::string& path) {
  Baseline b;
  b.dir_ = fs::path(path).parent_path().string();
  for (const ModelResult& r : results) {
    for (const lint::Finding& f : r.findings) ++b.counts_[b.Key(r.path, f)];
  }
  return b;
}

absl::StatusOr<Baseline> Baseline::Read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat(path, ": cannot read the baseline"));
  std::stringstream text;
  text << in.rdbuf();
  const Json doc = Json::parse(text.str(), nullptr, /*allow_exceptions=*/false);
  auto bad = [&](const std::string& what) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": not a baseline: ", what));
  };
  if (doc.is_discarded() || !doc.is_object()) return bad("not a JSON object");
  if (!doc.contains("baseline_version") || doc["baseline_version"] != kBaselineVersion) {
    return bad(absl::StrCat("expected \"baseline_version\": ", kBaselineVersion));
  }
  if (!doc.contains("findings") || !doc["findings"].is_array()) return bad("no \"findings\" list");
  Baseline b;
  b.dir_ = fs::path(path).parent_path().string();
  for (const Json& e : doc["findings"]) {
    const bool valid = e.is_object() && e.contains("path") && e["path"].is_string() &&
                       e.contains("rule") && e["rule"].is_string() && e.contains("node") &&
                       e["node"].is_string() && e.contains("attribute") &&
                       e["attribute"].is_string() && e.contains("count") &&
                       e["count"].is_number_integer() && e["count"].get<int64_t>() > 0 &&
                       e["count"].get<int64_t>() < (int64_t{1} << 31);
    if (!valid) return bad("an entry needs path, rule, node, attribute and a positive count");
    b.counts_[JoinKey(e["path"], e["rule"], e["node"], e["attribute"])] +=
        static_cast<int>(e["count"].get<int64_t>());
  }
  return b;
}

std::string Baseline::ToJson() const {
  Json doc;
  doc["baseline_version"] = kBaselineVersion;
  doc["tool"] = "onnx-shapelint";
  doc["findings"] = Json::array();
  for (const auto& [key, count] : counts_) {
    std::vector<std::string> parts;
    size_t start = 0;
    for (size_t i = 0; i <= key.size(); ++i) {
      if (i == key.size() || key[i] == kSep) {
        parts.push_back(key.substr(start, i - start));
        start = i + 1;
      }
    }
    doc["findings"].push_back({{"path", parts[0]},
                               {"rule", parts[1]},
                               {"node", parts[2]},
                               {"attribute", parts[3]},
                               {"count", count}});
  }
  return DumpJson(doc) + "\n";
}

int Baseline::Filter(std::vector<ModelResult>& results) const {
  std::map<std::string, int> left = counts_;
  int removed = 0;
  for (ModelResult& r : results) {
    // The HTML report's paths go with their findings.
    const bool paired = r.paths.size() == r.findings.size();
    std::vector<lint::Finding> kept;
    std::vector<lint::FindingPath> kept_paths;
    for (size_t i = 0; i < r.findings.size(); ++i) {
      auto it = left.find(Key(r.path, r.findings[i]));
      if (it != left.end() && it->second > 0) {
        --it->second;
        ++removed;
      } else {
        kept.push_back(std::move(r.findings[i]));
        if (paired) kept_paths.push_back(std::move(r.paths[i]));
      }
    }
    r.findings = std::move(kept);
    if (paired) r.paths = std::move(kept_paths);
  }
  return removed;
}

}  // namespace shapelint::report
