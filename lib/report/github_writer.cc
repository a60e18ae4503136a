// GitHub Actions workflow commands: a CI step that runs the linter with --format github gets
// each finding shown as an annotation on the model file, without any upload step.
//
//   ::error file=models/vgg.onnx,title=SL001 baked-pool-kernel::main/AveragePool: ...
//
// The message is the text report's block for the finding, without the path and the severity
// (the command and the title have them): the message, then its witness, counterexample, notes
// and help, one per line.
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/str_cat.h"
#include "report/finding_text.h"
#include "shapelint/lint/finding.h"
#include "shapelint/report/report.h"

namespace shapelint::report {
namespace {

// GitHub's escaping: '%', CR and LF everywhere; ',' and ':' also in property values, which
// would otherwise end the property.
std::string Escape(std::string_view text, bool property) {
  // The log GitHub shows is a terminal too: controls and bytes that are no UTF-8 escaped first
  // (newlines kept, for GitHub's own escape below).
  const std::string s = EscapeControls(text, "\n");
  std::string out;
  for (char c : s) {
    switch (c) {
      case '%':
        out += "%25";
        break;
      case '\r':
        out += "%0D";
        break;
      case '\n':
        out += "%0A";
        break;
      case ',':
        out += property ? "%2C" : ",";
        break;
      case ':':
        out += property ? "%3A" : ":";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string_view Command(lint::Severity severity) {
  switch (severity) {
    case lint::Severity::kError:
      return "error";
    case lint::Severity::kWarning:
      return "warning";
    case lint::Severity::kNote:
      return "notice";
  }
  return "notice";
}

}  // namespace

void WriteGithub(const std::vector<ModelResult>& results, std::ostream& out) {
  for (const ModelResult& r : results) {
    const std::string file = Escape(r.path, true);
    if (r.error) {
      out << "::error file=" << file << ",title=" << Escape("cannot load the model", true)
          << "::" << Escape(*r.error, false) << "\n";
      continue;
    }
    for (const lint::Finding& f : r.findings) {
      const std::string node = NodePath(f.node, kAsIs);
      std::string message = node.empty() ? f.message : absl::StrCat(node, ": ", f.message);
      for (const Evidence& e : EvidenceOf(f, kAsIs)) {
        absl::StrAppend(&message, "\n", e.label, ": ", e.text);
      }
      if (!f.fix.empty()) absl::StrAppend(&message, "\nhelp: ", f.fix);
      out << "::" << std::string(Command(f.severity)) << " file=" << file
          << ",title=" << Escape(absl::StrCat(f.rule, " ", f.name), true)
          << "::" << Escape(message, false) << "\n";
    }
  }
}

}  // namespace shapelint::report
