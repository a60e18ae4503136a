#include "lint/analysis.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "lint/provenance.h"
#include "lint/requirements.h"

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
// not evidence of a design. Neither is a view rounded up to a multiple: a branch on
// h % p != 0 leaves the range unbounded, a congruence being no range.
bool ModuleSizes(const Pin& pin, const std::vector<std::string>& traced) {
  if (pin.contract || pin.always_false || pin.rounds_up || pin.symbols.empty() ||
      SizeOne(*pin.requirement)) {
    return false;
  }
  return std::includes(traced.begin(), traced.end(), pin.symbols.begin(), pin.symbols.end());
}

// True when the exporter recorded, on the stack of the node `pin` is at, a line that asks to
// resample (transformers' interpolate_pos_encoding, timm's resample_abs_pos_embed) and the
// graph resamples nothing under it (ResamplingCall): the traced range then says only that the
// trace took the branch that keeps the table, not that the table is the module's limit at
// every size; SL004 states the hypothesis.
bool ResamplesInBranch(const Pin& pin) {
  const infer::Requirement& r = *pin.requirement;
  if (r.graph == nullptr || r.node < 0) return false;
  return ResamplingCall(*r.graph, r.graph->node(r.node)).has_value();
}

// True when the node `pin` is at was recorded on a line that turns a computed value into a
// Python int (TakesIntOfValue): torch.export's ranges then do not vouch that no constant holds
// the example's sizes. A guard on a combination of sizes (int(h * w) guards s0*s53 == 80) or
// int() of float arithmetic on one (int(x.size(1) * 0.5)) narrows no symbol's range, and the
// trace wrote the number.
bool AtIntLine(const Pin& pin) {
  const infer::Requirement& r = *pin.requirement;
  if (r.graph == nullptr || r.node < 0) return false;
  const std::optional<SourceLocation> line = SourceOf(r.graph->node(r.node));
  return line && TakesIntOfValue(line->code);
}

// `constraints` and then `more`, as the witness search takes them.
std::vector<const infer::Requirement*> Joined(
    const std::vector<const infer::Requirement*>& constraints,
    const std::vector<infer::Requirement>& more) {
  std::vector<const infer::Requirement*> out = constraints;
  for (const infer::Requirement& r : more) out.push_back(&r);
  return out;
}

bool IsHintAt(const infer::Requirement* r) { return IsHint(*r); }

// The constraints but intermediate value_info: a hint, the writing tool's inference
// (docs/severity.md). The sizes where the graph works are the ops' and the interface's to say,
// not those of a hint that may be wrong everywhere but at a few sizes (onnxslim's h + w - 1 for
// h * w, which would put the witness of a detector at 473 x 25).
std::vector<const infer::Requirement*> WithoutHints(std::vector<const infer::Requirement*> all) {
  std::erase_if(all, IsHintAt);
  return all;
}

}  // namespace

Analysis::Analysis(const ir::Model& model)
    : model_(model),
      inference_(infer::Infer(model)),
      symbols_(inference_.InputSymbols()),
      pins_(FindPins(inference_, symbols_)),
      recorded_(ReadInputSymbolRanges(model_, inference_)),
      recorded_bounds_(BoundRequirements(recorded_)),
      witness_constraints_(WithoutHints(Joined(pins_.constraints, recorded_bounds_))),
      solution_(inference_, symbols_, witness_constraints_),
      evaluator_(model_, inference_, symbols_, solution_, recorded_),
      signature_(model_) {
  if (std::any_of(pins_.constraints.begin(), pins_.constraints.end(), IsHintAt)) {
    hinted_ = std::make_unique<Hinted>(*this, Joined(pins_.constraints, recorded_bounds_));
  }
  specialized_ = recorded_.specialized;
  for (const infer::Requirement& r : inference_.requirements) {
    if (IsBakedDeclaration(r)) declared_at_example_.insert(r.value);
  }
  std::map<std::vector<std::string>, bool> runs_otherwise;  // by the pin's symbols
  // The symbols of restrictions whose recorded line says the trace may have written the size:
  // a line that takes int(), or asks to resample where the graph does not. The same
  // restriction restated downstream (the view back to [b, c, h, w] after int(h * w), the
  // residual Add after a position table's) is that line's too.
  std::set<std::vector<std::string>> recorded_lines;
  std::vector<bool> at_lines;  // by pin: each pin's recorded line is read once
  at_lines.reserve(pins_.pins.size());
  for (const Pin& pin : pins_.pins) {
    at_lines.push_back(AtIntLine(pin) || ResamplesInBranch(pin));
    if (at_lines.back()) recorded_lines.insert(pin.symbols);
  }
  for (size_t i = 0; i < pins_.pins.size(); ++i) {
    const Pin& pin = pins_.pins[i];
    const bool at_line = at_lines[i];
    const bool restated =
        !at_line &&
        std::any_of(
            recorded_lines.begin(), recorded_lines.end(), [&](const std::vector<std::string>& r) {
              return std::includes(pin.symbols.begin(), pin.symbols.end(), r.begin(), r.end());
            });
    const bool design = ModuleSizes(pin, recorded_.traced) && !RunsOtherwise(pin, runs_otherwise);
    // A restriction of the module's reading (design) that restates one a recorded line
    // explains is that line's finding, not a second one that says the opposite.
    if (design && restated) continue;
    (design && !at_line ? design_pins_ : blamed_pins_).push_back(pin);
  }
}

// A declared shape that the graph contradicts where every op of it runs. The exporter declares
// the shapes of its own symbolic trace: where it says s27 - 2 over a range with no upper
// bound and the graph returns min(s27 - 2, 2) chunks without failing, the graph lost what the
// trace kept (a split whose number of chunks came from the example). A module's own size
// makes an op fail past it (a table too short to broadcast, a grid that no longer reshapes).
bool Analysis::RunsOtherwise(const Pin& pin,
                             std::map<std::vector<std::string>, bool>& by_symbols) const {
  if (pin.requirement->kind != infer::RequirementKind::kDeclaredShape) return false;
  auto [it, fresh] = by_symbols.try_emplace(pin.symbols, false);
  if (fresh) {
    const std::optional<sym::Binding> moved = evaluator_.MoveSymbols(pin.symbols);
    it->second = moved && !evaluator_.FirstNodeFailure(*moved);
  }
  return it->second;
}

void Analysis::AssignCauses(absl::Span<const Matcher* const> matchers) {
  Blamed blamed =
      lint::AssignCauses({model_, inference_, solution_, evaluator_, specialized_, signature_},
                         blamed_pins_, matchers);
  causes_ = std::move(blamed.causes);
  weight_symbols_ = std::move(blamed.weight_symbols);
  reported_through_causes_ = FindReportedThroughCauses();
}

bool Analysis::Claimed(const ir::Graph& graph, int node) const {
  return std::any_of(causes_.begin(), causes_.end(), [&](const Cause& c) {
    return c.owner != nullptr && c.graph == &graph && c.node == node;
  });
}

absl::flat_hash_set<const infer::Requirement*> Analysis::FindReportedThroughCauses() const {
  absl::flat_hash_set<std::string> elsewhere;  // symbols SL003, SL006 or SL011 report
  for (const auto& [symbol, size] : specialized_) elsewhere.insert(symbol);
  for (const Cause& c : causes_) {
    if (c.owner != nullptr) continue;
    for (const Pin* p : c.pins) {
      if (p->contract || p->requirement->kind == infer::RequirementKind::kDeclaredShape) {
        elsewhere.insert(p->symbols.begin(), p->symbols.end());
      }
    }
  }
  absl::flat_hash_set<const infer::Requirement*> reported;
  for (const Cause& c : causes_) {
    for (const Pin* p : c.pins) {
      const bool stated = c.owner != nullptr ||
                          std::all_of(p->symbols.begin(), p->symbols.end(),
                                      [&](const std::string& s) { return elsewhere.contains(s); });
      if (stated) reported.insert(p->requirement);
    }
  }
  return reported;
}

bool Analysis::FixedByWeight(const std::string& symbol) const {
  if (!std::binary_search(weight_symbols_.begin(), weight_symbols_.end(), symbol)) return false;
  for (const SymbolRange& r : WitnessFor({symbol}).ranges) {
    if (r.symbol == symbol && r.min && r.max && *r.min == *r.max) return true;
  }
  return false;
}

bool Analysis::FalseAtExport(const infer::Requirement& requirement) const {
  if (!has_example()) return false;
  const std::optional<bool> holds = HoldsUnder(requirement, ExampleOverWitness());
  return holds.has_value() && !*holds;
}

bool Analysis::AllSpecialized(const std::vector<std::string>& symbols) const {
  if (symbols.empty()) return false;
  for (const std::string& s : symbols) {
    auto it = specialized_.find(s);
    if (it == specialized_.end() || example().Get(s) != it->second) return false;
  }
  return true;
}

}  // namespace shapelint::lint
