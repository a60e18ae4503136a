// Shared by the corpus tests: a run's input shapes as ground-truth files record them,
// {"x": [2, 3, 8, 9], ...}, in the form Analysis::BindInputs takes, and the stored run at them.
#ifndef SHAPELINT_TESTS_CORPUS_RUN_INPUTS_H_
#define SHAPELINT_TESTS_CORPUS_RUN_INPUTS_H_

#include <algorithm>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

namespace shapelint::lint {

inline std::vector<std::pair<std::string, std::vector<int64_t>>> RunInputs(
    const nlohmann::json& inputs) {
  std::vector<std::pair<std::string, std::vector<int64_t>>> shapes;
  for (const auto& [input, dims] : inputs.items()) {
    shapes.emplace_back(input, dims.get<std::vector<int64_t>>());
  }
  return shapes;
}

// The run among `runs` (an array of {"inputs": {...}, ...}, or null) whose inputs are `inputs`,
// in any order (a counterexample lists them in graph order, JSON objects by name); nullptr when
// none is stored.
inline const nlohmann::json* StoredRun(
    const nlohmann::json& runs,
    const std::vector<std::pair<std::string, std::vector<int64_t>>>& inputs) {
  if (!runs.is_array()) return nullptr;
  auto sorted = inputs;
  std::sort(sorted.begin(), sorted.end());
  for (const nlohmann::json& run : runs) {
    if (RunInputs(run["inputs"]) == sorted) return &run;
  }
  return nullptr;
}

}  // namespace shapelint::lint

#endif  // SHAPELINT_TESTS_CORPUS_RUN_INPUTS_H_
