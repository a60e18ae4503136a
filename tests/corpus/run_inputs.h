// Shared by the corpus tests: a run's input shapes as ground-truth files record them,
// {"x": [2, 3, 8, 9], ...}, in the form Analysis::BindInputs takes.
#ifndef SHAPELINT_TESTS_CORPUS_RUN_INPUTS_H_
#define SHAPELINT_TESTS_CORPUS_RUN_INPUTS_H_

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

}  // namespace shapelint::lint

#endif  // SHAPELINT_TESTS_CORPUS_RUN_INPUTS_H_
