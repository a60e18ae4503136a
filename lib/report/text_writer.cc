// The compiler-style text report: one block per finding, then a summary line.
//
//   model.onnx: main/<AveragePool #0>: error[SL001] baked-pool-kernel: ...
//     = witness: works only for s2 in [6, 8] and s3 in [6, 7]
//     = counterexample: at s0=2, s1=3, s2=9, s3=8 (x: [2, 3, 9, 8]): output 'y' is ...
//     = note: ...
//     = requires: ...        (with --verbose: the symbolic expressions behind it)
//     = input 'x': ...
//     = help: ...
#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "report/finding_text.h"
#include "shapelint/lint/finding.h"
#include "shapelint/report/report.h"

namespace shapelint::report {
namespace {

// Debian's Abseil is built with its own absl::string_view, which std::string_view does not
// convert to: string_views go through std::string before reaching absl::StrCat.

constexpr std::string_view kReset = "\x1b[0m";
constexpr std::string_view kBold = "\x1b[1m";
constexpr std::string_view kBoldRed = "\x1b[1;31m";
constexpr std::string_view kBoldYellow = "\x1b[1;33m";
constexpr std::string_view kBoldCyan = "\x1b[1;36m";

// Names, messages and paths come from the model file. Control characters in them could move the
// cursor, recolour the terminal or reorder what is shown (EscapeControls), and a newline would
// break the one-line-per-item layout, so they are shown escaped; newlines in our own messages
// become indented continuation lines.
std::string Clean(std::string_view s, std::string_view newline = "\\n") {
  return EscapeControls(s, newline);
}

// Free text: keeps its line breaks, indented under the line it belongs to.
std::string Text(std::string_view s) { return Clean(s, "\n    "); }

class Painter {
 public:
  explicit Painter(bool color) : color_(color) {}

  std::string Paint(std::string_view style, std::string_view s) const {
    if (!color_) return std::string(s);
    return std::string(style).append(s).append(kReset);
  }

  std::string Severity(lint::Severity severity, std::string_view s) const {
    switch (severity) {
      case lint::Severity::kError:
        return Paint(kBoldRed, s);
      case lint::Severity::kWarning:
        return Paint(kBoldYellow, s);
      case lint::Severity::kNote:
        return Paint(kBoldCyan, s);
    }
    return std::string(s);
  }

  // A continuation line of a finding: "  = label: text".
  std::string Item(std::string_view label, std::string_view text) const {
    return absl::StrCat("  = ", Paint(kBold, std::string(label) + ":"), " ", std::string(text),
                        "\n");
  }

 private:
  bool color_;
};

std::string DisplayPath(const std::string& path) { return path == "-" ? "<stdin>" : Clean(path); }

// A name on one line: a newline in it is shown as "\n", like the control characters.
std::string Name(std::string_view s) { return Clean(s); }

// Names and text from the model, escaped for the terminal.
constexpr TextStyle kTerminal{&Name, &Text};

void WriteFinding(const std::string& path, const lint::Finding& f, const TextOptions& options,
                  const Painter& p, std::ostream& out) {
  std::string head = DisplayPath(path);
  std::string location = NodePath(f.node, kTerminal);
  if (!location.empty()) absl::StrAppend(&head, ": ", location);
  std::string tag(lint::SeverityName(f.severity));
  if (!f.rule.empty()) absl::StrAppend(&tag, "[", Clean(f.rule), "]");
  absl::StrAppend(&head, ": ", p.Severity(f.severity, tag));
  if (!f.name.empty()) absl::StrAppend(&head, " ", Clean(f.name));
  out << head << ": " << Text(f.message) << "\n";

  for (const Evidence& e : EvidenceOf(f, kTerminal)) out << p.Item(e.label, e.text);
  if (options.verbose) {
    for (const lint::Expression& e : f.expressions) out << p.Item(Clean(e.label), Text(e.text));
  }
  if (!f.fix.empty()) out << p.Item("help", Text(f.fix));
}

}  // namespace

std::string LoadErrorText(const std::string& path, const std::string& error, bool color) {
  const Painter p(color);
  return absl::StrCat(DisplayPath(path), ": ", p.Severity(lint::Severity::kError, "error"), ": ",
                      Text(error));
}

void WriteText(const std::vector<ModelResult>& results, const TextOptions& options,
               std::ostream& out) {
  const Painter p(options.color);
  bool printed = false;
  for (const ModelResult& r : results) {
    if (r.error) {
      if (printed) out << "\n";
      out << LoadErrorText(r.path, *r.error, options.color) << "\n";
      printed = true;
      continue;
    }
    for (const lint::Finding& f : r.findings) {
      // A blank line between blocks, as compilers do, so each finding reads on its own.
      if (printed) out << "\n";
      WriteFinding(r.path, f, options, p, out);
      printed = true;
    }
  }

  if (!options.summary) return;
  if (printed) out << "\n";
  out << SummaryText(results) << "\n";
}

}  // namespace shapelint::report
