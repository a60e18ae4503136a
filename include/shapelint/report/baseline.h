// Baselines: the findings a repository accepts when it adopts the linter. `--write-baseline
// FILE` records them; `--baseline FILE` then reports only findings that are not in it, so that
// CI fails on new problems only (docs/configuration.md).
#ifndef SHAPELINT_REPORT_BASELINE_H_
#define SHAPELINT_REPORT_BASELINE_H_

#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "shapelint/report/report.h"

namespace shapelint::report {

class Baseline {
 public:
  // Reads a baseline written by ToJson; an error names the file and what is wrong.
  static absl::StatusOr<Baseline> Read(const std::string& path);
  // The baseline of `results`, to be written at `path` (model paths are kept relative to its
  // directory, so the file can be committed next to the models).
  static Baseline Of(const std::vector<ModelResult>& results, const std::string& path);

  std::string ToJson() const;
  // Removes the findings the baseline holds (each entry as often as it was recorded); returns
  // how many it removed.
  int Filter(std::vector<ModelResult>& results) const;

 private:
  // A finding's identity: model path, rule, node and attribute; not its message, which may
  // improve between versions.
  std::string Key(const std::string& model_path, const lint::Finding& f) const;

  std::string dir_;
  std::map<std::string, int> counts_;
};

}  // namespace shapelint::report

#endif  // SHAPELINT_REPORT_BASELINE_H_
