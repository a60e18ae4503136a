// Report writers: compiler-style text and the versioned JSON document.
#ifndef SHAPELINT_REPORT_REPORT_H_
#define SHAPELINT_REPORT_REPORT_H_

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "shapelint/lint/finding.h"

namespace shapelint::report {

// The result of linting one model file.
struct ModelResult {
  std::string path;  // as given on the command line ("-" for stdin)
  // Set when the model could not be loaded: the reason, without the path in front.
  std::optional<std::string> error;
  std::vector<lint::Finding> findings;
};

// Version of the JSON document layout (docs/json-format.md); bumped on incompatible change.
inline constexpr int kJsonSchemaVersion = 1;

void WriteJson(const std::vector<ModelResult>& results, std::ostream& out);

struct TextOptions {
  bool color = false;
};
void WriteText(const std::vector<ModelResult>& results, const TextOptions& options,
               std::ostream& out);

}  // namespace shapelint::report

#endif  // SHAPELINT_REPORT_REPORT_H_
