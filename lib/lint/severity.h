// The severity policy (docs/severity.md): one mapping from the evidence a finding rests on to
// its severity, applied to every rule's findings after the rule ran. A rule never decides a
// severity on its own terms; it states its evidence (Finding::evidence).
#ifndef SHAPELINT_LIB_LINT_SEVERITY_H_
#define SHAPELINT_LIB_LINT_SEVERITY_H_

#include <cstdint>
#include <map>
#include <string>

#include "shapelint/lint/finding.h"

namespace shapelint::lint {

// The severity `evidence` earns.
Severity SeverityOf(Evidence evidence);

// Sets `f.severity` from `f.evidence`. Evidence that earns an error without a counterexample to
// show it is a hypothesis: an error must be demonstrable on the ONNX model.
void ApplySeverityPolicy(Finding& f);

// States both readings of torch.export's specialization on an error or a warning whose
// counterexample moves a symbol the exporter specialized (`specialized`: symbol -> size): forward
// either computed a value from the size as a Python number, which the graph holds, or checks
// the size and accepts only that one, and then eager PyTorch fails at the counterexample too.
// The record is the same for both (docs/severity.md), so every rule's finding says so, once.
void NoteSpecializedReadings(const std::map<std::string, int64_t>& specialized, Finding& f);

}  // namespace shapelint::lint

#endif  // SHAPELINT_LIB_LINT_SEVERITY_H_
