// What the exporter recorded of where a node came from in the PyTorch program: torch.onnx's
// dynamo exporter writes, on every node, the Python stack at the op
// (pkg.torch.onnx.stack_trace), the classes of the modules it is in
// (pkg.torch.onnx.class_hierarchy) and their names (pkg.torch.onnx.name_scopes).
#ifndef SHAPELINT_LIB_LINT_PROVENANCE_H_
#define SHAPELINT_LIB_LINT_PROVENANCE_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "shapelint/ir/model.h"
#include "shapelint/lint/finding.h"

namespace shapelint::lint {

// One frame of a recorded stack trace, outermost first as Python prints them.
struct Frame {
  std::string file;
  int64_t line = 0;
  std::string function;
  std::string code;
};

// The frames of the node's stack trace; empty when it records none or the text does not read
// as Python's `File "...", line N, in F` lines.
std::vector<Frame> StackFrames(const ir::Node& node);

// True for a frame of torch's own code (its Python files, or "<eval_with_key>" and the like).
bool IsTorchInternal(const Frame& frame);

// The innermost frame outside torch's own code (the user's line, or a model library's such as
// timm's), with the module path the node is in; nullopt when nothing is recorded.
std::optional<SourceLocation> SourceOf(const ir::Node& node);

// The node a finding about input `input` itself is shown at: the first of its readers (in the
// file's order) whose recorded stack has a frame outside torch's own code, so that the finding
// names a line of the user's; else the first reader (torch's runtime asserts read every dynamic
// input first, from torch/fx/passes/runtime_assert.py); 0 when nothing reads it.
int ReaderToShow(const ir::Graph& graph, std::string_view input);

// True when a line of Python turns a tensor's size into a Python int: `int(x.size(-1)) - 2`,
// `int(h.shape[2]) * 2`. Under torch.export that specializes the size and makes whatever the line
// computes from it a number in the graph.
bool TakesIntOfSize(std::string_view code);

// True when a line of Python reads a tensor's size: `n - x.size(-1)`, `x.shape[2] // 4`,
// `len(x)`. Where the line reads none, an op recorded at it computes with sizes the line does not
// name (a module's forward line calling a helper that does).
bool ReadsSize(std::string_view code);

// True when a line of Python cuts a tensor: a subscript with a slice (`x[:, :, ::step]`) or a
// narrow.
bool WritesSlice(std::string_view code);

// True when a line of Python turns axis `axis` of a tensor of rank `rank` into a Python int:
// `int(x.size(0))` or `int(x.shape[-4])` for axis 0 of a rank-4 input. Which tensor the line
// names is not checked: forward's names need not be the ONNX input's.
bool TakesIntOfAxis(std::string_view code, int64_t axis, int64_t rank);

// True when a line of Python writes the number 1 as a size of its own: not the -1 of a view, nor
// an axis inside .size(...) or .shape[...] (`x.view(int(x.size(1)), -1)` writes none).
bool WritesOne(std::string_view code);

// True when a line of Python turns a computed value into a Python int: int() of an expression
// that names something other than the module's own attributes (`int(h * w)`,
// `int(x.size(1) * 0.5)`, `int(math.sqrt(n))`; not `int(self.k)`, `int(4)` or
// `int(self.dim * 0.5)`). Which names are sizes the line does not say; `b, c, h, w = x.shape`
// is a line of its own.
bool TakesIntOfValue(std::string_view code);

// True when a line of Python writes the number `value` (its magnitude) as a literal of its own:
// `x[..., :4]` writes 4, `x.shape[1] * 0.5` writes neither 5 nor 0. A number the module's code
// spells out is the module's, not a size the exporter read off the example. The axes of a
// permutation (`.permute(0, 2, 4, 1, 3, 5)`, `.transpose(1, 2)`, `.movedim(1, -1)`) are no
// sizes: `x.view(b, c, h, 2, w, 2).permute(0, 2, 4, 1, 3, 5)` writes 2, not 4 or 5.
bool WritesNumber(std::string_view code, int64_t value);

// True when a line of Python writes the decimal literal `value` (its magnitude, to float32's
// precision) as a number of its own: `attn * 0.125` writes 0.125, `x * 0.5 + 1` writes 0.5;
// an exponent is none (`x.shape[-1] ** -0.5` computes its scale from the size). Integers are
// WritesNumber's.
bool WritesDecimal(std::string_view code, double value);

// What a line of Python asks to resample, by name: a call ("interpolate_pos_encoding" in
// `embeddings + self.interpolate_pos_encoding(embeddings, h, w)`, "resample_abs_pos_embed(...)")
// or a flag set ("interpolate_pos_encoding" in `model(pixel_values,
// interpolate_pos_encoding=True)`). A flag passed on as a variable
// (`interpolate_pos_encoding=interpolate_pos_encoding`) asks nothing by itself and is the frame
// below's to show.
std::optional<std::string> ResamplingAsked(const std::string& code);

// What `node`'s recorded stack asks to resample: the innermost frame outside torch's own code
// whose line calls a resampler or sets a resampling flag (ResamplingAsked), where no Resize of
// `graph` was recorded under that frame: there the graph resamples too
// (`F.interpolate(x, size=(6, 6)) + self.bias` resizes x, not the table).
std::optional<std::string> ResamplingCall(const ir::Graph& graph, const ir::Node& node);

// The recorded class hierarchy, outermost module first, ending with the aten op
// ("torch.nn.modules.pooling.AdaptiveAvgPool2d", "aten.avg_pool2d.default"); empty when none.
std::vector<std::string> ClassHierarchy(const ir::Node& node);

}  // namespace shapelint::lint

#endif  // SHAPELINT_LIB_LINT_PROVENANCE_H_
