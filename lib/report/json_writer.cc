// The JSON report: one document per run, layout documented in docs/json-format.md.
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "report/finding_text.h"
#include "report/json_dump.h"
#include "shapelint/lint/finding.h"
#include "shapelint/lint/lint.h"
#include "shapelint/report/probe.h"
#include "shapelint/report/report.h"

namespace shapelint::report {
namespace {

Json OptionalInt(const std::optional<int64_t>& v) { return v ? Json(*v) : Json(nullptr); }

// Empty means "none" for these fields; null says so without making readers compare to "".
Json StringOrNull(const std::string& s) { return s.empty() ? Json(nullptr) : Json(s); }

Json ToJson(const lint::NodeRef& node) {
  Json j = Json::object();
  j["name"] = node.name;
  j["op_type"] = node.op_type;
  j["index"] = node.index;
  j["graph"] = node.graph;
  j["label"] = node.label;
  return j;
}

Json ToJson(const lint::Witness& witness) {
  Json j = Json::object();
  j["summary"] = witness.summary;
  Json ranges = Json::array();
  for (const lint::SymbolRange& r : witness.ranges) {
    Json range = Json::object();
    range["symbol"] = r.symbol;
    range["value"] = r.value;
    range["min"] = OptionalInt(r.min);
    range["max"] = OptionalInt(r.max);
    range["every"] = OptionalInt(r.every);
    range["congruent_from"] = OptionalInt(r.congruent_from);
    range["also"] = r.also;
    range["more"] = r.more;
    ranges.push_back(std::move(range));
  }
  j["ranges"] = std::move(ranges);
  j["relations"] = witness.relations;
  return j;
}

Json ToJson(const lint::Counterexample& cx) {
  Json j = Json::object();
  Json binding = Json::object();
  for (const auto& [symbol, size] : cx.binding) binding[symbol] = size;
  j["binding"] = std::move(binding);
  Json inputs = Json::object();
  for (const auto& [input, dims] : cx.inputs) inputs[input] = dims;
  j["inputs"] = std::move(inputs);
  j["failing_node"] = ToJson(cx.failing_node);
  j["failure"] = cx.failure;
  j["node_fails"] = cx.node_fails;
  j["input_contract"] = cx.input_contract;
  Json outputs = Json::array();
  for (const lint::ShapeAt& o : cx.outputs) {
    Json out = Json::object();
    out["value"] = o.value;
    out["actual"] = o.actual;
    // The finding API leaves `expected` empty when nothing is declared; null keeps that apart
    // from a declared shape.
    out["expected"] = o.expected ? Json(*o.expected) : Json(nullptr);
    outputs.push_back(std::move(out));
  }
  j["outputs"] = std::move(outputs);
  return j;
}

Json ToJson(const lint::Finding& f) {
  Json j = Json::object();
  j["rule"] = f.rule;
  j["name"] = f.name;
  j["severity"] = std::string(lint::SeverityName(f.severity));
  j["evidence"] = std::string(lint::EvidenceName(f.evidence));
  j["message"] = f.message;
  j["node"] = ToJson(f.node);
  j["attribute"] = StringOrNull(f.attribute);
  j["symbols"] = f.symbols;
  Json axes = Json::object();
  for (const auto& [symbol, axis] : f.symbol_axes) axes[symbol] = axis;
  j["symbol_axes"] = std::move(axes);
  j["witness"] = f.witness ? ToJson(*f.witness) : Json(nullptr);
  j["counterexample"] = f.counterexample ? ToJson(*f.counterexample) : Json(nullptr);
  Json notes = Json::array();
  for (const lint::Note& n : f.notes) {
    Json note = Json::object();
    note["message"] = n.message;
    note["node"] = n.node ? ToJson(*n.node) : Json(nullptr);
    notes.push_back(std::move(note));
  }
  j["notes"] = std::move(notes);
  j["fix"] = StringOrNull(f.fix);
  Json expressions = Json::array();
  for (const lint::Expression& e : f.expressions) {
    expressions.push_back({{"label", e.label}, {"text", e.text}});
  }
  j["expressions"] = std::move(expressions);
  if (f.source) {
    j["source"] = {{"file", f.source->file},
                   {"line", f.source->line},
                   {"function", f.source->function},
                   {"code", f.source->code},
                   {"module", StringOrNull(f.source->module)}};
  } else {
    j["source"] = nullptr;
  }
  return j;
}

}  // namespace

void WriteJson(const std::vector<ModelResult>& results, std::ostream& out) {
  Json doc = Json::object();
  doc["tool"] = Json::object();
  doc["tool"]["name"] = "onnx-shapelint";
  doc["tool"]["version"] = std::string(lint::Version());
  doc["schema_version"] = kJsonSchemaVersion;

  Json models = Json::array();
  for (const ModelResult& r : results) {
    Json model = Json::object();
    model["path"] = r.path;
    model["error"] = r.error ? Json(*r.error) : Json(nullptr);
    Json findings = Json::array();
    for (const lint::Finding& f : r.findings) findings.push_back(ToJson(f));
    model["findings"] = std::move(findings);
    models.push_back(std::move(model));
  }
  doc["models"] = std::move(models);

  const RunCounts counts = CountRun(results);
  Json summary = Json::object();
  summary["models"] = results.size();
  summary["errors"] = counts.errors;
  summary["warnings"] = counts.warnings;
  summary["notes"] = counts.notes;
  summary["load_errors"] = counts.load_errors;
  doc["summary"] = std::move(summary);

  out << DumpJson(doc) << '\n';
}

void WriteProbeJson(const std::vector<ProbeReport>& reports, std::ostream& out) {
  Json doc = Json::object();
  doc["tool"] = {{"name", "onnx-shapelint"}, {"version", std::string(lint::Version())}};
  doc["schema_version"] = kJsonSchemaVersion;
  Json models = Json::array();
  for (const ProbeReport& r : reports) {
    Json m = Json::object();
    m["path"] = r.path;
    m["error"] = r.error ? Json(*r.error) : Json(nullptr);
    Json probes = Json::array();
    for (const lint::ProbeResult& p : r.probes) {
      Json j = Json::object();
      j["spec"] = p.spec;
      j["breaks"] = p.breaks;
      Json defaulted = Json::object();
      for (const auto& [s, v] : p.defaulted) defaulted[s] = v;
      j["defaulted"] = std::move(defaulted);
      Json failing = Json::array();
      for (const auto& [lo, hi] : p.failing) failing.push_back({lo, hi});
      j["failing_ranges"] = std::move(failing);
      j["at"] = ToJson(p.at);
      probes.push_back(std::move(j));
    }
    m["probes"] = std::move(probes);
    models.push_back(std::move(m));
  }
  doc["models"] = std::move(models);
  out << DumpJson(doc) << '\n';
}

}  // namespace shapelint::report
