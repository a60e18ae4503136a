// Severity and evidence names, as reports print them and configuration files and options spell
// them, and the words for a witness range that repeats.
#include "shapelint/lint/finding.h"

#include <optional>
#include <string_view>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

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

std::string_view EvidenceName(Evidence e) {
  switch (e) {
    case Evidence::kContradiction:
      return "contradiction";
    case Evidence::kExporterRecord:
      return "exporter-record";
    case Evidence::kHypothesis:
      return "hypothesis";
    case Evidence::kBakedDeclaration:
      return "baked-declaration";
    case Evidence::kHint:
      return "hint";
    case Evidence::kWrongDeclaration:
      return "wrong-declaration";
    case Evidence::kWrongAnnotation:
      return "wrong-annotation";
    case Evidence::kDesign:
      return "design";
    case Evidence::kUnverifiedHint:
      return "unverified-hint";
    case Evidence::kRun:
      return "run";
    case Evidence::kSourceMismatch:
      return "source-mismatch";
    case Evidence::kBroken:
      return "broken";
  }
  return "unknown";
}

std::string RepeatText(const SymbolRange& range) {
  if (!range.every || !range.min || !range.max) return "";
  const int64_t lo = *range.min + *range.every, hi = *range.max + *range.every;
  if (lo == hi) {
    return absl::StrCat(" (and again every ", *range.every, ": ", lo, ", ", lo + *range.every,
                        ", ...)");
  }
  return absl::StrCat(" (and again every ", *range.every, ": [", lo, ", ", hi, "], ...)");
}

std::string AlsoText(const SymbolRange& range) {
  if (range.also.empty()) return "";
  if (range.more) return absl::StrCat(" or ", absl::StrJoin(range.also, ", "), " or more");
  if (range.also.size() == 1) return absl::StrCat(" or ", range.also.front());
  const std::vector<int64_t> head(range.also.begin(), range.also.end() - 1);
  return absl::StrCat(" or ", absl::StrJoin(head, ", "), " or ", range.also.back());
}

}  // namespace shapelint::lint
