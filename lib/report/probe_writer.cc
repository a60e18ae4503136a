// Text for `onnx-shapelint probe`: per model and probe, the inputs, every output next to its
// declaration, and where and why the model breaks.
#include <ostream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "report/finding_text.h"
#include "shapelint/report/probe.h"
#include "shapelint/report/report.h"

namespace shapelint::report {
namespace {

std::string Sizes(const std::vector<std::pair<std::string, int64_t>>& sizes) {
  std::vector<std::string> parts;
  parts.reserve(sizes.size());
  for (const auto& [s, v] : sizes) parts.push_back(absl::StrCat(s, "=", v));
  return absl::StrJoin(parts, ", ");
}

void WriteOne(const lint::ProbeResult& p, std::ostream& out) {
  const lint::Counterexample& at = p.at;
  if (!p.failing.empty()) {
    std::vector<std::string> ranges;
    for (const auto& [lo, hi] : p.failing) {
      ranges.push_back(lo == hi ? absl::StrCat(lo) : absl::StrCat("[", lo, ", ", hi, "]"));
    }
    out << "  breaks at " << p.range_symbol << " in " << absl::StrJoin(ranges, ", ")
        << "; the first:\n";
  } else if (p.breaks) {
    out << "  breaks:\n";
  } else {
    out << "  works:\n";
  }
  out << "    sizes: " << Sizes(at.binding) << "\n";
  if (!p.defaulted.empty()) {
    out << "    (not given, set where the model works: " << Sizes(p.defaulted) << ")\n";
  }
  for (const auto& [input, dims] : at.inputs)
    out << "    input " << input << ": " << DimsText(dims) << "\n";
  for (const lint::ShapeAt& o : at.outputs) {
    out << "    output " << o.value << ": " << DimsText(o.actual);
    if (o.expected) {
      out << (o.actual == *o.expected ? ", as declared"
                                      : absl::StrCat(", declared ", DimsText(*o.expected)));
    }
    out << "\n";
  }
  if (!at.failure.empty()) {
    // Node names from torch start with '/': "main//Add" would read as a typo.
    const std::string& label = at.failing_node.label;
    std::string where =
        at.failing_node.graph.empty()
            ? label
            : absl::StrCat(at.failing_node.graph, absl::StartsWith(label, "/") ? "" : "/", label);
    if (at.hint_only) {
      out << "    (a value_info only, which ONNX Runtime does not check: at " << where << ": "
          << at.failure << ")\n";
    } else {
      out << "    " << (at.node_fails ? "fails at " : "at ") << where << ": " << at.failure << "\n";
    }
  }
}

}  // namespace

void WriteProbeText(const std::vector<ProbeReport>& reports, std::ostream& out) {
  for (const ProbeReport& r : reports) {
    if (r.error) {
      out << LoadErrorText(r.path, *r.error) << "\n";
      continue;
    }
    for (const lint::ProbeResult& p : r.probes) {
      out << r.path << ": probe " << p.spec << "\n";
      WriteOne(p, out);
    }
  }
}

}  // namespace shapelint::report
