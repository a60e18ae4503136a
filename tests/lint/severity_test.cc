// The severity policy (docs/severity.md): one table from evidence to severity, and an error that
// cannot be shown is a hypothesis.
#include "lint/severity.h"

#include <catch2/catch.hpp>

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
}

TEST_CASE("severity policy: an error's evidence without a counterexample is a hypothesis",
          "[lint][severity]") {
  for (Evidence e : {Evidence::kContradiction, Evidence::kExporterRecord}) {
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

TEST_CASE("severity policy: evidence names are the JSON report's", "[lint][severity]") {
  CHECK(EvidenceName(Evidence::kContradiction) == "contradiction");
  CHECK(EvidenceName(Evidence::kExporterRecord) == "exporter-record");
  CHECK(EvidenceName(Evidence::kBakedDeclaration) == "baked-declaration");
  CHECK(EvidenceName(Evidence::kWrongAnnotation) == "wrong-annotation");
}

}  // namespace
}  // namespace shapelint::lint
