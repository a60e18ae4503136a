// The severity policy (docs/severity.md): one mapping from the evidence a finding rests on to
// its severity, applied to every rule's findings after the rule ran. A rule never decides a
// severity on its own terms; it states its evidence (Finding::evidence).
#ifndef SHAPELINT_LIB_LINT_SEVERITY_H_
#define SHAPELINT_LIB_LINT_SEVERITY_H_

#include "shapelint/lint/finding.h"

namespace shapelint::lint {

// The severity `evidence` earns.
Severity SeverityOf(Evidence evidence);

// Sets `f.severity` from `f.evidence`. Evidence that earns an error without a counterexample to
// show it is a hypothesis: an error must be demonstrable on the ONNX model.
void ApplySeverityPolicy(Finding& f);

}  // namespace shapelint::lint

#endif  // SHAPELINT_LIB_LINT_SEVERITY_H_
