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

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
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
// cursor or recolour the terminal, and a newline would break the one-line-per-item layout, so
// they are shown escaped; newlines in our own messages become indented continuation lines.
std::string Clean(std::string_view s, std::string_view newline = "\\n") {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    auto u = static_cast<unsigned char>(c);
    if (c == '\n') {
      out += newline;
    } else if ((u < 0x20 && c != '\t') || u == 0x7f) {
      out += absl::StrFormat("\\x%02x", u);
    } else {
      out += c;
    }
  }
  return out;
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

// "main/<AveragePool #0>", or just the label when the graph is not known; empty when the
// reference points at no node (a finding about the model as a whole).
std::string Location(const lint::NodeRef& node) {
  std::string label = node.label;
  if (label.empty()) label = node.name;
  if (label.empty() && !node.op_type.empty() && node.index >= 0) {
    label = absl::StrCat("<", node.op_type, " #", node.index, ">");
  }
  if (label.empty()) return "";
  if (node.graph.empty()) return Clean(label);
  // PyTorch names nodes by module path ("/avgpool/AveragePool"); "main//avgpool/AveragePool"
  // would read as an empty path component, so the separator is not doubled.
  const char* separator = absl::StartsWith(label, "/") ? "" : "/";
  return Clean(absl::StrCat(node.graph, separator, label));
}

std::string Dims(const std::vector<int64_t>& dims) {
  return absl::StrCat("[", absl::StrJoin(dims, ", "), "]");
}

std::string Plural(int64_t n, std::string_view word) {
  return absl::StrCat(n, " ", std::string(word), n == 1 ? "" : "s");
}

std::string DescribeRange(const lint::SymbolRange& r) {
  std::string symbol = Clean(r.symbol);
  if (r.min && r.max) {
    if (*r.min == *r.max) return absl::StrCat(symbol, " = ", *r.min);
    return absl::StrCat(symbol, " in [", *r.min, ", ", *r.max, "]");
  }
  if (r.max) return absl::StrCat(symbol, " <= ", *r.max);
  // Sizes are at least 1 anyway; "seq >= 1" would only add noise.
  if (r.min && *r.min > 1) return absl::StrCat(symbol, " >= ", *r.min);
  return "";
}

// What the witness says, in words; empty when it says nothing.
// The witness as a sentence: the rule's summary (already one), or one built from the ranges.
std::string DescribeWitness(const lint::Witness& w) {
  if (!w.summary.empty()) return Text(w.summary);
  std::vector<std::string> parts;
  for (const lint::SymbolRange& r : w.ranges) {
    std::string part = DescribeRange(r);
    if (!part.empty()) parts.push_back(std::move(part));
  }
  for (const std::string& relation : w.relations) parts.push_back(Clean(relation));
  if (parts.empty()) return "";
  return absl::StrCat("works only for ", absl::StrJoin(parts, " and "));
}

std::string DescribeCounterexample(const lint::Counterexample& cx) {
  std::vector<std::string> binding;
  for (const auto& [symbol, size] : cx.binding) {
    binding.push_back(absl::StrCat(Clean(symbol), "=", size));
  }
  std::vector<std::string> inputs;
  for (const auto& [input, dims] : cx.inputs) {
    inputs.push_back(absl::StrCat(Clean(input), ": ", Dims(dims)));
  }
  std::string where;
  if (!binding.empty()) {
    where = absl::StrCat("at ", absl::StrJoin(binding, ", "));
    if (!inputs.empty()) absl::StrAppend(&where, " (", absl::StrJoin(inputs, ", "), ")");
  } else if (!inputs.empty()) {
    where = absl::StrCat("with ", absl::StrJoin(inputs, ", "));
  }

  // An output that differs from its declaration is the most concrete evidence there is; the
  // failure text is used when the graph stops before producing its outputs.
  std::vector<std::string> mismatches;
  for (const lint::ShapeAt& o : cx.node_fails ? std::vector<lint::ShapeAt>{} : cx.outputs) {
    if (!o.expected || o.actual == *o.expected) continue;
    mismatches.push_back(absl::StrCat("output '", Clean(o.value), "' is ", Dims(o.actual),
                                      ", declared ", Dims(*o.expected)));
  }
  std::string what;
  if (!mismatches.empty()) {
    what = absl::StrJoin(mismatches, "; ");
  } else {
    std::string node = Location(cx.failing_node);
    if (!cx.failure.empty()) {
      // A node that runs but computes the wrong thing is named without claiming it fails.
      what = node.empty() ? Text(cx.failure)
                          : absl::StrCat(node, cx.node_fails ? " fails: " : ": ", Text(cx.failure));
    } else if (!node.empty()) {
      what = absl::StrCat("the model breaks at ", node);
    }
  }
  if (where.empty()) return what;
  if (what.empty()) return where;
  return absl::StrCat(where, ": ", what);
}

void WriteFinding(const std::string& path, const lint::Finding& f, const TextOptions& options,
                  const Painter& p, std::ostream& out) {
  std::string head = DisplayPath(path);
  std::string location = Location(f.node);
  if (!location.empty()) absl::StrAppend(&head, ": ", location);
  std::string tag(lint::SeverityName(f.severity));
  if (!f.rule.empty()) absl::StrAppend(&tag, "[", Clean(f.rule), "]");
  absl::StrAppend(&head, ": ", p.Severity(f.severity, tag));
  if (!f.name.empty()) absl::StrAppend(&head, " ", Clean(f.name));
  out << head << ": " << Text(f.message) << "\n";

  if (f.witness) {
    std::string w = DescribeWitness(*f.witness);
    if (!w.empty()) out << p.Item("witness", w);
  }
  if (f.counterexample) {
    std::string cx = DescribeCounterexample(*f.counterexample);
    if (!cx.empty()) out << p.Item("counterexample", cx);
  }
  for (const lint::Note& n : f.notes) {
    // The node is named unless the note already does ("... flows into Gemm 'fc'"): the JSON
    // report keeps it either way.
    std::string where;
    if (n.node && (n.node->label.empty() || !absl::StrContains(n.message, n.node->label))) {
      where = Location(*n.node);
    }
    out << p.Item("note",
                  where.empty() ? Text(n.message) : absl::StrCat(where, ": ", Text(n.message)));
  }
  if (options.verbose) {
    for (const lint::Expression& e : f.expressions) out << p.Item(Clean(e.label), Text(e.text));
  }
  if (!f.fix.empty()) out << p.Item("help", Text(f.fix));
}

}  // namespace

void WriteText(const std::vector<ModelResult>& results, const TextOptions& options,
               std::ostream& out) {
  const Painter p(options.color);
  int64_t errors = 0, warnings = 0, notes = 0, load_errors = 0;
  bool printed = false;
  for (const ModelResult& r : results) {
    if (r.error) {
      ++load_errors;
      if (printed) out << "\n";
      out << DisplayPath(r.path) << ": " << p.Severity(lint::Severity::kError, "error") << ": "
          << Text(*r.error) << "\n";
      printed = true;
      continue;
    }
    for (const lint::Finding& f : r.findings) {
      switch (f.severity) {
        case lint::Severity::kError:
          ++errors;
          break;
        case lint::Severity::kWarning:
          ++warnings;
          break;
        case lint::Severity::kNote:
          ++notes;
          break;
      }
      // A blank line between blocks, as compilers do, so each finding reads on its own.
      if (printed) out << "\n";
      WriteFinding(r.path, f, options, p, out);
      printed = true;
    }
  }

  if (!options.summary) return;
  if (printed) out << "\n";
  const int64_t loaded = static_cast<int64_t>(results.size()) - load_errors;
  std::string summary;
  if (loaded > 0 || load_errors == 0) {
    summary = absl::StrCat(Plural(errors, "error"), ", ", Plural(warnings, "warning"));
    if (notes > 0) absl::StrAppend(&summary, ", ", Plural(notes, "note"));
    absl::StrAppend(&summary, " in ", Plural(loaded, "model"));
    if (load_errors > 0) absl::StrAppend(&summary, "; ");
  }
  if (load_errors > 0) {
    absl::StrAppend(&summary, Plural(load_errors, "model"), " could not be loaded");
  }
  out << summary << "\n";
}

}  // namespace shapelint::report
