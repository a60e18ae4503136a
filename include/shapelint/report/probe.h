// Writers for static probes (`onnx-shapelint probe`): text for people, JSON for tools.
#ifndef SHAPELINT_REPORT_PROBE_H_
#define SHAPELINT_REPORT_PROBE_H_

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "shapelint/lint/probe.h"

namespace shapelint::report {

struct ProbeReport {
  std::string path;
  std::vector<lint::ProbeResult> probes;
  std::optional<std::string> error;  // the model could not be loaded or a probe does not fit
};

void WriteProbeText(const std::vector<ProbeReport>& reports, std::ostream& out);
void WriteProbeJson(const std::vector<ProbeReport>& reports, std::ostream& out);

}  // namespace shapelint::report

#endif  // SHAPELINT_REPORT_PROBE_H_
