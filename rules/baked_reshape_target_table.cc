// SL002: a trained table sized like the grid a Reshape target bakes (baked_reshape_target.h).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "baked_reshape_target.h"
#include "lint/literals.h"

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

}  // namespace

void NoteTrainedTable(const Analysis& analysis, const Cause& cause, Finding& f) {
  const ir::Graph& g = analysis.model().graph();
  if (cause.graph != &g || cause.node < 0) return;
  const ir::Node n = g.node(cause.node);
  if (n.input_size() < 2) return;
  const infer::TensorFact* input = analysis.inference().Find(n.input(0));
  const infer::TensorFact* target = analysis.inference().Find(n.input(1));
  const auto dims = analysis.DimsAt(n.input(0), analysis.witness());
  if (input == nullptr || !input->shape || target == nullptr || !target->values || !dims ||
      dims->size() != input->shape->size()) {
    return;
  }
  for (int64_t literal :
       DynamicLiterals(*input->shape, *dims, *target->values, analysis.witness())) {
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

}  // namespace shapelint::lint::baked_reshape_target
