// toml++'s compiled part, built into the onnx-shapelint binary in place of libtomlplusplus.so
// when the binary links its C++ runtime statically (tools/cmake/static_runtime.cmake). It is
// compiled with the macros toml++'s package gives its users, so that lib/lint/config.cc, which
// was compiled against the shared library's declarations, finds the same definitions here.
#define TOML_IMPLEMENTATION
#include <toml++/toml.h>
