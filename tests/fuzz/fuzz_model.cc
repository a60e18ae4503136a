// Fuzz target: model bytes -> load (binary or ONNX text) -> lint -> every report format.
// Whatever the bytes, loading fails with a status or the lint runs to the end: never a crash,
// a hang or a leak.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string_view>
#include <vector>

#include "shapelint/ir/load.h"
#include "shapelint/lint/lint.h"
#include "shapelint/report/report.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  namespace sl = shapelint;
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  sl::report::ModelResult result;
  result.path = "fuzz.onnx";
  auto model = sl::ir::LoadModelFromBytes(bytes, result.path);
  if (!model.ok()) {
    result.error = std::string(model.status().message());
  } else {
    auto findings = sl::lint::Lint(**model);
    if (findings.ok()) result.findings = *std::move(findings);
  }
  const std::vector<sl::report::ModelResult> results = {result};
  std::ostringstream out;
  sl::report::WriteJson(results, out);
  sl::report::WriteSarif(results, out);
  sl::report::WriteText(results, {}, out);
  sl::report::WriteGithub(results, out);
  return 0;
}
