// Export sizes the exporter's record implies, for models linted without --export-dims: the
// dynamo exporter decomposes an adaptive pool whose input size divides its output size into a
// fixed window (kernel = input / output), and records the PyTorch line that made it, whose
// literal output size then gives the input size the trace saw (input = kernel * output).
#ifndef SHAPELINT_LIB_LINT_RECORDED_SIZES_H_
#define SHAPELINT_LIB_LINT_RECORDED_SIZES_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "shapelint/infer/engine.h"
#include "shapelint/ir/model.h"

namespace shapelint::lint {

// The output size of the first adaptive pool called in a line of Python,
// `F.adaptive_avg_pool2d(x, (2, 3))` or `nn.functional.adaptive_max_pool1d(y, output_size=4)`:
// one entry per pooled axis (an int broadcasts to `rank` axes), nullopt for `None` or anything
// that is not a literal. Empty when the line calls none.
std::vector<std::optional<int64_t>> AdaptiveOutputSize(std::string_view code, size_t rank);

// The input sizes at export that the main graph's decomposed adaptive pools record: for each
// AveragePool or MaxPool whose windows tile the input (strides == kernel_shape, no pads) and
// whose recorded line calls an adaptive pool with a literal output size, each spatial input
// dim that is one symbol gets kernel * output. A symbol two pools disagree on is left out.
std::map<std::string, int64_t> RecordedPoolSizes(const ir::Model& model,
                                                 const infer::Inference& inference);

}  // namespace shapelint::lint

#endif  // SHAPELINT_LIB_LINT_RECORDED_SIZES_H_
