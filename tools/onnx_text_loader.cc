// The onnx-shapelint binary's ParseOnnxText and CheckOnnxModel (lib/ir/onnx_text.h): libonnx's
// text parser and checker are in the module onnx-shapelint-text.so, loaded the first time a
// text model is read or a fixed model checked. A run on binary
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
using CheckFunction = decltype(&shapelint_check_onnx_model);

constexpr char kModuleName[] = "onnx-shapelint-text.so";
constexpr char kBuild[] = SHAPELINT_VERSION "+abi" SHAPELINT_TEXT_MODULE_ABI;

struct Module {
  ParseFunction parse = nullptr;
  CheckFunction check = nullptr;
  std::string error;  // why it is not loaded
};

Module Load() {
  std::error_code ec;
  const std::filesystem::path binary = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return {nullptr, nullptr, "cannot find where onnx-shapelint is: " + ec.message()};
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
    if (handle == nullptr) return {nullptr, nullptr, dlerror()};
    auto build = reinterpret_cast<BuildFunction>(dlsym(handle, "shapelint_onnx_text_build"));
    auto parse = reinterpret_cast<ParseFunction>(dlsym(handle, "shapelint_parse_onnx_text"));
    auto check = reinterpret_cast<CheckFunction>(dlsym(handle, "shapelint_check_onnx_model"));
    // The build first: a module of another version is refused as such, whatever it exports.
    if (build != nullptr) {
      if (const std::string theirs = build(); theirs != kBuild) {
        dlclose(handle);
        return {nullptr, nullptr,
                path.string() + " comes from onnx-shapelint " + theirs +
                    ", not from this binary's build (" + kBuild +
                    "); install the binary and the module together"};
      }
    }
    if (build == nullptr || parse == nullptr || check == nullptr) {
      dlclose(handle);
      return {nullptr, nullptr,
              path.string() +
                  " is not onnx-shapelint's text module, or comes from an "
                  "older onnx-shapelint; install the binary and the module "
                  "together"};
    }
    return {parse, check, ""};
  }
  return {nullptr, nullptr,
          std::string("reading ONNX's text format needs ") + kModuleName +
              ", which is built and installed with onnx-shapelint; not found at " + tried};
}

// Loaded once, by whichever thread needs it first.
const Module& TheModule() {
  static const Module kModule = Load();
  return kModule;
}

void Append(void* sink, const char* data, std::size_t size) {
  static_cast<std::string*>(sink)->append(data, size);
}

}  // namespace

ModelCheck CheckOnnxModel(std::string_view bytes, std::string& message) {
  const Module& module = TheModule();
  if (module.check == nullptr) {
    message = module.error;
    return ModelCheck::kUnavailable;
  }
  message.clear();
  return static_cast<ModelCheck>(module.check(bytes.data(), bytes.size(), &message, Append));
}

TextParse ParseOnnxText(const char* text, ONNX_NAMESPACE::ModelProto& model, std::string& error) {
  const Module& module = TheModule();
  if (module.parse == nullptr) {
    error = module.error;
    return TextParse::kUnavailable;
  }
  std::string said;
  if (!module.parse(text, &said, Append)) {
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
