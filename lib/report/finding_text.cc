#include "report/finding_text.h"

#include <cstdint>
#include <optional>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

namespace shapelint::report {
namespace {

// Debian's Abseil is built with its own absl::string_view, which std::string_view does not
// convert to: string_views go through std::string before reaching absl::StrCat.

std::string RangeText(const lint::SymbolRange& r, const TextStyle& style) {
  const std::string symbol = style.name(r.symbol);
  if (r.min && r.max) {
    if (*r.min == *r.max)
      return absl::StrCat(symbol, " = ", *r.min, lint::RepeatText(r), lint::AlsoText(r));
    return absl::StrCat(symbol, " in [", *r.min, ", ", *r.max, "]", lint::RepeatText(r),
                        lint::AlsoText(r));
  }
  if (r.max) return absl::StrCat(symbol, " <= ", *r.max, lint::AlsoText(r));
  // Sizes are at least 1 anyway; "seq >= 1" would only add noise.
  if (r.min && *r.min > 1) return absl::StrCat(symbol, " >= ", *r.min, lint::AlsoText(r));
  return "";
}

// "at s0=2, s1=3 (x: [2, 3])", or "with x: [2, 3]" when no symbol is bound.
std::string WhereText(const lint::Counterexample& cx, const TextStyle& style) {
  std::vector<std::string> binding;
  for (const auto& [symbol, size] : cx.binding) {
    binding.push_back(absl::StrCat(style.name(symbol), "=", size));
  }
  std::vector<std::string> inputs;
  for (const auto& [input, dims] : cx.inputs) {
    inputs.push_back(absl::StrCat(style.name(input), ": ", DimsText(dims)));
  }
  if (binding.empty()) {
    return inputs.empty() ? "" : absl::StrCat("with ", absl::StrJoin(inputs, ", "));
  }
  std::string where = absl::StrCat("at ", absl::StrJoin(binding, ", "));
  if (!inputs.empty()) absl::StrAppend(&where, " (", absl::StrJoin(inputs, ", "), ")");
  return where;
}

// What goes wrong. An output that differs from its declaration is the most concrete evidence
// there is; the failure text is used when the graph stops before producing its outputs.
std::string WhatText(const lint::Counterexample& cx, const TextStyle& style) {
  std::vector<std::string> mismatches;
  if (!cx.node_fails) {
    for (const lint::ShapeAt& o : cx.outputs) {
      if (!o.expected || o.actual == *o.expected) continue;
      mismatches.push_back(absl::StrCat("output '", style.name(o.value), "' is ",
                                        DimsText(o.actual), ", declared ", DimsText(*o.expected)));
    }
  }
  if (!mismatches.empty()) return absl::StrJoin(mismatches, "; ");
  const std::string node = NodePath(cx.failing_node, style);
  if (!cx.failure.empty()) {
    // A node that runs but computes the wrong thing is named without claiming it fails.
    if (node.empty()) return style.text(cx.failure);
    return absl::StrCat(node, cx.node_fails ? " fails: " : ": ", style.text(cx.failure));
  }
  return node.empty() ? "" : absl::StrCat("the model breaks at ", node);
}

}  // namespace

std::string AsIs(std::string_view s) { return std::string(s); }

std::optional<std::pair<uint32_t, size_t>> DecodeUtf8(std::string_view s, size_t i) {
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(s[i + k]); };
  const unsigned char lead = byte(0);
  size_t len = 0;
  uint32_t code = 0, min = 0;
  if (lead >= 0xc2 && lead <= 0xdf) {
    len = 2, code = lead & 0x1f, min = 0x80;
  } else if (lead >= 0xe0 && lead <= 0xef) {
    len = 3, code = lead & 0x0f, min = 0x800;
  } else if (lead >= 0xf0 && lead <= 0xf4) {
    len = 4, code = lead & 0x07, min = 0x10000;
  } else {
    return std::nullopt;
  }
  if (i + len > s.size()) return std::nullopt;
  for (size_t k = 1; k < len; ++k) {
    if ((byte(k) & 0xc0) != 0x80) return std::nullopt;
    code = (code << 6) | (byte(k) & 0x3f);
  }
  if (code < min || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) return std::nullopt;
  return std::pair{code, len};
}

namespace {

// Controls that act on the text around them instead of showing: C1, the bidirectional marks,
// embeddings, overrides and isolates, and the line and paragraph separators.
bool InvisibleControl(uint32_t code) {
  return (code >= 0x80 && code <= 0x9f) || code == 0x061c || code == 0x200e || code == 0x200f ||
         (code >= 0x2028 && code <= 0x202e) || (code >= 0x2066 && code <= 0x2069);
}

}  // namespace

std::string EscapeControls(std::string_view s, std::string_view newline) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    const auto u = static_cast<unsigned char>(s[i]);
    if (u < 0x80) {
      if (u == '\n') {
        out += newline;
      } else if ((u < 0x20 && u != '\t') || u == 0x7f) {
        out += absl::StrFormat("\\x%02x", u);
      } else {
        out += static_cast<char>(u);
      }
      ++i;
      continue;
    }
    const auto decoded = DecodeUtf8(s, i);
    if (!decoded) {
      out += absl::StrFormat("\\x%02x", u);
      ++i;
      continue;
    }
    const auto [code, len] = *decoded;
    if (InvisibleControl(code)) {
      out += absl::StrFormat("\\u%04x", code);
    } else {
      out.append(s.substr(i, len));
    }
    i += len;
  }
  return out;
}

std::string NodeLabel(const lint::NodeRef& node) {
  if (!node.label.empty()) return node.label;
  if (!node.name.empty()) return node.name;
  if (!node.op_type.empty() && node.index >= 0) {
    return absl::StrCat("<", node.op_type, " #", node.index, ">");
  }
  return "";
}

std::string DimsText(const std::vector<int64_t>& dims) {
  return absl::StrCat("[", absl::StrJoin(dims, ", "), "]");
}

std::string NodePath(const lint::NodeRef& node, const TextStyle& style) {
  const std::string label = NodeLabel(node);
  if (label.empty()) return "";
  if (node.graph.empty()) return style.name(label);
  // PyTorch names nodes by module path ("/avgpool/AveragePool"); "main//avgpool/AveragePool"
  // would read as an empty path component, so the separator is not doubled.
  const char* separator = absl::StartsWith(label, "/") ? "" : "/";
  return style.name(absl::StrCat(node.graph, separator, label));
}

std::string WitnessText(const lint::Witness& witness, const TextStyle& style) {
  if (!witness.summary.empty()) return style.text(witness.summary);
  std::vector<std::string> parts;
  for (const lint::SymbolRange& r : witness.ranges) {
    std::string part = RangeText(r, style);
    if (!part.empty()) parts.push_back(std::move(part));
  }
  for (const std::string& relation : witness.relations) parts.push_back(style.name(relation));
  if (parts.empty()) return "";
  return absl::StrCat("works only for ", absl::StrJoin(parts, " and "));
}

std::string CounterexampleText(const lint::Counterexample& cx, const TextStyle& style) {
  std::string where = WhereText(cx, style);
  std::string what = WhatText(cx, style);
  if (where.empty()) return what;
  if (what.empty()) return where;
  return absl::StrCat(where, ": ", what);
}

std::string NoteText(const lint::Note& note, const TextStyle& style) {
  std::string where;
  if (note.node &&
      (note.node->label.empty() || !absl::StrContains(note.message, note.node->label))) {
    where = NodePath(*note.node, style);
  }
  if (where.empty()) return style.text(note.message);
  return absl::StrCat(where, ": ", style.text(note.message));
}

std::string SourceText(const lint::SourceLocation& source) {
  std::string text = absl::StrCat(source.file, ":", source.line, " in ", source.function);
  if (!source.module.empty()) absl::StrAppend(&text, " (module ", source.module, ")");
  if (!source.code.empty()) absl::StrAppend(&text, ": ", source.code);
  return text;
}

std::string SymbolAxesText(const lint::Finding& finding, const TextStyle& style) {
  std::vector<std::string> parts;
  for (const auto& [symbol, axis] : finding.symbol_axes) {
    parts.push_back(absl::StrCat(style.name(symbol), " is ", style.name(axis)));
  }
  return absl::StrJoin(parts, ", ");
}

std::vector<Evidence> EvidenceOf(const lint::Finding& finding, const TextStyle& style) {
  std::vector<Evidence> evidence;
  // First: the witness and the counterexample speak of the same sizes.
  if (!finding.symbol_axes.empty()) {
    evidence.push_back({"symbols", SymbolAxesText(finding, style)});
  }
  if (finding.witness) {
    std::string text = WitnessText(*finding.witness, style);
    if (!text.empty()) evidence.push_back({"witness", std::move(text)});
  }
  if (finding.counterexample) {
    std::string text = CounterexampleText(*finding.counterexample, style);
    if (!text.empty()) evidence.push_back({"counterexample", std::move(text)});
  }
  if (finding.source) evidence.push_back({"source", SourceText(*finding.source)});
  for (const lint::Note& note : finding.notes) {
    evidence.push_back({"note", NoteText(note, style)});
  }
  return evidence;
}

namespace {

std::string Plural(int64_t n, std::string_view word) {
  return absl::StrCat(n, " ", std::string(word), n == 1 ? "" : "s");
}

}  // namespace

RunCounts CountRun(const std::vector<ModelResult>& results) {
  RunCounts counts;
  for (const ModelResult& r : results) {
    if (r.error) ++counts.load_errors;
    for (const lint::Finding& f : r.findings) {
      switch (f.severity) {
        case lint::Severity::kError:
          ++counts.errors;
          break;
        case lint::Severity::kWarning:
          ++counts.warnings;
          break;
        case lint::Severity::kNote:
          ++counts.notes;
          break;
      }
    }
  }
  return counts;
}

std::string SummaryText(const std::vector<ModelResult>& results) {
  const auto [errors, warnings, notes, load_errors] = CountRun(results);
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
  return summary;
}

}  // namespace shapelint::report
