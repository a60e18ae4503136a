// The onnx-shapelint binary's ParseOnnxText (lib/ir/onnx_text.h): libonnx's text parser is in
// the module onnx-shapelint-text.so, loaded the first time a text model is read. A run on binary
// models then never loads libonnx, which the dynamic loader would otherwise map and relocate
// before main() on every run (docs/performance.md).
#include <dlfcn.h>

#include <cstddef>
#include <filesystem>
#include <string>
#include <system_error>
#include <utility>

#include "ir/onnx_text.h"

namespace shapelint::ir {
namespace {

using BuildFunction = decltype(&shapelint_onnx_text_build);
using ParseFunction = decltype(&shapelint_parse_onnx_text);

constexpr char kModuleName[] = "onnx-shapelint-text.so";
constexpr char kBuild[] = SHAPELINT_VERSION "+abi" SHAPELINT_TEXT_MODULE_ABI;

struct Module {
  ParseFunction parse = nullptr;
  std::string error;  // why it is not loaded
};

Module Load() {
  std::error_code ec;
  const std::filesystem::path binary = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return {nullptr, "cannot find where onnx-shapelint is: " + ec.message()};
  // Beside the binary in a build tree; where `cmake --install` puts it otherwise.
  const std::filesystem::path candidates[] = {
      binary.parent_path() / kModuleName,
      (binary.parent_path() / SHAPELINT_TEXT_MODULE_INSTALLED).lexically_normal()};
  std::string tried;
  for (const std::filesystem::path& path : candidates) {
    if (!std::filesystem::exists(path, ec)) {
      tried += (tried.empty() ? "" : ", ") + path.string();
      continue;
    }
    // RTLD_LOCAL: the module's libonnx lends its symbols to nothing else. Where the binary has
    // protobuf and the C++ runtime built in, it exports none of their symbols, so the module
    // binds to its own copies of them (tests/CMakeLists.txt checks the exports).
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) return {nullptr, dlerror()};
    auto build = reinterpret_cast<BuildFunction>(dlsym(handle, "shapelint_onnx_text_build"));
    auto parse = reinterpret_cast<ParseFunction>(dlsym(handle, "shapelint_parse_onnx_text"));
    if (build == nullptr || parse == nullptr) {
      dlclose(handle);
      return {nullptr, path.string() +
                           " is not onnx-shapelint's text module, or comes from an older "
                           "onnx-shapelint; install the binary and the module together"};
    }
    if (const std::string theirs = build(); theirs != kBuild) {
      dlclose(handle);
      return {nullptr, path.string() + " comes from onnx-shapelint " + theirs +
                           ", not from this binary's build (" + kBuild +
                           "); install the binary and the module together"};
    }
    return {parse, ""};
  }
  return {nullptr, std::string("reading ONNX's text format needs ") + kModuleName +
                       ", which is built and installed with onnx-shapelint; not found at " + tried};
}

}  // namespace

TextParse ParseOnnxText(const char* text, ONNX_NAMESPACE::ModelProto& model, std::string& error) {
  // Loaded once, by whichever thread reads a text model first.
  static const Module kModule = Load();
  if (kModule.parse == nullptr) {
    error = kModule.error;
    return TextParse::kUnavailable;
  }
  std::string said;
  const ShapelintTextSink append = [](void* sink, const char* data, std::size_t size) {
    static_cast<std::string*>(sink)->append(data, size);
  };
  if (!kModule.parse(text, &said, append)) {
    error = std::move(said);
    return TextParse::kInvalid;
  }
  if (!model.ParseFromString(said)) {
    error = "the text module returned a model that does not parse";
    return TextParse::kInvalid;
  }
  return TextParse::kParsed;
}

}  // namespace shapelint::ir
