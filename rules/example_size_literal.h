// SL007's pieces shared by its detection (example_size_literal.cc) and its repair
// (example_size_literal_fix.cc): the literals a node holds where a size belongs, and how each
// derives from the example size. Private to the rule.
#ifndef SHAPELINT_RULES_EXAMPLE_SIZE_LITERAL_H_
#define SHAPELINT_RULES_EXAMPLE_SIZE_LITERAL_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "lint/analysis.h"
#include "shapelint/lint/fix_it.h"

namespace shapelint::lint::example_size_literal {

// How a literal may derive from the example size d of the dim it addresses.
enum Form : unsigned {
  kWhole = 1,     // d: x[:, :T], k = D, a window as large as the map
  kMinusOne = 2,  // d - 1: the last index, x.narrow(-1, 0, W - 1)
  kHalf = 4,      // d // 2 or (d + 1) // 2: half a dim, fftshift-style rolls
  kDouble = 8,    // 2 * d: upsampling to int(H) * 2
  kSqrt = 16,     // sqrt(d): a token count folded back into a square grid
  kRoundUp = 32,  // pads up to the next multiple of 4, 8, ..., 64 (window or patch size)
  // Some arithmetic of d that the exporter's record shows: torch.export specialized d's symbols
  // and the node's recorded line takes int() of a size (torch.topk(x, int(x.size(-1)) - 2)).
  // Never one of a slot's `forms`: FormOf does not return it.
  kRecordedLine = 64,
  // The size torch.export specialized the dim's one symbol to, where the dim is that symbol
  // through a floor or a min (the map after a strided conv): the trace's int(x.size(2)) reached
  // a literal downstream (F.interpolate(head(x), size=(H, W))). Never one of a slot's `forms`.
  kSpecializedSize = 128,
  // The same size without the record: every size of a Resize is the export size of the one
  // symbol its axis follows, through a floor or a min (a map resized back to the input's size
  // after strided layers). Agreement on two axes or more is no coincidence with a constant, but
  // nothing records that the trace computed them: a hypothesis. Never one of a slot's `forms`.
  kInputSize = 256,
};

// One literal where a size of `dim` belongs.
struct Slot {
  std::string operand;  // "ends", "indices", "k", "sizes", "kernel_shape", "pads", "shape",
                        // "grid" (its dims)
  int64_t literal = 0;
  sym::Expr dim;
  unsigned forms = 0;
  infer::OriginId origin = infer::kNoOrigin;
  int input = -1;      // the node input that holds the literal; -1 for an attribute
  size_t element = 0;  // its place among that input's values
  // False for a dim past a floor or a min of the inputs' dims (windows, strides, padding
  // arithmetic), where a match with the example is more likely a coincidence: only
  // kSpecializedSize derives such a slot's literal.
  bool polynomial = true;
};

// A literal the finding names, with how it derives from its dim's example size d.
struct Derived {
  Slot slot;
  Form form;
  int64_t d = 0;
  sym::MaybeExpr also;  // another dim it derives from as well
};

// The multiples of 4, 8, ..., 64 a one-sided pad of `v` reaches from the example size d.
std::vector<int64_t> RoundUpMultiples(int64_t v, int64_t d);
// Which of the slot's forms gives the literal from the example size d, if any.
std::optional<Form> FormOf(const Slot& slot, int64_t d);
// A dim as findings print it; long expressions are cut.
std::string DimText(const sym::Expr& dim);
// How `literal` derives from `dim` at the example, e.g. "x_dim_3 // 2", or nullopt.
std::optional<std::string> Derivation(const Slot& slot, int64_t d);

// Values of a node input that the engine tracks, with their origins.
const std::vector<infer::Element>* ValuesOf(const Analysis& analysis, ir::Node n, int input);
std::optional<int64_t> ConstantOf(const infer::Element& e);
std::vector<int64_t> IntsAttr(ir::Node n, std::string_view name);
std::optional<int64_t> IntAttr(ir::Node n, std::string_view name);

// Slots of node `index` of `g`: the literals in its size operands and the dims they address.
std::vector<Slot> SlotsOf(const Analysis& analysis, const ir::Graph& g, int index);

// True when `node` is a Resize whose every size (two or more) sits on an axis that follows one
// input symbol through a floor or a min and equals that symbol's export size (kInputSize).
bool ResizedBackToInput(const Analysis& analysis, ir::Node node, const std::vector<Slot>& slots);

// The repair of node `node` of the main graph: each of `literals` computed from the input's
// shape as it derived from the example, or why that cannot be done.
absl::StatusOr<FixIt> RepairLiterals(const Analysis& analysis, int node,
                                     Applicability applicability,
                                     const std::vector<Derived>& literals);

}  // namespace shapelint::lint::example_size_literal

#endif  // SHAPELINT_RULES_EXAMPLE_SIZE_LITERAL_H_
