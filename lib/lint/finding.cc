// Severity names, as reports print them and configuration files and options spell them.
#include "shapelint/lint/finding.h"

#include <optional>
#include <string_view>

namespace shapelint::lint {

std::string_view SeverityName(Severity s) {
  switch (s) {
    case Severity::kNote:
      return "note";
    case Severity::kWarning:
      return "warning";
    case Severity::kError:
      return "error";
  }
  // Only reachable through a cast from an out-of-range integer; a name is safer than UB.
  return "unknown";
}

std::optional<Severity> ParseSeverity(std::string_view name) {
  for (Severity s : {Severity::kNote, Severity::kWarning, Severity::kError}) {
    if (name == SeverityName(s)) return s;
  }
  return std::nullopt;
}

}  // namespace shapelint::lint
