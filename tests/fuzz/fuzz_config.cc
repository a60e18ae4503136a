// Fuzz target: the configuration parsers (.onnx-shapelint.json and pyproject.toml).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "shapelint/lint/config.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  namespace lint = shapelint::lint;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  (void)lint::ParseJsonConfig(text, ".onnx-shapelint.json");
  (void)lint::ParsePyprojectConfig(text, "pyproject.toml");
  return 0;
}
