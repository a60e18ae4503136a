// The ranges torch.export recorded for the symbols of a dynamo export: the graph's metadata
// entry pkg.torch.export.ExportedProgram.range_constraints, e.g.
//   {s77: VR[0, int_oo], s27: VR[2, int_oo], s0: VR[10, 10]}
// (sympy's value ranges; int_oo is unbounded). A range of one value is a symbol the exporter
// specialized while tracing (int(x.size(-1)), a guard on the size) although the ONNX input may
// still declare it dynamic.
#ifndef SHAPELINT_LIB_LINT_EXPORT_RANGES_H_
#define SHAPELINT_LIB_LINT_EXPORT_RANGES_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "shapelint/infer/engine.h"
#include "shapelint/ir/model.h"

namespace shapelint::lint {

inline constexpr std::string_view kRangeConstraintsKey =
    "pkg.torch.export.ExportedProgram.range_constraints";

// The model's metadata entry where `onnx-shapelint fix` lists, comma-separated, the symbols it
// made the graph follow (a Reshape target computed from the input's shape where the trace had
// baked the size): torch.export's record of those symbols is then of the graph before the fix.
inline constexpr std::string_view kFixFollowedKey = "onnx_shapelint.fix.followed";

// The symbols `model`'s kFixFollowedKey entry lists; empty when it has none.
std::vector<std::string> FollowedByFix(const ir::Model& model);

struct ExportRange {
  std::optional<int64_t> min, max;  // nullopt: unbounded
};

// True for the bounds torch 2.15 records for a size of 1 that the code read as a Python int
// (VR[1, 2]; `bounds` below keeps no lower bound of 1): not one size, yet no guard of the code.
inline bool ReadAtOne(const ExportRange& bound) { return !bound.min && bound.max == 2; }

// The ranges in `text`, by symbol; entries that do not read as NAME: VR[LO, HI] are left out
// (no range is better than a wrong one).
std::map<std::string, ExportRange> ParseRangeConstraints(std::string_view text);

// The ranges `model` records: in its main graph's metadata, else in the model's own (the only
// metadata of IR versions before 10, and of ONNX's text format as Debian's onnx parses it).
// Empty when it records none. Where the inputs name their axes as dynamic_shapes did
// (Dim("height")), each entry torch.export made for such an axis is given under that name too,
// found as torch numbers its symbols (the SHA-256 of the axis's source name, export_ranges.cc).
std::map<std::string, ExportRange> ExportRanges(const ir::Model& model);

// The range of each of `input_symbols` (the input dims declared dynamic) that `record` gives:
// by name, and for the symbols the record does not name, the range every entry left over shares
// when that range has no upper bound. torch.export names its symbols s77, s53 while the ONNX
// input may carry the user's names (Dim("batch"), dynamic_axes' strings), with nothing that maps
// one onto the other; but when every entry no name matched records the same unbounded range,
// each such input dim was traced with that range whichever entry is its own. A specialized
// size (VR[8, 8]) never shows under a name torch did not give it: the exporter declares that
// axis static.
std::map<std::string, ExportRange> RangesOfInputSymbols(
    const std::map<std::string, ExportRange>& record,
    const std::vector<std::string>& input_symbols);

// What `model` records of the symbols of input dims declared dynamic, read in one pass.
struct InputSymbolRanges {
  // Specialized to one size (VR[v, v]), with that size.
  std::map<std::string, int64_t> specialized;
  // Traced symbolically without an upper bound (VR[2, int_oo]), sorted. The trace keeps such a
  // size out of the constants it computes (a size read as a Python int specializes the symbol,
  // a guard narrows its range), so a literal tensor of the graph does not hold its example
  // value. Attributes that the exporter's decompositions set from the example's sizes (an
  // adaptive pool's kernel) are not literals. One leak, seen on torch 2.15: int() of float
  // arithmetic on the size (int(x.size(1) * 0.5)) writes a number and leaves the range as it is.
  // Empty when the record holds unbacked sizes (u0, u1): torch 2.15 made some of int(size) so,
  // and the graph then holds their example values as literals (a U-Net's crop of
  // int(up.size(2))), so the record vouches for no symbol.
  std::vector<std::string> traced;
  // Ranges narrower than every size yet holding more than one (VR[2, int_oo], VR[64, int_oo],
  // VR[1, 2]): the sizes the exported program is claimed for, which witnesses and
  // counterexamples keep to. A bound of 0 or 1 below is none.
  std::map<std::string, ExportRange> bounds;
};

// The recorded bounds of `ranges` as requirements (symbol >= min, max >= symbol), for the
// witness search to keep to.
std::vector<infer::Requirement> BoundRequirements(const InputSymbolRanges& ranges);

// True when `value` for `symbol` lies within its recorded bounds (or it has none).
bool WithinBounds(const InputSymbolRanges& ranges, const std::string& symbol, int64_t value);
InputSymbolRanges ReadInputSymbolRanges(const ir::Model& model, const infer::Inference& inference);

}  // namespace shapelint::lint

#endif  // SHAPELINT_LIB_LINT_EXPORT_RANGES_H_
