#include "lint/run_records.h"

#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "lint/severity.h"
#include "shapelint/lint/fix_it.h"

namespace shapelint::lint {
namespace {

using Json = nlohmann::json;

// The string at `key`, or nullopt when it is missing or not a string.
std::optional<std::string> StringAt(const Json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_string()) return std::nullopt;
  return it->get<std::string>();
}

// A size as JSON holds it: an integer from 0 to 2^62 (sizes past that are no run's).
std::optional<int64_t> SizeOf(const Json& j) {
  if (!j.is_number_integer()) return std::nullopt;
  const int64_t v = j.get<int64_t>();
  if (v < 0 || v > (int64_t{1} << 62)) return std::nullopt;
  return v;
}

std::optional<RunRecord> RecordOf(const Json& j) {
  if (!j.is_object()) return std::nullopt;
  RunRecord r;
  const auto rule = StringAt(j, "rule");
  const auto node = StringAt(j, "node");
  const auto detail = StringAt(j, "detail");
  if (!rule || !node || !detail) return std::nullopt;
  r.rule = *rule;
  r.node = *node;
  r.detail = *detail;
  r.attribute = StringAt(j, "attribute").value_or("");
  r.versions = StringAt(j, "versions").value_or("");
  if (auto it = j.find("node_fails"); it != j.end() && it->is_boolean()) r.node_fails = *it;
  if (const auto verdict = StringAt(j, "verdict")) {
    if (*verdict != "agree" && *verdict != "disagree") return std::nullopt;
    r.agree = *verdict == "agree";
  } else if (j.contains("verdict")) {
    return std::nullopt;
  }
  auto binding = j.find("binding");
  auto inputs = j.find("inputs");
  if (binding == j.end() || !binding->is_object() || inputs == j.end() || !inputs->is_object()) {
    return std::nullopt;
  }
  for (const auto& [symbol, size] : binding->items()) {
    const std::optional<int64_t> v = SizeOf(size);
    if (!v) return std::nullopt;
    r.binding.emplace_back(symbol, *v);
  }
  for (const auto& [name, dims] : inputs->items()) {
    if (!dims.is_array()) return std::nullopt;
    std::vector<int64_t> shape;
    for (const Json& d : dims) {
      const std::optional<int64_t> v = SizeOf(d);
      if (!v) return std::nullopt;
      shape.push_back(*v);
    }
    r.inputs.emplace_back(name, std::move(shape));
  }
  return r;
}

}  // namespace

std::vector<RunRecord> ReadRunRecords(const ir::Model& model) {
  std::vector<RunRecord> out;
  for (const auto& entry : model.proto().metadata_props()) {
    if (entry.key() != kRunsKey) continue;
    const Json j = Json::parse(entry.value(), nullptr, /*allow_exceptions=*/false);
    if (!j.is_array()) continue;
    for (const Json& item : j) {
      if (std::optional<RunRecord> r = RecordOf(item)) out.push_back(*std::move(r));
    }
  }
  return out;
}

int ApplyRunRecords(const std::vector<RunRecord>& records, std::vector<Finding>& findings) {
  int settled = 0;
  for (Finding& f : findings) {
    for (const RunRecord& r : records) {
      if (r.rule != f.rule || r.node != f.node.label || r.attribute != f.attribute) continue;
      if (r.agree) {
        // Runs refute only a hypothesis: a contradiction the graph shows stays what it is.
        if (f.evidence != Evidence::kHypothesis) break;
        f.evidence = Evidence::kDesign;
        ApplySeverityPolicy(f);  // a note
        f.notes.push_back(
            {absl::StrCat("a run settled it: ", r.detail,
                          r.versions.empty() ? "" : absl::StrCat(" (", r.versions, ")"),
                          "; recorded in the model's metadata '", std::string(kRunsKey),
                          "' by onnx_shapelint.torch.export"),
             std::nullopt});
        ++settled;
        break;
      }
      Counterexample c;
      c.binding = r.binding;
      c.inputs = r.inputs;
      c.failure = r.detail;
      c.node_fails = r.node_fails;
      f.counterexample = std::move(c);
      f.evidence = Evidence::kRun;
      ApplySeverityPolicy(f);  // the one mapping from evidence to severity: an error
      f.notes.push_back(
          {absl::StrCat("a run settled it: ONNX Runtime against eager PyTorch at these sizes",
                        r.versions.empty() ? "" : absl::StrCat(" (", r.versions, ")"),
                        ", recorded in the model's metadata '", std::string(kRunsKey),
                        "' by onnx_shapelint.torch.export"),
           std::nullopt});
      if (f.fix_it && f.fix_it->unsafe_as_hypothesis) {
        f.fix_it->applicability = Applicability::kSafe;
      }
      ++settled;
      break;
    }
  }
  return settled;
}

}  // namespace shapelint::lint
