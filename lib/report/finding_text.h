// A finding's evidence in words, the same in every report: the node it points at, the witness,
// the counterexample and the notes. The text report prints them as its "= witness:" and
// following lines; GitHub annotations and SARIF messages carry the same text.
#ifndef SHAPELINT_LIB_REPORT_FINDING_TEXT_H_
#define SHAPELINT_LIB_REPORT_FINDING_TEXT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "shapelint/lint/finding.h"
#include "shapelint/report/report.h"

namespace shapelint::report {

// How text taken from the model goes into a report. The text report escapes control
// characters for the terminal; the other formats have escapes of their own and take it as is.
struct TextStyle {
  std::string (*name)(std::string_view);  // a name or path, kept on one line
  std::string (*text)(std::string_view);  // a message, which may span lines
};

// The identity, for formats that escape the text themselves.
std::string AsIs(std::string_view s);

// The code point of the valid UTF-8 sequence at s[i] and its length; nullopt for a byte that
// starts none (a stray continuation, an overlong form, a surrogate, past U+10FFFF, cut short).
std::optional<std::pair<uint32_t, size_t>> DecodeUtf8(std::string_view s, size_t i);

// Text from a model made safe for a terminal or a plain-text log: C0 controls (but tab) and DEL
// as "\x1b", C1 controls (U+0085, U+009B) and the invisible controls that reorder or break
// the text around them (bidirectional marks, embeddings, overrides and isolates; line and
// paragraph separators) as "\u202e", each byte that is no valid UTF-8 as "\xff". A newline
// becomes `newline`.
std::string EscapeControls(std::string_view s, std::string_view newline);
inline constexpr TextStyle kAsIs{&AsIs, &AsIs};

// "[2, 3, 9, 8]".
std::string DimsText(const std::vector<int64_t>& dims);

// The node's label: its name, or "<OpType #index>" when unnamed; empty when the reference names
// no node.
std::string NodeLabel(const lint::NodeRef& node);

// "main/<AveragePool #0>": the graph and the node's label, or its name, or "<OpType #index>"
// when it has neither; empty when the reference names no node (the model as a whole).
std::string NodePath(const lint::NodeRef& node, const TextStyle& style);

// "works only for s2 in [6, 8] and s3 in [6, 7]": the rule's summary, or a sentence built from
// the ranges and relations; empty when it says nothing.
std::string WitnessText(const lint::Witness& witness, const TextStyle& style);

// "at s0=2, s1=3, s2=9, s3=8 (x: [2, 3, 9, 8]): output 'y' is [2, 3, 3, 4], declared
// [2, 3, 2, 3]": where (the sizes and the input shapes they give) and what breaks there (an
// output that differs from its declaration, else the failing node and why).
std::string CounterexampleText(const lint::Counterexample& cx, const TextStyle& style);

// The note, after the node it points at unless the note names it already ("... flows into
// Gemm 'fc'").
std::string NoteText(const lint::Note& note, const TextStyle& style);

// "model.py:42 in forward (module encoder.pool): return F.adaptive_avg_pool2d(x, (2, 3))".
std::string SourceText(const lint::SourceLocation& source);

// The evidence of a finding, as the reports list it: "witness", "counterexample", "source" and
// one "note" each, in that order; parts that say nothing are left out.
struct Evidence {
  std::string label;
  std::string text;
};
// "s53 is x axis 2, s0 is x axis 3": the input axis of each made-up size name the finding
// uses (Finding::symbol_axes); empty when it uses none.
std::string SymbolAxesText(const lint::Finding& finding, const TextStyle& style);

std::vector<Evidence> EvidenceOf(const lint::Finding& finding, const TextStyle& style);

// The counts of a run: findings by severity, and the models that could not be loaded.
struct RunCounts {
  int64_t errors = 0, warnings = 0, notes = 0, load_errors = 0;
};
RunCounts CountRun(const std::vector<ModelResult>& results);

// "1 error, 0 warnings in 1 model; 1 model could not be loaded": the counts of a run, as the
// text report's last line and the HTML page's heading give them.
std::string SummaryText(const std::vector<ModelResult>& results);

}  // namespace shapelint::report

#endif  // SHAPELINT_LIB_REPORT_FINDING_TEXT_H_
