// The models a command reads: what its MODEL arguments stand for, and each model loaded the way
// every command reports it, so that linting, `shapes` and `probe` say the same of a file that
// does not load.
#ifndef SHAPELINT_TOOLS_MODEL_INPUTS_H_
#define SHAPELINT_TOOLS_MODEL_INPUTS_H_

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "shapelint/ir/model.h"

namespace shapelint::cli {

// A model to read, or a MODEL argument that stands for none, with the reason.
struct ModelInput {
  std::string path;
  std::optional<std::string> error;  // set: reported in the model's place, without reading it
};

// The models to read: each MODEL as given, except that a directory stands for the *.onnx files
// under it, recursively, sorted by path. A directory that cannot be read, or holds no model, is
// kept as given, with the reason: every argument is reported.
std::vector<ModelInput> ExpandModels(const std::vector<std::string>& models);

// Runs `work`; whatever goes wrong in it is the reason it returns, for the model's place in the
// report: one bad model must not take down the report on the others.
std::optional<std::string> Guarded(const std::function<std::optional<std::string>()>& work);

// The model at `path` ("-": standard input), or the reason it cannot be loaded, without the
// path in front (the report shows it).
struct LoadedModel {
  std::unique_ptr<ir::Model> model;
  std::optional<std::string> error;
};
LoadedModel LoadForReport(const std::string& path);

}  // namespace shapelint::cli

#endif  // SHAPELINT_TOOLS_MODEL_INPUTS_H_
