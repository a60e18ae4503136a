// The HTML report (report::WriteHtml, docs/html.md): one page per run, readable offline and
// safe to open from anywhere. Everything it needs is inside it (the style sheet in <style>, the
// drawings as inline SVG) and it runs no script: a report attached to a CI run or an issue
// shows the same everywhere and fetches nothing.
#include <algorithm>
#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "report/finding_text.h"
#include "report/html.h"
#include "report/json_dump.h"
#include "shapelint/lint/finding.h"
#include "shapelint/lint/lint.h"
#include "shapelint/report/report.h"

namespace shapelint::report {
namespace {

// System fonts only: a web font would be a download.
constexpr std::string_view kStyle = R"css(
.onnx-shapelint { --error: #b3261e; --warning: #8a5300; --note: #0b6e99; --ink: #1f2328;
  --muted: #59636e; --line: #d1d9e0; --soft: #f6f8fa; --wire: #57606a; }
.onnx-shapelint, .onnx-shapelint * { box-sizing: border-box; }
.onnx-shapelint { margin: 0; color: var(--ink); background: #fff; font: 15px/1.5 system-ui,
  "Segoe UI", Roboto, "Noto Sans", "DejaVu Sans", sans-serif; }
.onnx-shapelint > header, .onnx-shapelint > nav, .onnx-shapelint > main, .onnx-shapelint > footer {
  max-width: 1100px; margin: 0 auto; padding: 0 24px; }
.onnx-shapelint header { padding-top: 20px; }
.onnx-shapelint h1 { font-size: 24px; margin: 0; }
.onnx-shapelint p.summary { font-size: 18px; margin: 4px 0 12px; }
.onnx-shapelint ul.counts { display: flex; flex-wrap: wrap; gap: 8px; list-style: none; padding: 0;
  margin: 0; }
.onnx-shapelint ul.counts li { border: 1px solid var(--line); border-radius: 6px; padding: 2px 10px;
  background: var(--soft); }
.onnx-shapelint ul.counts b { font-size: 17px; margin-right: 4px; }
.onnx-shapelint code, .onnx-shapelint pre, .onnx-shapelint .mono { font-family: ui-monospace,
  "SFMono-Regular", Menlo, Consolas, "DejaVu Sans Mono", monospace; font-size: 13px; }
.onnx-shapelint pre { background: var(--soft); padding: 6px 10px; border-radius: 6px; white-space:
  pre-wrap; overflow-wrap: anywhere; margin: 4px 0; }
.onnx-shapelint nav ol { margin: 8px 0; }
.onnx-shapelint section.model { border-top: 2px solid var(--line); margin-top: 20px; }
.onnx-shapelint section.model > h2 { font-size: 19px; overflow-wrap: anywhere; margin: 12px 0 4px; }
.onnx-shapelint p.load-error { color: var(--error); font-weight: 600; }
.onnx-shapelint article.finding { border: 1px solid var(--line); border-left: 6px solid
  var(--muted); border-radius: 8px; padding: 10px 16px; margin: 14px 0; }
.onnx-shapelint article.error { border-left-color: var(--error); }
.onnx-shapelint article.warning { border-left-color: var(--warning); }
.onnx-shapelint article.note { border-left-color: var(--note); }
.onnx-shapelint article h3 { font-size: 17px; margin: 0; overflow-wrap: anywhere; }
.onnx-shapelint .sev { display: inline-block; color: #fff; background: var(--muted); border-radius:
  4px; padding: 0 6px; font-size: 12px; font-weight: 700; text-transform: uppercase; vertical-align:
  2px; }
.onnx-shapelint .sev.error { background: var(--error); }
.onnx-shapelint .sev.warning { background: var(--warning); }
.onnx-shapelint .sev.note { background: var(--note); }
.onnx-shapelint .rule-summary { color: var(--muted); margin: 2px 0 6px; }
.onnx-shapelint p.message { font-size: 16px; margin: 6px 0; overflow-wrap: anywhere; }
.onnx-shapelint dl { display: grid; grid-template-columns: max-content minmax(0, 1fr); gap: 6px
  16px; margin: 8px 0; }
.onnx-shapelint dt { font-weight: 600; color: var(--muted); }
.onnx-shapelint dd { margin: 0; overflow-wrap: anywhere; }
.onnx-shapelint dd p { margin: 0 0 4px; }
.onnx-shapelint table { border-collapse: collapse; margin: 4px 0; }
.onnx-shapelint th, .onnx-shapelint td { border: 1px solid var(--line); padding: 1px 8px;
  text-align: left; vertical-align: top; }
.onnx-shapelint th { background: var(--soft); font-weight: 600; }
.onnx-shapelint td.differs { color: var(--error); font-weight: 700; }
.onnx-shapelint figure.path { margin: 12px 0 4px; overflow-x: auto; }
.onnx-shapelint figcaption { color: var(--muted); font-size: 14px; }
.onnx-shapelint svg.path { display: block; max-width: 100%; height: auto; }
.onnx-shapelint svg text { font: 12px ui-monospace, "SFMono-Regular", Menlo, Consolas,
  "DejaVu Sans Mono", monospace; fill: var(--ink); }
.onnx-shapelint svg text.op { font-size: 13px; font-weight: 700; }
.onnx-shapelint svg text.name { font-weight: 700; }
.onnx-shapelint svg text.gap, .onnx-shapelint svg text.legend { fill: var(--muted); font-family:
  system-ui, sans-serif; }
.onnx-shapelint svg tspan.diff { fill: var(--error); font-weight: 700; }
.onnx-shapelint svg .arrow { stroke: var(--wire); stroke-width: 1.5; fill: none; }
.onnx-shapelint svg line.gap { stroke-dasharray: 4 4; }
.onnx-shapelint svg .head { fill: var(--wire); }
.onnx-shapelint svg .node rect { fill: #eef2f6; stroke: var(--wire); stroke-width: 1.5; }
.onnx-shapelint svg .node.entered rect { fill: #fff4d6; stroke: #9a6700; }
.onnx-shapelint svg .node.fails rect { fill: #ffe3e0; stroke: var(--error); }
.onnx-shapelint svg .node.finding rect { stroke-width: 3.5; }
.onnx-shapelint svg .card rect { fill: #fff; stroke: var(--line); stroke-width: 1.5; }
.onnx-shapelint svg rect.end { fill: var(--soft); stroke: var(--wire); }
.onnx-shapelint svg text.end { text-anchor: middle; }
.onnx-shapelint details { margin: 6px 0; }
.onnx-shapelint summary { cursor: pointer; color: var(--muted); }
.onnx-shapelint footer { color: var(--muted); font-size: 13px; padding-top: 20px; padding-bottom:
  20px; }
)css";

// A path as the text report names it: standard input is "<stdin>".
std::string Shown(const std::string& path) { return path == "-" ? "<stdin>" : path; }

std::string Code(std::string_view s) { return absl::StrCat("<code>", Html(s), "</code>"); }

std::string_view RuleSummary(std::string_view code) {
  for (const lint::RuleInfo& rule : lint::AllRules()) {
    if (rule.code == code) return rule.summary;
  }
  return "";
}

struct Counts {
  int64_t errors = 0, warnings = 0, notes = 0;
};

Counts CountsOf(const std::vector<lint::Finding>& findings) {
  Counts c;
  for (const lint::Finding& f : findings) {
    if (f.severity == lint::Severity::kError) ++c.errors;
    if (f.severity == lint::Severity::kWarning) ++c.warnings;
    if (f.severity == lint::Severity::kNote) ++c.notes;
  }
  return c;
}

std::string OptionalSize(const std::optional<int64_t>& v) { return v ? absl::StrCat(*v) : "-"; }

void WriteWitness(const lint::Witness& w, std::string& out) {
  const std::string text = WitnessText(w, kAsIs);
  if (!text.empty()) absl::StrAppend(&out, "<p>", Html(text), "</p>\n");
  if (!w.ranges.empty()) {
    absl::StrAppend(
        &out,
        "<table class=\"ranges\"><thead><tr><th>symbol</th><th>witness</th>"
        "<th>works from</th><th>works up to</th><th>and again every</th><th>also at</th></tr>"
        "</thead><tbody>");
    for (const lint::SymbolRange& r : w.ranges) {
      const std::string also =
          r.also.empty() ? "-" : absl::StrCat(absl::StrJoin(r.also, ", "), r.more ? ", ..." : "");
      absl::StrAppend(&out, "<tr><td class=\"mono\">", Html(r.symbol), "</td><td>", r.value,
                      "</td><td>", OptionalSize(r.min), "</td><td>", OptionalSize(r.max),
                      "</td><td>", OptionalSize(r.every), "</td><td>", also, "</td></tr>\n");
    }
    absl::StrAppend(&out, "</tbody></table>\n");
  }
  for (const std::string& relation : w.relations) {
    absl::StrAppend(&out, "<p>relation: ", Code(relation), "</p>\n");
  }
}

void WriteCounterexample(const lint::Counterexample& cx, std::string& out) {
  absl::StrAppend(&out, "<p>", Html(CounterexampleText(cx, kAsIs)), "</p>\n");
  if (!cx.inputs.empty()) {
    absl::StrAppend(&out,
                    "<table class=\"inputs\"><thead><tr><th>input</th><th>shape</th></tr>"
                    "</thead><tbody>");
    for (const auto& [input, dims] : cx.inputs) {
      absl::StrAppend(&out, "<tr><td class=\"mono\">", Html(input), "</td><td class=\"mono\">",
                      DimsText(dims), "</td></tr>\n");
    }
    absl::StrAppend(&out, "</tbody></table>\n");
  }
  const std::string failing = NodePath(cx.failing_node, kAsIs);
  if (!failing.empty()) {
    absl::StrAppend(&out, "<p class=\"failing\">failing node: ", Code(failing), " (",
                    Html(cx.failing_node.op_type), "), ",
                    cx.node_fails ? "which cannot run there" : "which runs, with another shape",
                    cx.failure.empty() ? "" : ": ", Html(cx.failure), "</p>\n");
  }
  if (!cx.outputs.empty()) {
    absl::StrAppend(&out,
                    "<table class=\"outputs\"><thead><tr><th>output</th><th>actual</th>"
                    "<th>declared</th></tr></thead><tbody>");
    for (const lint::ShapeAt& o : cx.outputs) {
      const bool differs = o.expected && *o.expected != o.actual;
      absl::StrAppend(&out, "<tr><td class=\"mono\">", Html(o.value), "</td><td class=\"mono",
                      differs ? " differs" : "", "\">", DimsText(o.actual),
                      "</td><td class=\"mono\">", o.expected ? DimsText(*o.expected) : "-",
                      "</td></tr>\n");
    }
    absl::StrAppend(&out, "</tbody></table>\n");
  }
}

void WriteFinding(const lint::Finding& f, const lint::FindingPath* path, const std::string& id,
                  std::string& out) {
  const std::string severity(lint::SeverityName(f.severity));
  absl::StrAppend(&out, "<article class=\"finding ", severity, "\" id=\"", id, "\" data-rule=\"",
                  Html(f.rule), "\">\n");
  absl::StrAppend(&out, "<h3><span class=\"sev ", severity, "\">", severity,
                  "</span> <span class=\"code\">", Html(f.rule), "</span> <span class=\"rule\">",
                  Html(f.name), "</span>");
  const std::string where = NodePath(f.node, kAsIs);
  if (!where.empty()) absl::StrAppend(&out, " at ", Code(where));
  absl::StrAppend(&out, "</h3>\n");
  if (std::string_view summary = RuleSummary(f.rule); !summary.empty()) {
    absl::StrAppend(&out, "<p class=\"rule-summary\">", Html(summary), "</p>\n");
  }
  absl::StrAppend(&out, "<p class=\"message\">", Html(f.message), "</p>\n<dl>\n");
  if (!where.empty()) {
    absl::StrAppend(&out, "<dt>node</dt><dd>", Code(where), " (", Html(f.node.op_type), " #",
                    f.node.index, ")");
    if (!f.attribute.empty()) absl::StrAppend(&out, ", ", Code(f.attribute));
    absl::StrAppend(&out, "</dd>\n");
  }
  if (!f.symbols.empty() || !f.symbol_axes.empty()) {
    // Each with the input axis it is, where the name is an exporter's (s53: x axis 2).
    auto axis_of = [&f](const std::string& s) -> std::string {
      for (const auto& [symbol, axis] : f.symbol_axes) {
        if (symbol == s) return absl::StrCat(" (", Html(axis), ")");
      }
      return "";
    };
    std::vector<std::string> symbols;
    for (const std::string& s : f.symbols) symbols.push_back(Code(s) + axis_of(s));
    for (const auto& [s, axis] : f.symbol_axes) {
      if (std::find(f.symbols.begin(), f.symbols.end(), s) == f.symbols.end()) {
        symbols.push_back(Code(s) + axis_of(s));
      }
    }
    absl::StrAppend(&out, "<dt>symbols</dt><dd>", absl::StrJoin(symbols, ", "), "</dd>\n");
  }
  if (f.source) {
    const lint::SourceLocation& s = *f.source;
    absl::StrAppend(&out, "<dt>source</dt><dd class=\"source\">",
                    Code(absl::StrCat(s.file, ":", s.line)), " in ", Code(s.function));
    if (!s.module.empty()) absl::StrAppend(&out, " (module ", Code(s.module), ")");
    if (!s.code.empty()) absl::StrAppend(&out, "<pre>", Html(s.code), "</pre>");
    absl::StrAppend(&out, "</dd>\n");
  }
  if (f.witness) {
    absl::StrAppend(&out, "<dt>witness</dt><dd class=\"witness\">\n");
    WriteWitness(*f.witness, out);
    absl::StrAppend(&out, "</dd>\n");
  }
  if (f.counterexample) {
    absl::StrAppend(&out, "<dt>counterexample</dt><dd class=\"counterexample\">\n");
    WriteCounterexample(*f.counterexample, out);
    absl::StrAppend(&out, "</dd>\n");
  }
  if (!f.notes.empty()) {
    absl::StrAppend(&out, "<dt>notes</dt><dd class=\"notes\"><ol>\n");
    for (const lint::Note& n : f.notes) {
      absl::StrAppend(&out, "<li>", Html(NoteText(n, kAsIs)), "</li>\n");
    }
    absl::StrAppend(&out, "</ol></dd>\n");
  }
  if (!f.fix.empty())
    absl::StrAppend(&out, "<dt>fix</dt><dd class=\"fix\">", Html(f.fix), "</dd>\n");
  absl::StrAppend(&out, "</dl>\n");
  if (path != nullptr) absl::StrAppend(&out, PathFigure(f, *path));
  if (!f.expressions.empty()) {
    absl::StrAppend(&out,
                    "<details class=\"expressions\"><summary>The symbolic facts behind it"
                    "</summary><ul>\n");
    for (const lint::Expression& e : f.expressions) {
      absl::StrAppend(&out, "<li>", Html(e.label), ": ", Code(e.text), "</li>\n");
    }
    absl::StrAppend(&out, "</ul></details>\n");
  }
  absl::StrAppend(&out, "</article>\n");
}

std::string CountsText(const Counts& c) {
  std::vector<std::string> parts;
  auto add = [&](int64_t n, std::string_view word) {
    if (n > 0) parts.push_back(absl::StrCat(n, " ", std::string(word), n == 1 ? "" : "s"));
  };
  add(c.errors, "error");
  add(c.warnings, "warning");
  add(c.notes, "note");
  return parts.empty() ? "no findings" : absl::StrJoin(parts, ", ");
}

}  // namespace

std::string Html(std::string_view text) {
  const bool ascii = std::all_of(text.begin(), text.end(),
                                 [](char c) { return static_cast<unsigned char>(c) < 0x80; });
  const std::string clean = ascii ? std::string(text) : AsWrittenInJson(text);
  std::string out;
  out.reserve(clean.size());
  for (size_t i = 0; i < clean.size();) {
    const auto c = static_cast<unsigned char>(clean[i]);
    if (c < 0x80) {
      ++i;
      switch (c) {
        case '&':
          out += "&amp;";
          continue;
        case '<':
          out += "&lt;";
          continue;
        case '>':
          out += "&gt;";
          continue;
        case '"':
          out += "&quot;";
          continue;
        case '\'':
          out += "&#39;";
          continue;
        default:
          break;
      }
      if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7f) {
        out += absl::StrFormat("\\x%02x", c);
      } else {
        out += static_cast<char>(c);
      }
      continue;
    }
    // Valid UTF-8 from here on (AsWrittenInJson); a byte that were not would stand for itself.
    const auto [code, len] = DecodeUtf8(clean, i).value_or(std::pair<uint32_t, size_t>{c, 1});
    // C1 controls and noncharacters: parse errors in an HTML document.
    if (code <= 0x9f || (code >= 0xfdd0 && code <= 0xfdef) || (code & 0xfffe) == 0xfffe) {
      out += absl::StrFormat("\\u%04x", code);
    } else {
      out.append(clean, i, len);
    }
    i += len;
  }
  return out;
}

namespace {

// The report as one element whose style sheet applies only inside it (every selector starts
// with its class): a notebook shows it among the user's own cells, which it must not restyle.
std::string Fragment(const std::vector<ModelResult>& results, const std::string& summary) {
  Counts total;
  int64_t load_errors = 0;
  for (const ModelResult& r : results) {
    if (r.error) {
      ++load_errors;
      continue;
    }
    const Counts c = CountsOf(r.findings);
    total.errors += c.errors;
    total.warnings += c.warnings;
    total.notes += c.notes;
  }
  const std::string version(lint::Version());
  std::string page = absl::StrCat(
      "<div class=\"onnx-shapelint\">\n<style>", std::string(kStyle),
      "</style>\n<header>\n<h1>onnx-shapelint report</h1>\n<p class=\"summary\" id=\"summary\">",
      Html(summary), "</p>\n<ul class=\"counts\">\n");
  auto count = [&](int64_t n, std::string_view what, std::string_view cls) {
    absl::StrAppend(&page, "<li class=\"", std::string(cls), "\"><b>", n, "</b>", std::string(what),
                    "</li>\n");
  };
  count(static_cast<int64_t>(results.size()), results.size() == 1 ? "model" : "models", "models");
  count(total.errors, total.errors == 1 ? "error" : "errors", "errors");
  count(total.warnings, total.warnings == 1 ? "warning" : "warnings", "warnings");
  count(total.notes, total.notes == 1 ? "note" : "notes", "notes");
  count(load_errors, "not loaded", "load-errors");
  absl::StrAppend(&page, "</ul>\n</header>\n");

  // A table of contents where there is more than one model to go to.
  if (results.size() > 1) {
    absl::StrAppend(&page, "<nav>\n<ol>\n");
    for (size_t m = 0; m < results.size(); ++m) {
      const ModelResult& r = results[m];
      absl::StrAppend(&page, "<li><a href=\"#model-", m + 1, "\">", Html(Shown(r.path)),
                      "</a>: ", r.error ? "could not be loaded" : CountsText(CountsOf(r.findings)),
                      "</li>\n");
    }
    absl::StrAppend(&page, "</ol>\n</nav>\n");
  }

  absl::StrAppend(&page, "<main>\n");
  for (size_t m = 0; m < results.size(); ++m) {
    const ModelResult& r = results[m];
    absl::StrAppend(&page, "<section class=\"model\" id=\"model-", m + 1, "\">\n<h2>",
                    Html(Shown(r.path)), "</h2>\n");
    if (r.error) {
      absl::StrAppend(&page,
                      "<p class=\"load-error\"><span class=\"sev error\">error</span> "
                      "could not be loaded: ",
                      Html(*r.error), "</p>\n");
    } else if (r.findings.empty()) {
      absl::StrAppend(&page, "<p class=\"clean\">No findings.</p>\n");
    } else {
      absl::StrAppend(&page, "<p class=\"model-counts\">", CountsText(CountsOf(r.findings)),
                      "</p>\n");
      // Paths that do not pair with the findings one to one are not drawn rather than drawn
      // for the wrong finding.
      const bool paired = r.paths.size() == r.findings.size();
      for (size_t i = 0; i < r.findings.size(); ++i) {
        WriteFinding(r.findings[i], paired ? &r.paths[i] : nullptr,
                     absl::StrCat("model-", m + 1, "-finding-", i + 1), page);
      }
    }
    absl::StrAppend(&page, "</section>\n");
  }
  absl::StrAppend(&page, "</main>\n<footer>onnx-shapelint ", Html(version), "</footer>\n</div>\n");
  return page;
}

}  // namespace

void WriteHtml(const std::vector<ModelResult>& results, std::ostream& out) {
  const std::string summary = SummaryText(results);
  out << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
         "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
         "<meta name=\"generator\" content=\"onnx-shapelint "
      << Html(lint::Version()) << "\">\n<title>onnx-shapelint: " << Html(summary)
      << "</title>\n</head>\n<body>\n"
      << Fragment(results, summary) << "</body>\n</html>\n";
}

void WriteHtmlFragment(const std::vector<ModelResult>& results, std::ostream& out) {
  out << Fragment(results, SummaryText(results));
}

}  // namespace shapelint::report
