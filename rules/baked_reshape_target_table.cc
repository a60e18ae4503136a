// SL002: who may own a Reshape target's literals (baked_reshape_target.h): a trained table sized
// like the grid it bakes, or the module's code that writes them.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "baked_reshape_target.h"
#include "lint/literals.h"
#include "lint/provenance.h"

namespace shapelint::lint::baked_reshape_target {
namespace {

// The literals of the target that stand for dynamic dims of the input at the witness: runs of
// input dims and target entries with equal products, matched from the left up to a -1 and from
// the right down to it, whose input dims are not all static. [b, 8, -1, 49] of [b, 256, h, w] at
// h = w = 7 gives 49 (the run h, w), not 8 (the -1 takes the rest of the channels with it).
std::vector<int64_t> DynamicLiterals(const std::vector<sym::MaybeExpr>& shape,
                                     const std::vector<int64_t>& dims,
                                     const std::vector<infer::Element>& target,
                                     const sym::Binding& at) {
  std::vector<int64_t> entries;
  std::vector<bool> literal;
  for (const infer::Element& e : target) {
    const std::optional<int64_t> v = e.value ? e.value->Evaluate(at) : std::nullopt;
    if (!v || *v == 0) return {};  // a 0 copies a dim; the runs are then the repair's to find
    entries.push_back(*v);
    literal.push_back(e.value->IsConstant());
  }
  std::vector<int64_t> out;
  // One run from dims[i] and entries[j] on, in direction `step` (+1 or -1); the next i and j.
  auto run = [&](size_t& i, size_t& j, int step, size_t i_end, size_t j_end) {
    if (i == i_end || j == j_end || entries[j] == -1) return false;
    int64_t have = dims[i], want = entries[j];
    bool dynamic = !shape[i] || !shape[i]->IsConstant();
    bool lit = literal[j];
    size_t i1 = i + step, j1 = j + step;
    while (have != want) {
      if (have < want && i1 != i_end) {
        if (__builtin_mul_overflow(have, dims[i1], &have)) return false;
        dynamic = dynamic || !shape[i1] || !shape[i1]->IsConstant();
        i1 += step;
      } else if (want < have && j1 != j_end && entries[j1] != -1) {
        if (__builtin_mul_overflow(want, entries[j1], &want)) return false;
        lit = false;  // several entries for one run: which of them is baked is not known
        j1 += step;
      } else {
        return false;
      }
    }
    if (dynamic && lit && entries[j] >= 2) out.push_back(entries[j]);
    i = i1;
    j = j1;
    return true;
  };
  size_t i = 0, j = 0;
  while (run(i, j, 1, dims.size(), entries.size())) {
  }
  // Leftward down to where the rightward walk stopped: size_t wraps below 0, and the walk's
  // end is one before the first index it may take.
  size_t ri = dims.size() - 1, rj = entries.size() - 1;
  if (i < dims.size() && j < entries.size()) {
    while (run(ri, rj, -1, i - 1, j - 1)) {
    }
  }
  return out;
}

// The cause's Reshape in the main graph as the engine knows it at the witness: its input's
// and target's facts, the input's dims, and the target's literals that stand for dynamic dims.
// Nullopt where any of them is unknown.
struct ReshapeAtWitness {
  const infer::TensorFact* input = nullptr;
  const infer::TensorFact* target = nullptr;
  std::vector<int64_t> dynamic_literals;
};

std::optional<ReshapeAtWitness> ReshapeOf(const Analysis& analysis, const Cause& cause) {
  const ir::Graph& g = analysis.model().graph();
  if (cause.graph != &g || cause.node < 0) return std::nullopt;
  const ir::Node n = g.node(cause.node);
  if (n.input_size() < 2) return std::nullopt;
  ReshapeAtWitness r;
  r.input = analysis.inference().Find(n.input(0));
  r.target = analysis.inference().Find(n.input(1));
  const auto dims = analysis.DimsAt(n.input(0), analysis.witness());
  if (r.input == nullptr || !r.input->shape || r.target == nullptr || !r.target->values || !dims ||
      dims->size() != r.input->shape->size()) {
    return std::nullopt;
  }
  r.dynamic_literals =
      DynamicLiterals(*r.input->shape, *dims, *r.target->values, analysis.witness());
  return r;
}

}  // namespace

void NoteTrainedTable(const Analysis& analysis, const Cause& cause, Finding& f) {
  const ir::Graph& g = analysis.model().graph();
  const std::optional<ReshapeAtWitness> reshape = ReshapeOf(analysis, cause);
  if (!reshape) return;
  for (int64_t literal : reshape->dynamic_literals) {
    const std::optional<std::string> table =
        TrainedTableMeeting(g, cause.node, literal, analysis.signature());
    if (!table) continue;
    f.notes.push_back(
        {absl::StrCat("the trained table '", *table, "' has a dim of ", literal,
                      ", as the target does where it stands for dynamic dims, and meets the "
                      "reshaped tensor downstream: if the module sized it for this grid, it "
                      "accepts only these sizes as well, and eager PyTorch fails at the "
                      "counterexample too; a run of the module settles it"),
         std::nullopt});
    return;
  }
}

void NoteWrittenLiterals(const Analysis& analysis, const Cause& cause, Finding& f) {
  const ir::Graph& g = analysis.model().graph();
  if (cause.graph != &g || cause.node < 0 || f.evidence == Evidence::kDesign) return;
  const ir::Node n = g.node(cause.node);
  if (n.input_size() < 2) return;
  const infer::TensorFact* input = analysis.inference().Find(n.input(0));
  const infer::TensorFact* target = analysis.inference().Find(n.input(1));
  if (input == nullptr || !input->shape || input->shape->empty() || target == nullptr ||
      !target->values) {
    return;
  }
  std::vector<int64_t> literals;  // the target's numbers that could be a size: 2 and up
  for (const infer::Element& e : *target->values) {
    const std::optional<int64_t> v = e.value ? e.value->AsConstant() : std::nullopt;
    if (v && *v >= 2) literals.push_back(*v);
  }
  if (literals.empty()) return;
  if (f.source) {
    // A line that spells out every number of the target (x.view(x.shape[:-1] + (2, 4))) holds
    // the module's own constants, heads or patch sizes: the view accepts only the sizes they
    // make in eager PyTorch too, and the axis is dynamic only in the declaration. Only where
    // each literal is a factor of a split: one that stands for a dynamic dim alone (the 2 of
    // [2, 4, 2, 4, 2, 4] for a batch of 2) is the example's size, whatever the line writes.
    const auto dims = analysis.DimsAt(n.input(0), analysis.witness());
    if (!dims || dims->size() != input->shape->size() ||
        !DynamicLiterals(*input->shape, *dims, *target->values, analysis.witness()).empty()) {
      return;
    }
    for (int64_t v : literals) {
      if (!WritesNumber(f.source->code, v)) return;
    }
    f.evidence = Evidence::kDesign;
    f.notes.push_back(
        {absl::StrCat("the recorded line writes every number of the target itself (",
                      f.source->code,
                      "): the module's own constants, so eager PyTorch accepts only these sizes "
                      "too and fails at the counterexample too; declare the axis static"),
         std::nullopt});
    return;
  }
  // No recorded line (TorchScript): trailing literals that split the input's last, dynamic dim
  // whole (8 features viewed as 2 heads of 4) are a split into heads as often as a bake of
  // int(x.size(-1)) // 2; the graph is the same for both.
  const sym::MaybeExpr& last = input->shape->back();
  const std::optional<int64_t> features = last ? last->Evaluate(analysis.witness()) : std::nullopt;
  if (!last || last->IsConstant() || !features) return;
  // The trailing literals whose product is the last dim: [b, 64, 56, 56] of [b, 64, 3136]
  // splits 3136 into 56 x 56, whatever literal comes before them.
  int64_t product = 1;
  size_t factors = 0;
  bool whole = false;
  for (auto it = target->values->rbegin(); it != target->values->rend() && !whole; ++it) {
    const std::optional<int64_t> v = it->value ? it->value->AsConstant() : std::nullopt;
    if (!v || *v < 2 || __builtin_mul_overflow(product, *v, &product) || product > *features) {
      break;
    }
    ++factors;
    whole = factors >= 2 && product == *features;
  }
  if (!whole) return;
  f.notes.push_back(
      {absl::StrCat("the target splits the last axis (", last->ToString(), " = ", *features,
                    ") into literal factors: if forward writes them (a split into heads, "
                    "x.view(..., heads, dim), or the grid of the input size the module is "
                    "built for), the module accepts only this size and eager PyTorch fails at "
                    "the counterexample too (then declare the axis static); if it computed them "
                    "from the size, compute them from the tensor's shape. No line is recorded to "
                    "tell; a run of the module settles it"),
       std::nullopt});
}

void ConfirmOwnFailure(const Analysis& analysis, const Cause& cause, Finding& f) {
  if (f.evidence != Evidence::kHint && f.evidence != Evidence::kUnverifiedHint) return;
  if (analysis.specialized().empty()) return;
  const std::optional<ReshapeAtWitness> reshape = ReshapeOf(analysis, cause);
  if (!reshape || reshape->dynamic_literals.empty()) return;
  const std::vector<int64_t>& literals = reshape->dynamic_literals;
  // The exporter's record is the evidence (docs/severity.md): torch.export specialized a symbol,
  // and moved from its size the Reshape itself fails, not only a value_info. Without a record
  // the literal may be a post-processor's fold of a size the model's weights fix anyway
  // (onnxslim's [-1, 384, 196] of ResMLP's 14 x 14 patches), where eager fails as well.
  auto fails_here = [&](const Counterexample& c) {
    return c.node_fails && !c.hint_only && c.failing_node.graph == "main" &&
           c.failing_node.index == cause.node;
  };
  std::optional<Counterexample> found;
  for (const auto& [symbol, size] : analysis.specialized()) {
    for (const int64_t moved : {size + 1, size - 1, size * 2, size + 2, size / 2}) {
      if (moved < 1 || moved == size) continue;
      sym::Binding at = analysis.witness();
      if (at.Get(symbol) != size) break;  // the witness is elsewhere: no export size to move
      at.Set(symbol, moved);
      Counterexample c = analysis.Evaluate(at);
      if (fails_here(c)) {
        found = std::move(c);
        break;
      }
    }
    if (found) break;
  }
  if (!found) return;
  f.counterexample = std::move(found);
  f.evidence = Evidence::kExporterRecord;
  f.notes.push_back(
      {absl::StrCat("the Reshape itself fails at the counterexample, not only a value_info: its "
                    "literal ",
                    absl::StrJoin(literals, ", "),
                    " stands for dynamic dims of the input, whose product it is at the sizes "
                    "torch.export specialized"),
       std::nullopt});
}

}  // namespace shapelint::lint::baked_reshape_target
