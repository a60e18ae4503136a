// Stands in for an onnx-shapelint-text.so left over from another build, which the binary must
// refuse before it calls the parser (tests/CMakeLists.txt): built with SHAPELINT_OTHER_BUILD,
// it names another version; without, it lacks the build entry point, as modules older than that
// entry point do. Its parser ends the process, so a binary that called it would fail the test.
#include <cstdlib>

#include "ir/onnx_text.h"

#ifdef SHAPELINT_OTHER_BUILD
__attribute__((visibility("default"))) const char* shapelint_onnx_text_build() {
  return SHAPELINT_OTHER_BUILD;
}
#endif

__attribute__((visibility("default"))) bool shapelint_parse_onnx_text(const char*, void*,
                                                                      ShapelintTextSink) {
  std::abort();
}
