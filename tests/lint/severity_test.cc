// The severity policy (docs/severity.md): one table from evidence to severity, and an error that
// cannot be shown is a hypothesis.
#include "lint/severity.h"

#include <catch2/catch.hpp>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace shapelint::lint {
namespace {

TEST_CASE("severity policy: each evidence earns the severity docs/severity.md gives it",
          "[lint][severity]") {
  CHECK(SeverityOf(Evidence::kContradiction) == Severity::kError);
  CHECK(SeverityOf(Evidence::kExporterRecord) == Severity::kError);
  CHECK(SeverityOf(Evidence::kHypothesis) == Severity::kWarning);
  CHECK(SeverityOf(Evidence::kBakedDeclaration) == Severity::kWarning);
  CHECK(SeverityOf(Evidence::kHint) == Severity::kWarning);
  CHECK(SeverityOf(Evidence::kWrongDeclaration) == Severity::kWarning);
  CHECK(SeverityOf(Evidence::kWrongAnnotation) == Severity::kNote);
  CHECK(SeverityOf(Evidence::kDesign) == Severity::kNote);
  CHECK(SeverityOf(Evidence::kUnverifiedHint) == Severity::kNote);
  CHECK(SeverityOf(Evidence::kRun) == Severity::kError);
  CHECK(SeverityOf(Evidence::kSourceMismatch) == Severity::kError);
}

TEST_CASE("severity policy: an error's evidence without a counterexample is a hypothesis",
          "[lint][severity]") {
  for (Evidence e :
       {Evidence::kContradiction, Evidence::kExporterRecord, Evidence::kSourceMismatch}) {
    Finding f;
    f.evidence = e;
    ApplySeverityPolicy(f);
    CHECK(f.severity == Severity::kWarning);
    CHECK(f.evidence == Evidence::kHypothesis);
    Finding shown;
    shown.evidence = e;
    shown.counterexample = Counterexample{};
    ApplySeverityPolicy(shown);
    CHECK(shown.severity == Severity::kError);
    CHECK(shown.evidence == e);
  }
  Finding hint;
  hint.evidence = Evidence::kHint;
  hint.counterexample = Counterexample{};  // a counterexample does not make a hint an error
  ApplySeverityPolicy(hint);
  CHECK(hint.severity == Severity::kWarning);
}

TEST_CASE("a counterexample that moves a specialized symbol states both readings of the record",
          "[lint][severity]") {
  const std::map<std::string, int64_t> specialized = {{"s53", 224}};
  auto finding = [](Severity severity, std::vector<std::pair<std::string, int64_t>> binding) {
    Finding f;
    f.severity = severity;
    f.counterexample = Counterexample{};
    f.counterexample->binding = std::move(binding);
    return f;
  };
  // CoaT: s53 specialized to 224 by an assert, the counterexample at 228.
  Finding moved = finding(Severity::kError, {{"s53", 228}, {"s77", 2}});
  NoteSpecializedReadings(specialized, moved);
  REQUIRE(moved.notes.size() == 1);
  CHECK(moved.notes[0].message.find("torch.export specialized s53 to 224") == 0);
  CHECK(moved.notes[0].message.find("eager PyTorch fails at the counterexample too") !=
        std::string::npos);
  // The specialized symbol at its size, a symbol not specialized moved, a note, no counterexample.
  Finding kept = finding(Severity::kError, {{"s53", 224}, {"s77", 3}});
  NoteSpecializedReadings(specialized, kept);
  CHECK(kept.notes.empty());
  Finding note = finding(Severity::kNote, {{"s53", 228}});
  NoteSpecializedReadings(specialized, note);
  CHECK(note.notes.empty());
  Finding none;
  none.severity = Severity::kError;
  NoteSpecializedReadings(specialized, none);
  CHECK(none.notes.empty());
}

TEST_CASE("severity policy: evidence names are the JSON report's", "[lint][severity]") {
  CHECK(EvidenceName(Evidence::kContradiction) == "contradiction");
  CHECK(EvidenceName(Evidence::kExporterRecord) == "exporter-record");
  CHECK(EvidenceName(Evidence::kBakedDeclaration) == "baked-declaration");
  CHECK(EvidenceName(Evidence::kWrongAnnotation) == "wrong-annotation");
  CHECK(EvidenceName(Evidence::kSourceMismatch) == "source-mismatch");
  CHECK(EvidenceName(Evidence::kBroken) == "broken");
}

}  // namespace
}  // namespace shapelint::lint
