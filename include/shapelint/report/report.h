// Report writers: compiler-style text, the versioned JSON document, SARIF, GitHub annotations
// and the HTML page.
#ifndef SHAPELINT_REPORT_REPORT_H_
#define SHAPELINT_REPORT_REPORT_H_

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "shapelint/lint/finding.h"
#include "shapelint/lint/finding_path.h"

namespace shapelint::report {

// The result of linting one model file.
struct ModelResult {
  std::string path;  // as given on the command line ("-" for stdin)
  // Set when the model could not be loaded: the reason, without the path in front.
  std::optional<std::string> error;
  std::vector<lint::Finding> findings;
  // The HTML report's drawings: each finding's path through the graph (lint::PathsOf), in the
  // order of `findings`; empty when not computed (the other formats never need them). Whoever
  // removes findings removes their paths with them (baselines and suppressions do); when the
  // sizes differ, the HTML report draws no path.
  std::vector<lint::FindingPath> paths;
};

// Version of the JSON document layout (docs/json-format.md); bumped on incompatible change.
inline constexpr int kJsonSchemaVersion = 1;

void WriteJson(const std::vector<ModelResult>& results, std::ostream& out);

// SARIF 2.1.0 (docs/sarif.md): one run, the rules of the registry, one result per finding.
void WriteSarif(const std::vector<ModelResult>& results, std::ostream& out);

struct SarifOptions {
  // An absolute directory, the root of the repository the log is for: a PyTorch source file
  // under it (a finding's `source`, recorded with an absolute path at export) is named relative
  // to it, with the uriBaseId %SRCROOT% that run.originalUriBaseIds maps to this directory. Any
  // other absolute path is a file:// URI. Empty: no root.
  std::string source_root;
};
void WriteSarif(const std::vector<ModelResult>& results, const SarifOptions& options,
                std::ostream& out);

struct TextOptions {
  bool color = false;
  bool summary = true;   // the closing "1 error, 0 warnings in 1 model" line (off: --quiet)
  bool verbose = false;  // the findings' symbolic expressions too (--verbose)
};
void WriteText(const std::vector<ModelResult>& results, const TextOptions& options,
               std::ostream& out);

// "model.onnx: error: no such file": a model that could not be loaded, as every text report
// says it (linting's, `shapes`' and `probe`'s); standard input ("-") is "<stdin>". `color`
// paints "error" as the text report does on a terminal.
std::string LoadErrorText(const std::string& path, const std::string& error, bool color = false);

// GitHub Actions workflow commands, one per finding ("::error file=...,title=...::message"),
// which GitHub shows as annotations on the model file; load errors as errors too.
void WriteGithub(const std::vector<ModelResult>& results, std::ostream& out);

// One self-contained HTML5 page (docs/html.md): a summary, then each model with its load error
// or its findings, each with its evidence and, where `paths` holds it, a drawing (inline SVG)
// of its path from the constant to the node that fails, with the shapes on the way at the
// export size and at the counterexample. Nothing in it is loaded from elsewhere: no script, no
// stylesheet, image or font from a file or the network. For one model linted in-process:
//
//   ModelResult r{.path = "model.onnx"};
//   r.findings = *lint::Lint(model, options);
//   r.paths = *lint::PathsOf(model, options, r.findings);  // the same model and options
//   WriteHtml({r}, out);
void WriteHtml(const std::vector<ModelResult>& results, std::ostream& out);

// The same report as one <div class="onnx-shapelint"> to put inside another page (a notebook's
// output): no document around it, and every rule of its style sheet applies only inside it.
// What a page adds after the findings belongs before its first "</main>".
void WriteHtmlFragment(const std::vector<ModelResult>& results, std::ostream& out);

// How many findings each rule has, most first: a table in text, or {"statistics": [...]} in
// JSON (docs/json-format.md).
void WriteStatisticsText(const std::vector<ModelResult>& results, std::ostream& out);
void WriteStatisticsJson(const std::vector<ModelResult>& results, std::ostream& out);

}  // namespace shapelint::report

#endif  // SHAPELINT_REPORT_REPORT_H_
