// The HTML report: the page's structure, the drawings of real findings' paths, escaping, and
// that the page loads nothing from elsewhere. The real browser's view of it is
// tests/report/html_browser_test.sh.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "rules/report_test_util.h"
#include "sample_results.h"
#include "shapelint/ir/load.h"
#include "shapelint/lint/finding_path.h"
#include "shapelint/lint/lint.h"
#include "shapelint/report/report.h"
#include "test_files.h"

namespace shapelint::report {
namespace {

namespace fs = std::filesystem;
using testing::SampleResults;
namespace files = ::shapelint::testing;  // the tool run in-process, and files

std::string Page(const std::vector<ModelResult>& results) {
  std::ostringstream out;
  WriteHtml(results, out);
  return out.str();
}

int Count(const std::string& haystack, const std::string& needle) {
  int n = 0;
  for (size_t at = haystack.find(needle); at != std::string::npos;
       at = haystack.find(needle, at + needle.size())) {
    ++n;
  }
  return n;
}

// Every reference of the page to something outside it: an attribute that fetches (src, href
// other than a #fragment, srcset, poster, data, action), a CSS url() or @import, a <link>, a
// script with a source, a frame. Empty for a self-contained page.
std::vector<std::string> OutsideReferences(const std::string& page) {
  std::vector<std::string> found;
  const std::regex attribute(
      R"re(\b(src|srcset|poster|data|action|href|xlink:href)\s*=\s*("[^"]*"|'[^']*'|[^\s>]+))re",
      std::regex::icase);
  for (auto it = std::sregex_iterator(page.begin(), page.end(), attribute);
       it != std::sregex_iterator(); ++it) {
    const std::string name = (*it)[1];
    std::string value = (*it)[2];
    if (!value.empty() && (value[0] == '"' || value[0] == '\'')) {
      value = value.substr(1, value.size() - 2);
    }
    if (absl::AsciiStrToLower(name) == "href" && absl::StartsWith(value, "#")) continue;
    found.push_back(it->str());
  }
  const std::string lower = absl::AsciiStrToLower(page);
  for (const char* pattern : {"url(", "@import", "<link", "<script", "<iframe", "<object", "<embed",
                              "<img", "<base", "http://", "https://", "//fonts."}) {
    if (absl::StrContains(lower, pattern)) found.push_back(pattern);
  }
  return found;
}

// The values of attribute `name` of every element with class `cls`, in page order.
std::vector<std::string> Attributes(const std::string& page, const std::string& cls,
                                    const std::string& name) {
  std::vector<std::string> values;
  const std::regex element("<g class=\"" + cls + R"re([^"]*"[^>]*\b)re" + name +
                           R"re(="([^"]*)")re");
  for (auto it = std::sregex_iterator(page.begin(), page.end(), element);
       it != std::sregex_iterator(); ++it) {
    values.push_back((*it)[1]);
  }
  return values;
}

// The page of `model` (a path from the source tree) as the command line writes it.
struct Linted {
  std::unique_ptr<ir::Model> model;
  ModelResult result;
};

Linted LintWithPaths(const std::string& relative) {
  Linted l;
  const std::string path = absl::StrCat(SHAPELINT_SOURCE_DIR, "/", relative);
  auto model = ir::LoadModel(path);
  INFO(model.status());
  REQUIRE(model.ok());
  l.model = *std::move(model);
  l.result.path = relative;
  auto findings = lint::Lint(*l.model);
  REQUIRE(findings.ok());
  l.result.findings = *std::move(findings);
  auto paths = lint::PathsOf(*l.model, {}, l.result.findings);
  REQUIRE(paths.ok());
  l.result.paths = *std::move(paths);
  return l;
}

TEST_CASE("html: a page with a summary, one section per model and per finding", "[report][html]") {
  const std::string page = Page(SampleResults());
  CHECK(absl::StartsWith(page, "<!DOCTYPE html>\n<html lang=\"en\">"));
  CHECK(absl::EndsWith(page, "</html>\n"));
  CHECK(absl::StrContains(page, "<meta charset=\"utf-8\">"));
  // The summary line of the text report.
  CHECK(absl::StrContains(page,
                          "<p class=\"summary\" id=\"summary\">1 error, 1 warning, 1 note "
                          "in 3 models; 1 model could not be loaded</p>"));
  CHECK(Count(page, "<section class=\"model\"") == 4);
  CHECK(Count(page, "<article class=\"finding ") == 3);
  CHECK(absl::StrContains(page, "<article class=\"finding error\" id=\"model-1-finding-1\""));
  CHECK(absl::StrContains(page, "<article class=\"finding warning\" id=\"model-1-finding-2\""));
  CHECK(absl::StrContains(page, "<article class=\"finding note\" id=\"model-4-finding-1\""));
  // Four models: a table of contents with a link to each.
  CHECK(Count(page, "<a href=\"#model-") == 4);
  // The load error, the clean model, standard input as the text report names it.
  CHECK(absl::StrContains(page, "could not be loaded: no such file</p>"));
  CHECK(absl::StrContains(page, "<p class=\"clean\">No findings.</p>"));
  CHECK(absl::StrContains(page, "<h2>&lt;stdin&gt;</h2>"));
  // The rule: code, name and summary from the registry; no link.
  CHECK(absl::StrContains(page,
                          "<span class=\"code\">SL001</span> <span class=\"rule\">"
                          "baked-pool-kernel</span>"));
  CHECK(absl::StrContains(page, std::string(lint::AllRules()[0].summary)));
  // Every part of the evidence.
  CHECK(absl::StrContains(page, "works only for s2 in [6, 8] and s3 in [6, 7]"));
  CHECK(absl::StrContains(page, "<td class=\"mono\">s2</td><td>6</td><td>6</td><td>8</td>"));
  CHECK(absl::StrContains(page, "<td class=\"mono\">x</td><td class=\"mono\">[2, 3, 9, 8]</td>"));
  CHECK(absl::StrContains(page, "failing node: <code>main/&lt;AveragePool #0&gt;</code>"));
  CHECK(absl::StrContains(page,
                          "<td class=\"mono differs\">[2, 3, 3, 4]</td><td class=\"mono\">"
                          "[2, 3, 2, 3]</td>"));
  CHECK(absl::StrContains(page, "relation: <code>4*seq == 96</code>"));
  CHECK(absl::StrContains(page, "the literal comes from this initializer"));
  CHECK(absl::StrContains(page, "<dd class=\"fix\">export with dynamo=True"));
  CHECK(absl::StrContains(page, "requires: <code>floor(s2 / 3) == 2"));
  // Without paths, no drawing.
  CHECK_FALSE(absl::StrContains(page, "<svg"));
  CHECK(OutsideReferences(page).empty());
}

TEST_CASE("html: the source of a finding", "[report][html]") {
  std::vector<ModelResult> results(1);
  lint::Finding f = testing::PoolError();
  f.source = lint::SourceLocation{.file = "model.py",
                                  .line = 42,
                                  .function = "forward",
                                  .code = "return F.adaptive_avg_pool2d(x, (2, 3))",
                                  .module = "encoder.pool"};
  results[0].path = "m.onnx";
  results[0].findings = {f};
  const std::string page = Page(results);
  CHECK(absl::StrContains(page,
                          "<code>model.py:42</code> in <code>forward</code> (module "
                          "<code>encoder.pool</code>)<pre>return F.adaptive_avg_pool2d(x, "
                          "(2, 3))</pre>"));
}

TEST_CASE("html: the path of the bundled example", "[report][html]") {
  Linted l = LintWithPaths("tests/corpus/torch/adaptive_avg_pool2d.onnx");
  REQUIRE(l.result.findings.size() == 1);
  const std::string page = Page({l.result});
  CHECK(Count(page, "<svg class=\"path\"") == 1);
  // One node: the AveragePool, where the size entered, the finding's and the failing node.
  CHECK(Attributes(page, "node entered", "data-op") == std::vector<std::string>{"AveragePool"});
  CHECK(absl::StrContains(page,
                          "<g class=\"node entered finding fails\" data-index=\"0\" "
                          "data-op=\"AveragePool\" data-label=\"/AveragePool\">"));
  // Its input beside it, its output under it: at the export size 6x6, and at the
  // counterexample 9x6, the dim that differs marked.
  CHECK(Attributes(page, "card", "data-value") == std::vector<std::string>{"x"});
  CHECK(Attributes(page, "edge", "data-value") == std::vector<std::string>{"y"});
  CHECK(absl::StrContains(page, ">x from graph input</text>"));
  CHECK(absl::StrContains(page, ">export [2, 3, 6, 6]</text>"));
  CHECK(absl::StrContains(page, ">counterexample [2, 3, <tspan class=\"diff\">9</tspan>, 6]"));
  CHECK(absl::StrContains(page, ">y (graph output)</text>"));
  CHECK(absl::StrContains(page, ">export [2, 3, 2, 3]</text>"));
  CHECK(absl::StrContains(page, ">counterexample [2, 3, <tspan class=\"diff\">3</tspan>, 3]"));
  CHECK(absl::StrContains(page, ">output &#39;y&#39;, declared [2, 3, 2, 3]</text>"));
  // The table under it, with the symbolic types.
  CHECK(absl::StrContains(page,
                          "<td class=\"mono\">float[x_dynamic_axes_1, x_dynamic_axes_2, "
                          "floor(x_dynamic_axes_3 / 3), floor(x_dynamic_axes_4 / 2)]</td>"));
  CHECK(OutsideReferences(page).empty());
}

TEST_CASE("html: the path of a fixture, from the pool to the Gemm that fails", "[report][html]") {
  Linted l = LintWithPaths("tests/rules/SL001/vgg_tail.onnxtxt");
  REQUIRE(l.result.findings.size() == 1);
  const std::string page = Page({l.result});
  CHECK(Attributes(page, "node", "data-op") ==
        std::vector<std::string>{"AveragePool", "Flatten", "Gemm"});
  CHECK(Attributes(page, "node", "data-index") == std::vector<std::string>{"0", "1", "2"});
  CHECK(absl::StrContains(page, "<g class=\"node entered finding\" data-index=\"0\""));
  CHECK(absl::StrContains(page, "<g class=\"node fails\" data-index=\"2\" data-op=\"Gemm\""));
  // Into the pool from the last MaxPool; between the boxes, the pooled map and the flattened
  // features: 8x7x7 = 392 at the export size, 8x8x7 = 448 at H = 256.
  CHECK(Attributes(page, "edge", "data-value") == std::vector<std::string>{"avgpool", "f", "y"});
  CHECK(Attributes(page, "card", "data-value") == std::vector<std::string>{"p5", "fc_w", "fc_b"});
  CHECK(absl::StrContains(page, ">p5 from MaxPool &#39;&lt;MaxPool #6&gt;&#39;</text>"));
  CHECK(absl::StrContains(page, ">export [2, 392]</text>"));
  CHECK(absl::StrContains(page, ">counterexample [2, <tspan class=\"diff\">448</tspan>]"));
  CHECK(absl::StrContains(page, ">export [10, 392]</text>"));
  CHECK(absl::StrContains(page, ">counterexample [10, 392]</text>"));
  CHECK(absl::StrContains(page, "(3 nodes)"));
  // The Gemm cannot run at the counterexample: its output has no shape there.
  CHECK(absl::StrContains(page, ">counterexample: none, the node fails there</text>"));
  CHECK(absl::StrContains(page, "<td class=\"mono\">none, the node fails there</td>"));
  CHECK(OutsideReferences(page).empty());
}

TEST_CASE("html: names from the model are escaped", "[report][html]") {
  std::vector<ModelResult> results(2);
  lint::Finding f = testing::PoolError();
  const std::string hostile = "<script>alert(\"x&y\")</script>' \x1b[31m\xff\xc2\x85\xef\xb7\x90";
  f.message = absl::StrCat("message ", hostile);
  f.node.name = f.node.label = absl::StrCat("node ", hostile);
  f.notes = {{.message = absl::StrCat("note ", hostile), .node = f.node}};
  f.counterexample->failing_node = f.node;
  f.counterexample->outputs[0].value = absl::StrCat("out ", hostile);
  results[0].path = absl::StrCat("models/", hostile, ".onnx");
  results[0].findings = {f};
  // A path drawn with the same names.
  lint::FindingPath path;
  path.nodes = {f.node};
  path.nodes[0].op_type = absl::StrCat("Op", hostile);
  path.connected = true;
  lint::PathEdge e;
  e.from = 0;
  e.graph_output = true;
  e.tensor.name = absl::StrCat("tensor ", hostile);
  e.tensor.type = absl::StrCat("float[", hostile, "]");
  e.tensor.at_witness = lint::SizesAt{2, std::nullopt};
  path.edges = {e};
  path.witness = {{absl::StrCat("sym", hostile), 1}};
  results[0].paths = {path};
  results[1].path = "broken.onnx";
  results[1].error = absl::StrCat("error ", hostile);

  const std::string page = Page(results);
  CHECK_FALSE(absl::StrContains(page, "<script"));
  CHECK_FALSE(absl::StrContains(page, "alert(\"x"));
  CHECK(Count(page, "&lt;script&gt;alert(&quot;x&amp;y&quot;)&lt;/script&gt;&#39;") >= 8);
  // Control characters and noncharacters shown escaped, invalid UTF-8 replaced.
  CHECK_FALSE(absl::StrContains(page, "\x1b"));
  CHECK_FALSE(absl::StrContains(page, "\xc2\x85"));
  CHECK_FALSE(absl::StrContains(page, "\xef\xb7\x90"));
  CHECK(absl::StrContains(page, "\\x1b[31m\xef\xbf\xbd\\u0085\\ufdd0"));
  CHECK(absl::StrContains(page, "could not be loaded: error &lt;script&gt;"));
  // Nothing but what the page writes itself is markup: every '<' opens a known element.
  const std::regex tag("<(/?)([a-zA-Z0-9!]+)");
  for (auto it = std::sregex_iterator(page.begin(), page.end(), tag); it != std::sregex_iterator();
       ++it) {
    const std::string name = absl::AsciiStrToLower((*it)[2].str());
    CHECK(name != "script");
  }
  CHECK(OutsideReferences(page).empty());
}

TEST_CASE("html: the reference check finds what loads", "[report][html]") {
  // The check above would pass on anything if it found nothing: it does find these.
  CHECK(OutsideReferences("<a href=\"#model-1\">x</a>").empty());
  CHECK(OutsideReferences("<img src=\"a.png\">").size() >= 1);
  CHECK(OutsideReferences("<a href=\"other.html\">x</a>").size() == 1);
  CHECK(OutsideReferences("<style>a { background: url(x.png) }</style>").size() == 1);
  CHECK(OutsideReferences("<style>@import 'x.css';</style>").size() == 1);
  CHECK(OutsideReferences("<link rel=stylesheet href=x.css>").size() == 2);
  CHECK(OutsideReferences("<script src=x.js></script>").size() == 2);
}

TEST_CASE("html: paths that do not pair with the findings are not drawn", "[report][html]") {
  Linted l = LintWithPaths("tests/corpus/torch/adaptive_avg_pool2d.onnx");
  l.result.findings.push_back(l.result.findings[0]);
  const std::string page = Page({l.result});
  CHECK(Count(page, "<article class=\"finding ") == 2);
  CHECK_FALSE(absl::StrContains(page, "<svg"));
}

TEST_CASE("html: the command line writes the page", "[report][html]") {
  const fs::path model =
      fs::path(SHAPELINT_SOURCE_DIR) / "tests" / "corpus" / "torch" / "adaptive_avg_pool2d.onnx";
  files::Report r = files::RunOnModel({"--format", "html"}, model, "model.onnx");
  CHECK(r.code == 1);
  CHECK(r.err.empty());
  CHECK(absl::StartsWith(r.out, "<!DOCTYPE html>"));
  CHECK(Count(r.out, "<svg class=\"path\"") == 1);

  files::Report missing = files::RunOnModel({"--format", "html"}, "no-such.onnx", "x.onnx");
  CHECK(missing.code == 2);
  CHECK(absl::StrContains(missing.out, "could not be loaded: no such file"));
  CHECK(absl::StrContains(missing.out,
                          "<p class=\"summary\" id=\"summary\">1 model could not "
                          "be loaded</p>"));
}

TEST_CASE("html: a baseline removes paths with their findings", "[report][html]") {
  // Two findings, at Reshape #1 and Reshape #3; the baseline accepts the first.
  const fs::path model =
      fs::path(SHAPELINT_SOURCE_DIR) / "tests" / "rules" / "SL002" / "kron_decomposed.onnxtxt";
  files::TempDir dir;
  const std::string baseline = (dir.path() / "baseline.json").string();
  REQUIRE(files::RunOnModel({"--write-baseline", baseline}, model, "m").code == 0);
  std::string accepted = files::ReadFile(baseline);
  const size_t second = accepted.find("<Reshape #3>");
  REQUIRE(second != std::string::npos);
  accepted = absl::StrReplaceAll(accepted, {{"<Reshape #3>", "<Reshape #99>"}});
  dir.Write("baseline.json", accepted);
  files::Report r = files::RunOnModel({"--format", "html", "--baseline", baseline}, model, "m");
  CHECK(Count(r.out, "<article class=\"finding ") == 1);
  CHECK(absl::StrContains(r.out, "at <code>main/&lt;Reshape #3&gt;</code>"));
  CHECK(Attributes(r.out, "node", "data-label") == std::vector<std::string>{"&lt;Reshape #3&gt;"});
}

TEST_CASE("html: a suppression removes paths with their findings", "[report][html]") {
  const fs::path fixture =
      fs::path(SHAPELINT_SOURCE_DIR) / "tests" / "rules" / "SL002" / "kron_decomposed.onnxtxt";
  files::TempDir dir;
  const std::string model = dir.Write("m.onnxtxt", files::ReadFile(fixture));
  const std::string config = dir.Write(
      ".onnx-shapelint.json", R"({"suppress": [{"rule": "SL002", "node": "<Reshape #1>"}]})");
  cli::Outcome o = cli::RunCli({"--config", config, "--format", "html", model});
  INFO(o.err);
  CHECK(Count(o.out, "<article class=\"finding ") == 1);
  CHECK(absl::StrContains(o.out, "at <code>main/&lt;Reshape #3&gt;</code>"));
  CHECK(Attributes(o.out, "node", "data-label") == std::vector<std::string>{"&lt;Reshape #3&gt;"});
}

TEST_CASE("html: the witness is called the export size only where it is one", "[report][html]") {
  const fs::path model =
      fs::path(SHAPELINT_SOURCE_DIR) / "tests" / "corpus" / "torch" / "adaptive_avg_pool2d.onnx";
  // Alone, the linter chose the sizes where every requirement holds: not "the export size".
  files::Report alone = files::RunOnModel({"--format", "html"}, model, "adaptive_avg_pool2d.onnx");
  CHECK_THAT(alone.out, Catch::Contains("Shapes where every requirement holds ("));
  CHECK_THAT(alone.out, !Catch::Contains("at the export size"));
  // Told the export sizes, the witness is them.
  files::Report told = files::RunOnModel({"--format", "html", "--export-dims", "x=1x2x6x6"}, model,
                                         "adaptive_avg_pool2d.onnx");
  CHECK_THAT(told.out, Catch::Contains("Shapes at the export size (x_dynamic_axes_1=1"));
  CHECK_THAT(told.out, Catch::Contains("<th>at the export size</th>"));
}

// The selectors of every rule of the page's style sheets (comments removed).
std::vector<std::string> Selectors(const std::string& page) {
  std::vector<std::string> selectors;
  for (size_t at = page.find("<style>"); at != std::string::npos;
       at = page.find("<style>", at + 1)) {
    const size_t end = page.find("</style>", at);
    REQUIRE(end != std::string::npos);
    std::string sheet = page.substr(at + 7, end - at - 7);
    sheet = std::regex_replace(sheet, std::regex(R"re(/\*[^*]*\*+([^/*][^*]*\*+)*/)re"), "");
    // Every rule is "selectors { declarations }", without nesting.
    const std::regex rule(R"re(([^{}]*)\{[^{}]*\})re");
    for (auto it = std::sregex_iterator(sheet.begin(), sheet.end(), rule);
         it != std::sregex_iterator(); ++it) {
      const std::vector<std::string> parts = absl::StrSplit((*it)[1].str(), ',');
      for (const std::string& s : parts) selectors.emplace_back(absl::StripAsciiWhitespace(s));
    }
  }
  return selectors;
}

TEST_CASE("html: every style rule applies only inside the report's element", "[report][html]") {
  // A notebook shows the report among its own cells (Report._repr_html_), and a rule for `h1`,
  // `body` or `*` would restyle them.
  const std::string page = Page(SampleResults());
  std::ostringstream out;
  WriteHtmlFragment(SampleResults(), out);
  const std::string fragment = out.str();
  for (const std::string& html : {page, fragment}) {
    const std::vector<std::string> selectors = Selectors(html);
    CHECK(selectors.size() > 40);
    for (const std::string& selector : selectors) {
      INFO(selector);
      CHECK(std::regex_match(selector, std::regex(R"re(\.onnx-shapelint($|[ >].*))re")));
    }
  }
  CHECK(Count(page, "<div class=\"onnx-shapelint\">") == 1);
  CHECK(absl::StrContains(page, "<body>\n<div class=\"onnx-shapelint\">"));
  // The fragment is that element alone: no document around it.
  CHECK(absl::StartsWith(fragment, "<div class=\"onnx-shapelint\">\n<style>"));
  CHECK(absl::EndsWith(fragment, "</footer>\n</div>\n"));
  for (const char* tag :
       {"<!DOCTYPE", "<html", "<head>", "<body", "<meta", "<title>onnx-shapelint"}) {
    CHECK_FALSE(absl::StrContains(fragment, tag));
  }
  CHECK(absl::StrContains(page, fragment));
}

TEST_CASE("html: matches the golden page of the bundled example", "[report][html][goldens]") {
  const fs::path model =
      fs::path(SHAPELINT_SOURCE_DIR) / "tests" / "corpus" / "torch" / "adaptive_avg_pool2d.onnx";
  files::Report r = files::RunOnModel({"--format", "html"}, model, "adaptive_avg_pool2d.onnx");
  // The version changes with every release (RunOnModel writes it as "<version>", which is no
  // text for a page): the golden pins everything else, and stays a valid page.
  const std::string actual =
      absl::StrReplaceAll(r.out, {{"onnx-shapelint <version>", "onnx-shapelint VERSION"}});
  const fs::path golden =
      fs::path(SHAPELINT_SOURCE_DIR) / "tests" / "report" / "golden" / "adaptive_avg_pool2d.html";
  const char* update = std::getenv("SHAPELINT_UPDATE_GOLDENS");
  if (update != nullptr && std::string(update) != "" && std::string(update) != "0") {
    std::ofstream(golden, std::ios::binary) << actual;
    SUCCEED("wrote " << golden.string());
    return;
  }
  INFO("golden file: " << golden.string() << "\nSHAPELINT_UPDATE_GOLDENS=1 writes it; diff:\n"
                       << files::LineDiff(files::ReadFile(golden), actual));
  CHECK(actual == files::ReadFile(golden));
}

}  // namespace
}  // namespace shapelint::report
