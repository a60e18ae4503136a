#include "tools/model_inputs.h"

#include <algorithm>
#include <exception>
#include <filesystem>
#include <new>
#include <system_error>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "shapelint/ir/load.h"

namespace shapelint::cli {
namespace {

// The file that makes a directory a TensorFlow SavedModel.
constexpr char kSavedModelFile[] = "saved_model.pb";

// Why a directory stands for no model. A TensorFlow SavedModel is a directory: it is named.
std::string DirectoryWithoutModels(const std::string& dir) {
  std::error_code ec;
  if (std::filesystem::is_regular_file(std::filesystem::path(dir) / kSavedModelFile, ec)) {
    return "is a TensorFlow SavedModel, not an ONNX model: convert it with tf2onnx --saved-model";
  }
  return "is a directory without any *.onnx file under it";
}

// Load errors start with the name the loader was given; the report already shows the path.
std::string WithoutSource(absl::string_view message, const std::string& source) {
  const std::string prefix = source + ": ";
  if (absl::StartsWith(message, prefix)) message.remove_prefix(prefix.size());
  return std::string(message);
}

}  // namespace

std::vector<ModelInput> ExpandModels(const std::vector<std::string>& models) {
  namespace fs = std::filesystem;
  std::vector<ModelInput> inputs;
  for (const std::string& model : models) {
    std::error_code ec;
    if (model == "-" || !fs::is_directory(model, ec)) {
      inputs.push_back({model, std::nullopt});
      continue;
    }
    std::vector<std::string> found;
    fs::recursive_directory_iterator it(model, fs::directory_options::skip_permission_denied, ec);
    for (; !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
      if (it->path().extension() == ".onnx" && it->is_regular_file(ec)) {
        found.push_back(it->path().string());
      }
    }
    if (ec) {
      inputs.push_back({model, absl::StrCat("cannot read the directory: ", ec.message())});
    } else if (found.empty()) {
      inputs.push_back({model, DirectoryWithoutModels(model)});
    }
    std::sort(found.begin(), found.end());
    for (std::string& path : found) inputs.push_back({std::move(path), std::nullopt});
  }
  return inputs;
}

std::optional<std::string> Guarded(const std::function<std::optional<std::string>()>& work) {
  try {
    return work();
  } catch (const std::bad_alloc&) {
    return "out of memory";
  } catch (const std::exception& e) {
    return absl::StrCat("internal error: ", e.what());
  } catch (...) {
    return "internal error";
  }
}

LoadedModel LoadForReport(const std::string& path) {
  LoadedModel loaded;
  loaded.error = Guarded([&]() -> std::optional<std::string> {
    absl::StatusOr<std::unique_ptr<ir::Model>> model = ir::LoadModel(path);
    if (!model.ok()) return WithoutSource(model.status().message(), path == "-" ? "<stdin>" : path);
    loaded.model = *std::move(model);
    return std::nullopt;
  });
  return loaded;
}

}  // namespace shapelint::cli
