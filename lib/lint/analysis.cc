#include "lint/analysis.h"

#include <algorithm>
#include <utility>

namespace shapelint::lint {

namespace {

// True when the requirement is that a size be 1: what an op demands of its operand (Squeeze of
// an axis), not a size some tensor of the module has.
bool SizeOne(const infer::Requirement& r) {
  return r.rhs.AsConstant() == 1 || r.lhs.AsConstant() == 1;
}

// True when `pin` restricts only symbols torch.export traced symbolically (`traced`, sorted):
// the sizes it compares them with are then not the example's but the module's, a buffer's or a
// parameter's or a number in its code (lint/export_ranges.h). An input contract (past + seq ==
// total) stays with SL006, and a pin that fails at every size tried is a limit of the solver,
// not evidence of a design.
bool ModuleSizes(const Pin& pin, const std::vector<std::string>& traced) {
  if (pin.contract || pin.always_false || pin.symbols.empty() || SizeOne(*pin.requirement)) {
    return false;
  }
  return std::includes(traced.begin(), traced.end(), pin.symbols.begin(), pin.symbols.end());
}

}  // namespace

Analysis::Analysis(const ir::Model& model)
    : model_(model),
      inference_(infer::Infer(model)),
      symbols_(inference_.InputSymbols()),
      pins_(FindPins(inference_, symbols_)),
      solution_(inference_, symbols_, pins_.constraints),
      evaluator_(model_, inference_, symbols_, solution_) {
  InputSymbolRanges recorded = ReadInputSymbolRanges(model_, inference_);
  specialized_ = std::move(recorded.specialized);
  for (const Pin& pin : pins_.pins) {
    (ModuleSizes(pin, recorded.traced) ? design_pins_ : blamed_pins_).push_back(pin);
  }
}

void Analysis::AssignCauses(absl::Span<const Matcher* const> matchers) {
  Blamed blamed = lint::AssignCauses({model_, inference_, solution_, evaluator_, specialized_},
                                     blamed_pins_, matchers);
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
