
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "report/json_dump.h"
#include "shapelint/lint/lint.h"
#include "shapelint/report/report.h"
#include "shapelint/report/shapes.h"

namespace shapelint::report {
namespace {

// Expressions share subexpressions and can print far longer than they are (exponentially, on
// some real models): every dim is spelled out up to this length, then cut with "...".
constexpr size_t kMaxDimText = 1000;

// Dims at the given sizes; "?" where a dim is unknown or mentions an unbound symbol.
std::string EvaluatedText(const infer::TensorFact& f, const sym::Binding& at) {
  if (!f.shape) return "?";
  std::vector<std::string> dims;
  for (const auto& d : *f.shape) {
    auto v = d ? d->Evaluate(at) : std::nullopt;
    dims.push_back(v ? absl::StrCat(*v) : "?");
  }
  return absl::StrCat("[", absl::StrJoin(dims, ", "), "]");
}

// Walks a graph's values in the order people read a model: inputs, then each node's outputs
// in topological order, a subgraph's values right after the node that holds it.
template <typename Visit>
void Walk(const ir::Graph& g, const infer::Inference& inf, int depth, const Visit& visit) {
  for (const auto& vi : g.proto().input()) {
    if (const infer::TensorFact* f = inf.FindIn(g, vi.name())) {
      visit(g, depth, -1, vi.name(), *f, g.Initializer(vi.name()) != nullptr);
    }
  }
  for (int i : g.topological_order()) {
    for (const auto& out : g.node(i).output()) {
      if (out.empty()) continue;
      if (const infer::TensorFact* f = inf.FindIn(g, out)) visit(g, depth, i, out, *f, false);
    }
    for (const ir::Graph* sub : g.Subgraphs(i)) Walk(*sub, inf, depth + 1, visit);
  }
}

Json DimJson(const sym::MaybeExpr& d) { return d ? Json(d->ToString(kMaxDimText)) : Json(nullptr); }

}  // namespace

void WriteShapesText(const ShapesReport& r, std::ostream& out) {
  if (r.error) {
    out << LoadErrorText(r.path, *r.error) << "\n";
    return;
  }
  out << r.path << "\n";
  Walk(r.model->graph(), *r.inference, 1,
       [&](const ir::Graph& g, int depth, int node, std::string_view name,
           const infer::TensorFact& f, bool initializer) {
         std::string line(2 * depth, ' ');
         if (node < 0) {
           absl::StrAppend(&line, initializer ? "initializer " : "input ", std::string(name));
         } else {
           absl::StrAppend(&line, std::string(name), "  (", g.node(node).op_type(), " '",
                           g.NodeLabel(node), "')");
         }
         absl::StrAppend(&line, ": ", infer::ShapeText(f, kMaxDimText));
         if (f.values && !f.values->empty() && f.values->size() <= 16) {
           absl::StrAppend(&line, " = ", infer::ValuesText(f, kMaxDimText));
         }
         if (r.at != nullptr) absl::StrAppend(&line, "  at ", EvaluatedText(f, *r.at));
         out << line << "\n";
       });
  for (const auto& n : r.inference->notes) out << "  note: " << n.message << "\n";
}

void WriteShapesJson(const std::vector<ShapesReport>& reports, std::ostream& out) {
  Json doc;
  doc["tool"] = {{"name", "onnx-shapelint"}, {"version", std::string(lint::Version())}};
  doc["schema_version"] = kJsonSchemaVersion;
  Json models = Json::array();
  for (const ShapesReport& r : reports) {
    Json values = Json::array();
    Json notes = Json::array();
    if (r.error) {
      models.push_back({{"path", r.path},
                        {"error", *r.error},
                        {"values", std::move(values)},
                        {"notes", std::move(notes)}});
      continue;
    }
    Walk(r.model->graph(), *r.inference, 0,
         [&](const ir::Graph& g, int, int node, std::string_view name, const infer::TensorFact& f,
             bool initializer) {
           Json v;
           v["name"] = std::string(name);
           v["graph"] = g.path();
           v["producer"] =
               node < 0 ? Json(initializer ? "initializer" : "input") : Json(g.NodeLabel(node));
           v["op_type"] = node < 0 ? Json(nullptr) : Json(g.node(node).op_type());
           v["elem_type"] = infer::ElementTypeName(f.elem_type);
           if (f.shape) {
             Json dims = Json::array();
             for (const auto& d : *f.shape) dims.push_back(DimJson(d));
             v["shape"] = std::move(dims);
           } else {
             v["shape"] = nullptr;
           }
           if (f.values) {
             Json vals = Json::array();
             for (const auto& e : *f.values) vals.push_back(DimJson(e.value));
             v["values"] = std::move(vals);
           } else {
             v["values"] = nullptr;
           }
           if (r.at != nullptr) {
             Json dims = nullptr;
             if (f.shape) {
               dims = Json::array();
               for (const auto& d : *f.shape) {
                 auto x = d ? d->Evaluate(*r.at) : std::nullopt;
                 dims.push_back(x ? Json(*x) : Json(nullptr));
               }
             }
             v["at"] = std::move(dims);
           }
           values.push_back(std::move(v));
         });
    for (const auto& n : r.inference->notes) notes.push_back(n.message);
    models.push_back({{"path", r.path},
                      {"error", nullptr},
                      {"values", std::move(values)},
                      {"notes", std::move(notes)}});
  }
  doc["models"] = std::move(models);
  out << DumpJson(doc) << '\n';
}

}  // namespace shapelint::report
