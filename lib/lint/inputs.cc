// DescribeInputs: the graph inputs as declared, with torch.export's recorded ranges.
#include <map>
#include <string>
#include <vector>

#include "lint/export_ranges.h"
#include "shapelint/lint/lint.h"

namespace shapelint::lint {

std::vector<InputInfo> DescribeInputs(const ir::Model& model) {
  const ir::Graph& graph = model.graph();
  std::vector<std::string> symbols;
  for (const auto& declared : graph.proto().input()) {
    for (const auto& dim : declared.type().tensor_type().shape().dim()) {
      if (dim.has_dim_param() && !dim.dim_param().empty()) symbols.push_back(dim.dim_param());
    }
  }
  const std::map<std::string, ExportRange> ranges =
      RangesOfInputSymbols(ExportRanges(model), symbols);
  std::vector<InputInfo> inputs;
  for (const auto& declared : graph.proto().input()) {
    // An input that an initializer gives is a weight with a default, not something to feed.
    if (graph.Initializer(declared.name()) != nullptr) continue;
    InputInfo& input = inputs.emplace_back();
    input.name = declared.name();
    if (!declared.type().has_tensor_type()) continue;
    const auto& tensor = declared.type().tensor_type();
    input.elem_type = tensor.elem_type();
    input.has_shape = tensor.has_shape();
    for (const auto& dim : tensor.shape().dim()) {
      InputDim& out = input.dims.emplace_back();
      if (dim.has_dim_value()) {
        out.size = dim.dim_value();
      } else if (dim.has_dim_param() && !dim.dim_param().empty()) {
        out.symbol = dim.dim_param();
        if (auto range = ranges.find(out.symbol); range != ranges.end()) {
          out.has_range = true;
          out.range_min = range->second.min;
          out.range_max = range->second.max;
        }
      }
    }
  }
  return inputs;
}

}  // namespace shapelint::lint
