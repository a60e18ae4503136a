#include "lint/severity.h"

namespace shapelint::lint {

Severity SeverityOf(Evidence evidence) {
  switch (evidence) {
    case Evidence::kContradiction:
    case Evidence::kExporterRecord:
    case Evidence::kRun:
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

}  // namespace shapelint::lint
