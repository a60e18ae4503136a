// --statistics: how many findings each rule has, for adopting the linter on a repository of
// models ("which rules fire, and how often?") before reading any finding.
#include <algorithm>
#include <map>
#include <ostream>
#include <string>
#include <tuple>
#include <vector>

#include "absl/strings/str_format.h"
#include "report/json_dump.h"
#include "shapelint/lint/finding.h"
#include "shapelint/report/report.h"

namespace shapelint::report {
namespace {

struct RuleCount {
  std::string rule, name;
  int count = 0;
};

// Rules with findings, most findings first, then by code.
std::vector<RuleCount> Count(const std::vector<ModelResult>& results) {
  std::map<std::string, RuleCount> by_rule;
  for (const ModelResult& r : results) {
    for (const lint::Finding& f : r.findings) {
      RuleCount& c = by_rule[f.rule];
      c.rule = f.rule;
      c.name = f.name;
      ++c.count;
    }
  }
  std::vector<RuleCount> counts;
  counts.reserve(by_rule.size());
  for (auto& [rule, c] : by_rule) counts.push_back(std::move(c));
  std::stable_sort(counts.begin(), counts.end(), [](const RuleCount& a, const RuleCount& b) {
    return std::tie(b.count, a.rule) < std::tie(a.count, b.rule);
  });
  return counts;
}

}  // namespace

void WriteStatisticsText(const std::vector<ModelResult>& results, std::ostream& out) {
  int total = 0, failed = 0;
  for (const RuleCount& c : Count(results)) {
    out << absl::StrFormat("%6d  %s  %s\n", c.count, c.rule, c.name);
    total += c.count;
  }
  for (const ModelResult& r : results) failed += r.error ? 1 : 0;
  out << absl::StrFormat("%d finding%s in %d model%s", total, total == 1 ? "" : "s", results.size(),
                         results.size() == 1 ? "" : "s");
  if (failed > 0) out << absl::StrFormat(" (%d could not be loaded)", failed);
  out << "\n";
}

void WriteStatisticsJson(const std::vector<ModelResult>& results, std::ostream& out) {
  Json doc;
  doc["schema_version"] = kJsonSchemaVersion;
  doc["statistics"] = Json::array();
  for (const RuleCount& c : Count(results)) {
    doc["statistics"].push_back({{"rule", c.rule}, {"name", c.name}, {"count", c.count}});
  }
  int failed = 0;
  for (const ModelResult& r : results) failed += r.error ? 1 : 0;
  doc["models"] = results.size();
  doc["models_not_loaded"] = failed;
  out << DumpJson(doc) << '\n';
}

}  // namespace shapelint::report
