// Shared by the corpus tests: the invariant that a bake holds at the export size
// (docs/severity.md). The exporter ran the model at the example sizes, and every corpus label's
// first run shows ONNX Runtime running there; an error about a requirement or a declaration
// that the graph breaks at the export size itself is not about a baked size. And what a stored
// ONNX Runtime run says of a counterexample.
#ifndef SHAPELINT_TESTS_CORPUS_EXPORT_INVARIANT_H_
#define SHAPELINT_TESTS_CORPUS_EXPORT_INVARIANT_H_

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "corpus/run_inputs.h"
#include "shapelint/ir/model.h"
#include "shapelint/lint/finding.h"
#include "shapelint/lint/probe.h"

namespace shapelint::lint {

// True when an error says that the source may share the limit it reports, as the severity
// policy asks of an error on a model whose PyTorch module accepts only the export size
// (docs/severity.md, "Runs settle it"): the corpus tests count such errors on healthy models
// apart only while they say so.
inline bool SaysSourceMayShare(const Finding& f) {
  for (const Note& n : f.notes) {
    if (n.message.find("eager PyTorch fails at the counterexample too") != std::string::npos) {
      return true;
    }
  }
  return false;
}

// The errors among `findings` that are false at the export sizes: the node whose failure the
// counterexample shows fails at the export sizes too, or an output it shows differing from its
// declaration differs there too. Empty when the export sizes do not fit the file (a
// post-processor renamed an input).
inline std::vector<std::string> ErrorsFalseAtExport(const ir::Model& model,
                                                    const std::vector<Finding>& findings,
                                                    const nlohmann::json& export_inputs) {
  std::vector<std::string> out;
  auto probed = Probe(model, {{"export", ProbeSpec{{}, RunInputs(export_inputs), {}, 0, 0}}});
  if (!probed.ok() || probed->empty()) return out;
  const Counterexample& at = probed->front().at;
  for (const Finding& f : findings) {
    // A source mismatch claims no bake: the graph computes another value than its recorded
    // source, at the export size too where the two differ there; nor does a node that fails
    // at every size, SL016's broken model (docs/severity.md).
    if (f.severity != Severity::kError || !f.counterexample ||
        f.evidence == Evidence::kSourceMismatch || f.evidence == Evidence::kBroken) {
      continue;
    }
    const Counterexample& cx = *f.counterexample;
    if (cx.node_fails && at.node_fails && cx.failing_node.graph == at.failing_node.graph &&
        cx.failing_node.index == at.failing_node.index) {
      out.push_back(absl::StrCat(f.rule, " at ", f.node.name, ": ", cx.failing_node.name,
                                 " fails at the export sizes too: ", at.failure));
    }
    for (const ShapeAt& o : cx.outputs) {
      if (!o.expected || o.actual == *o.expected) continue;
      for (const ShapeAt& e : at.outputs) {
        if (e.value == o.value && e.expected && e.actual != *e.expected) {
          out.push_back(absl::StrCat(f.rule, " at ", f.node.name, ": output '", o.value,
                                     "' differs from its declaration at the export sizes too"));
        }
      }
    }
  }
  return out;
}

// The export size of every input symbol a graph input declares as a plain name (`x` axis 2
// declared `s53`, exported at 8: s53 -> 8), from a label's `export_inputs`.
inline std::map<std::string, int64_t> ExportSizes(const ir::Model& model,
                                                  const nlohmann::json& export_inputs) {
  std::map<std::string, int64_t> sizes;
  for (const auto& input : model.graph().proto().input()) {
    if (!export_inputs.contains(input.name())) continue;
    const nlohmann::json& dims = export_inputs[input.name()];
    const auto& shape = input.type().tensor_type().shape();
    for (int i = 0; i < shape.dim_size() && i < static_cast<int>(dims.size()); ++i) {
      const std::string& name = shape.dim(i).dim_param();
      const bool plain = !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
      });
      if (plain) sizes.emplace(name, dims[i].get<int64_t>());
    }
  }
  return sizes;
}

// The symbols whose export size (`sizes`, ExportSizes) the witness `f` states leaves out: the
// model ran there, so a finding told the export sizes that says it works only elsewhere states
// a bake that does not hold at the export size. A residue class holds the sizes congruent to
// its window (SymbolRange::congruent_from).
inline std::vector<std::string> WitnessLeavesOutExport(
    const Finding& f, const std::map<std::string, int64_t>& sizes) {
  std::vector<std::string> out;
  if (!f.witness) return out;
  for (const SymbolRange& r : f.witness->ranges) {
    auto it = sizes.find(r.symbol);
    if (it == sizes.end()) continue;
    const int64_t v = it->second;
    const bool in_class = r.congruent_from && r.every && r.min && r.max && v >= *r.congruent_from &&
                          ((v - *r.min) % *r.every + *r.every) % *r.every <= *r.max - *r.min;
    const bool inside = in_class || ((!r.min || *r.min <= v) && (!r.max || v <= *r.max));
    if (!inside) out.push_back(absl::StrCat(r.symbol, "=", v, " outside the witness"));
  }
  return out;
}

// What is false, by ORT's stored run, in what the counterexample says of the ONNX model (empty
// when all of it is true): a node that fails there makes ORT fail; a graph that runs there gives
// ORT's output shapes, each the counterexample's.
inline std::string UntrueOfModel(const Counterexample& cx, const nlohmann::json& stored,
                                 const std::vector<std::string>& outputs) {
  if (cx.node_fails) return stored.contains("ort_error") ? "" : "ORT runs there";
  if (!stored.contains("ort")) return "ORT fails there";
  const nlohmann::json& ort = stored["ort"];
  for (const ShapeAt& o : cx.outputs) {
    const auto at = std::find(outputs.begin(), outputs.end(), o.value);
    if (at == outputs.end()) continue;
    const size_t i = static_cast<size_t>(at - outputs.begin());
    if (i >= ort.size() || ort[i].get<std::vector<int64_t>>() != o.actual) {
      return absl::StrCat("output '", o.value, "' is ", i < ort.size() ? ort[i].dump() : "absent",
                          " on ORT");
    }
  }
  return "";
}

}  // namespace shapelint::lint

#endif  // SHAPELINT_TESTS_CORPUS_EXPORT_INVARIANT_H_
