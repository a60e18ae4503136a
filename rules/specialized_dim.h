// SL011's reading of a literal the trace computed from a specialized size
// (specialized_dim_computed.cc), apart from the rule's report (specialized_dim.cc). Private to
// the rule.
#ifndef SHAPELINT_RULES_SPECIALIZED_DIM_H_
#define SHAPELINT_RULES_SPECIALIZED_DIM_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lint/analysis.h"

namespace shapelint::lint::specialized_dim {

// The elements of node input `in` where it is a literal of at most kMaxLiteralElements (an
// initializer or a Constant's output) whose values the engine tracks; nullptr otherwise: the
// literals in which SL011 looks for the trace's numbers.
inline constexpr int kMaxLiteralElements = 8;
const std::vector<infer::Element>* LiteralElements(const Analysis& analysis, const ir::Graph& graph,
                                                   std::string_view in);

// A literal of the graph that holds a number forward computed from a size: its node, its name
// and the number.
struct ComputedLiteral {
  int node = -1;
  std::string name;
  int64_t value = 0;
};

// A number forward computed in Python where the graph computes with `symbol`'s size, which
// torch.export specialized: an integer literal other than -1, 0 and 1 that its node's recorded
// line (the user's, not torch's own code) does not write, read
//  - by integer arithmetic that reads the size as a number too, on a line that reads a size or
//    writes that arithmetic: n = 1 << (x.size(-1) - 1).bit_length(); F.pad(x, (0, n - L))
//    leaves Sub(16, s53);
//  - or by a Slice as a start, end or step on an axis of that size, on a line that slices:
//    step = max(int(x.size(2)) // 4, 1); x[:, :, ::step] leaves a step of 2.
// The line names a Python value where the graph holds its number, and the record says the trace
// read the size as a Python int: the number is what forward computed from the example's size. A
// number the line spells out is the module's, whatever the record says. The first such literal
// in topological order; nullopt when there is none.
std::optional<ComputedLiteral> ComputedBesideSize(const Analysis& analysis, const ir::Graph& graph,
                                                  const std::string& symbol);

}  // namespace shapelint::lint::specialized_dim

#endif  // SHAPELINT_RULES_SPECIALIZED_DIM_H_
