#include "lint/severity.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace shapelint::lint {

Severity SeverityOf(Evidence evidence) {
  switch (evidence) {
    case Evidence::kContradiction:
    case Evidence::kExporterRecord:
    case Evidence::kRun:
    case Evidence::kSourceMismatch:
    case Evidence::kBroken:
      return Severity::kError;
    case Evidence::kHypothesis:
    case Evidence::kBakedDeclaration:
    case Evidence::kHint:
    case Evidence::kWrongDeclaration:
      return Severity::kWarning;
    case Evidence::kWrongAnnotation:
    case Evidence::kDesign:
    case Evidence::kUnverifiedHint:
      return Severity::kNote;
  }
  return Severity::kWarning;
}

void ApplySeverityPolicy(Finding& f) {
  if (SeverityOf(f.evidence) == Severity::kError && !f.counterexample) {
    f.evidence = Evidence::kHypothesis;
  }
  f.severity = SeverityOf(f.evidence);
}

void NoteSpecializedReadings(const std::map<std::string, int64_t>& specialized, Finding& f) {
  if (f.severity == Severity::kNote || !f.counterexample) return;
  std::vector<std::string> moved;
  for (const auto& [symbol, size] : f.counterexample->binding) {
    auto it = specialized.find(symbol);
    if (it != specialized.end() && it->second != size) {
      moved.push_back(absl::StrCat(symbol, " to ", it->second));
    }
  }
  if (moved.empty()) return;
  f.notes.push_back(
      {absl::StrCat("torch.export specialized ", absl::StrJoin(moved, ", "),
                    " (range_constraints), and the counterexample moves it: forward either "
                    "computed a value from the size as a Python number (int(), arithmetic on "
                    "x.shape), which the graph holds (then compute it from the tensor's shape), or "
                    "checks the size and accepts only this one, and then eager PyTorch fails at "
                    "the counterexample too (then declare the axis static)"),
       std::nullopt});
}

}  // namespace shapelint::lint
