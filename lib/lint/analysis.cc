#include "lint/analysis.h"

#include <algorithm>

namespace shapelint::lint {

Analysis::Analysis(const ir::Model& model)
    : model_(model),
      inference_(infer::Infer(model)),
      symbols_(inference_.InputSymbols()),
      pins_(FindPins(inference_, symbols_)),
      solution_(inference_, symbols_, pins_.constraints),
      evaluator_(model_, inference_, symbols_, solution_),
      specialized_(SpecializedInputSymbols(model_, inference_)) {}

void Analysis::AssignCauses(absl::Span<const Matcher* const> matchers) {
  Blamed blamed =
      lint::AssignCauses({model_, inference_, solution_, evaluator_}, pins_.pins, matchers);
  causes_ = std::move(blamed.causes);
  weight_symbols_ = std::move(blamed.weight_symbols);
}

bool Analysis::Claimed(const ir::Graph& graph, int node) const {
  return std::any_of(causes_.begin(), causes_.end(), [&](const Cause& c) {
    return c.owner != nullptr && c.graph == &graph && c.node == node;
  });
}

bool Analysis::FixedByWeight(const std::string& symbol) const {
  if (!std::binary_search(weight_symbols_.begin(), weight_symbols_.end(), symbol)) return false;
  for (const SymbolRange& r : WitnessFor({symbol}).ranges) {
    if (r.symbol == symbol && r.min && r.max && *r.min == *r.max) return true;
  }
  return false;
}

}  // namespace shapelint::lint
