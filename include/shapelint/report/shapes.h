// `onnx-shapelint shapes`: what the engine knows about every value of a model — its shape as
// expressions over the input symbols, the values of small integer tensors, and, given sizes
// for the symbols, every dim evaluated there.
#ifndef SHAPELINT_REPORT_SHAPES_H_
#define SHAPELINT_REPORT_SHAPES_H_

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "shapelint/infer/engine.h"
#include "shapelint/ir/model.h"
#include "shapelint/sym/expr.h"

namespace shapelint::report {

struct ShapesReport {
  std::string path;
  const ir::Model* model = nullptr;  // nullptr when `error` is set
  const infer::Inference* inference = nullptr;
  const sym::Binding* at = nullptr;  // sizes to evaluate every dim at, or nullptr
  // Set when the model could not be loaded: the reason, without the path in front.
  std::optional<std::string> error;
};

void WriteShapesText(const ShapesReport& report, std::ostream& out);
// One JSON object per model; the CLI wraps them in a document (docs/json-format.md).
void WriteShapesJson(const std::vector<ShapesReport>& reports, std::ostream& out);

}  // namespace shapelint::report

#endif  // SHAPELINT_REPORT_SHAPES_H_
