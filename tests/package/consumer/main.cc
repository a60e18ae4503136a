// A program that uses onnx-shapelint as a library, the way an application would: the package
// tests build it against an installed prefix (find_package and pkg-config) and against the
// source tree (add_subdirectory). It lints a model given in ONNX text and prints the findings.
#include <iostream>
#include <string_view>

#include "shapelint/ir/load.h"
#include "shapelint/lint/lint.h"

namespace {

// x.reshape(-1, int(x.size(-1))) exported at W = 10: the Reshape target [-1, 10] holds the
// example input's W where the input declares W dynamic (SL002, tests/rules/SL002).
constexpr std::string_view kModel = R"(
<ir_version: 8, opset_import: ["" : 17]>
rows (float[N,C,H,W] x) => (float[unk_0,unk_1] y) {
  shape = Constant <value = int64[2] {-1, 10}> ()
  y = Reshape (x, shape)
}
)";

}  // namespace

int main() {
  namespace sl = shapelint;
  auto model = sl::ir::LoadModelFromBytes(kModel, "rows.onnxtxt", sl::ir::ModelFormat::kText);
  if (!model.ok()) {
    std::cerr << "load: " << model.status().ToString() << "\n";
    return 1;
  }
  auto findings = sl::lint::Lint(**model);
  if (!findings.ok()) {
    std::cerr << "lint: " << findings.status().ToString() << "\n";
    return 1;
  }
  std::cout << "onnx-shapelint " << sl::lint::Version() << "\n";
  std::cout << "findings: " << findings->size() << "\n";
  for (const sl::lint::Finding& finding : *findings) {
    std::cout << sl::lint::SeverityName(finding.severity) << " " << finding.rule << " "
              << finding.name << " at " << finding.node.graph << "/" << finding.node.label << "\n";
  }
  return 0;
}
