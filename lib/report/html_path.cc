// The drawing of a finding's path (report/html.h): a box per node, top to bottom, an arrow per
// tensor between them labelled with its shape at the export size and at the counterexample,
// and the inputs from off the path as cards beside the first and the last node. Plain SVG
// shapes only: arrowheads are polygons rather than markers, whose url(#id) references would
// clash between the drawings of one page.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "report/finding_text.h"
#include "report/html.h"

namespace shapelint::report {
namespace {

using lint::FindingPath;
using lint::PathEdge;
using lint::PathTensor;
using lint::SizesAt;

// Geometry, in pixels; the page scales the drawing down to narrower windows.
constexpr int kWidth = 960;
constexpr int kMargin = 16;
constexpr int kBoxX = 24;
constexpr int kBoxWidth = 300;
constexpr int kBoxHeight = 46;
constexpr int kAxisX = kBoxX + kBoxWidth / 2;  // where the arrows between the boxes run
constexpr int kLabelX = kAxisX + 18;
constexpr int kEdgeHeight = 76;  // between two boxes: three lines of label
constexpr int kLine = 16;
constexpr int kCardX = 380;
constexpr int kCardWidth = kWidth - kCardX - kMargin;
constexpr int kCardHeight = 58;
constexpr int kCardGap = 8;
constexpr int kConnectorX = kCardX - 28;  // where the cards' connectors meet
constexpr int kPillWidth = kBoxWidth;
constexpr int kPillHeight = 30;
// What fits of a line at 12px monospace, right of the arrows, in a card and in a box.
constexpr size_t kLabelChars = 96;
constexpr size_t kCardChars = 76;
constexpr size_t kBoxChars = 38;
constexpr size_t kPillChars = 40;
// A longer path is drawn with its middle left out; the table under it lists every tensor.
constexpr size_t kMaxDrawnNodes = 12;
constexpr size_t kDrawnAtEachEnd = 5;
// What a tensor is at the counterexample when the node that computes it cannot run there.
constexpr char kNotRun[] = "none, the node fails there";

// `s` cut to `max` characters (bytes: names are mostly ASCII, and a cut is marked anyway), not
// inside a UTF-8 sequence.
std::string Cut(const std::string& s, size_t max) {
  if (s.size() <= max) return s;
  size_t end = max - 1;
  while (end > 0 && (static_cast<unsigned char>(s[end]) & 0xc0) == 0x80) --end;
  return s.substr(0, end) + "\u2026";
}

std::string ValuesSuffix(const std::optional<SizesAt>& values) {
  if (!values) return "";
  std::string inside = SizesText(values);
  return absl::StrCat(" = {", inside.substr(1, inside.size() - 2), "}");
}

// One line of the shapes at the counterexample, the dims (and values) that differ from the
// export size's in a tspan of their own. Falls back to plain text when the line is too long.
std::string MarkedLine(std::string_view prefix, const std::optional<SizesAt>& at,
                       const std::optional<SizesAt>& base, const std::optional<SizesAt>& values,
                       const std::optional<SizesAt>& base_values, size_t max) {
  const std::string plain = absl::StrCat(std::string(prefix), SizesText(at), ValuesSuffix(values));
  if (plain.size() > max) return Html(Cut(plain, max));
  auto marked = [](const std::optional<SizesAt>& v, const std::optional<SizesAt>& b,
                   std::string_view open, std::string_view close) {
    if (!v) return std::string("?");
    std::vector<std::string> items;
    for (size_t i = 0; i < v->size(); ++i) {
      std::string item = (*v)[i] ? absl::StrCat(*(*v)[i]) : "?";
      const bool differs = !b || b->size() != v->size() || (*b)[i] != (*v)[i];
      items.push_back(differs ? absl::StrCat("<tspan class=\"diff\">", item, "</tspan>") : item);
    }
    return absl::StrCat(std::string(open), absl::StrJoin(items, ", "), std::string(close));
  };
  std::string line = absl::StrCat(Html(prefix), marked(at, base, "[", "]"));
  if (values) absl::StrAppend(&line, " = ", marked(values, base_values, "{", "}"));
  return line;
}

// The label lines of a tensor: its name, its shape at the export size, and at the
// counterexample when the finding has one.
std::vector<std::string> TensorLines(const std::string& head, const PathTensor& t,
                                     bool counterexample, size_t max) {
  // Sized up front: GCC 12 warns falsely (-Warray-bounds) on a vector of strings grown from one.
  std::vector<std::string> lines(counterexample ? 3 : 2);
  lines[0] = Html(Cut(head, max));
  lines[1] = Html(Cut(
      absl::StrCat("export ", SizesText(t.at_witness), ValuesSuffix(t.values_at_witness)), max));
  if (counterexample) {
    lines[2] = MarkedLine("counterexample ", t.at_counterexample, t.at_witness,
                          t.values_at_counterexample, t.values_at_witness, max);
  }
  return lines;
}

std::string Quoted(std::string_view s) { return absl::StrCat("'", std::string(s), "'"); }

// Where a tensor from off the path comes from, in words.
std::string SourceText(const PathEdge& e) {
  switch (e.source) {
    case PathEdge::Source::kGraphInput:
      return "graph input";
    case PathEdge::Source::kInitializer:
      return "initializer";
    case PathEdge::Source::kNode:
      return e.producer ? absl::StrCat(e.producer->op_type, " ", Quoted(NodeLabel(*e.producer)))
                        : "a node";
    case PathEdge::Source::kPath:
      break;
  }
  return "";
}

// The full text of a tensor, for a tooltip (<title>) where the drawing cuts it.
std::string TensorTitle(const PathTensor& t) {
  std::string s = absl::StrCat(t.name, ": ", t.type, "\nexport ", SizesText(t.at_witness),
                               ValuesSuffix(t.values_at_witness));
  if (t.at_counterexample || t.values_at_counterexample) {
    absl::StrAppend(&s, "\ncounterexample ", SizesText(t.at_counterexample),
                    ValuesSuffix(t.values_at_counterexample));
  }
  return s;
}

class Drawing {
 public:
  explicit Drawing(bool counterexample) : counterexample_(counterexample) {}

  int y() const { return y_; }
  void Advance(int dy) { y_ += dy; }

  void ArrowDown(int x, int y1, int y2, bool dashed = false) {
    absl::StrAppend(&svg_, "<line class=\"", dashed ? "arrow gap" : "arrow", "\" x1=\"", x,
                    "\" y1=\"", y1, "\" x2=\"", x, "\" y2=\"", y2 - 7, "\"/>\n");
    if (!dashed) {
      absl::StrAppend(&svg_, "<polygon class=\"head\" points=\"", x - 5, ",", y2 - 9, " ", x + 5,
                      ",", y2 - 9, " ", x, ",", y2, "\"/>\n");
    }
  }

  void Lines(int x, int y, const std::vector<std::string>& lines, std::string_view first_class) {
    for (size_t i = 0; i < lines.size(); ++i) {
      std::string_view cls = i == 0 ? first_class : (i == 1 ? "export" : "cx");
      absl::StrAppend(&svg_, "<text class=\"", std::string(cls), "\" x=\"", x, "\" y=\"",
                      y + static_cast<int>(i) * kLine, "\">", lines[i], "</text>\n");
    }
  }

  // The tensor from the box above to the one below (or out of the last one).
  // `not_run`: the node above cannot run at the counterexample, so its output has no shape
  // there (what the engine computes for it would be read as one).
  void Edge(const PathEdge* e, bool not_run = false) {
    const int top = y_;
    if (e == nullptr) {
      ArrowDown(kAxisX, top, top + kEdgeHeight);
    } else {
      absl::StrAppend(&svg_, "<g class=\"edge\" data-value=\"", Html(e->tensor.name), "\"><title>",
                      Html(TensorTitle(e->tensor)), "</title>\n");
      ArrowDown(kAxisX, top, top + kEdgeHeight);
      std::string head = e->tensor.name;
      if (e->graph_output) absl::StrAppend(&head, " (graph output)");
      std::vector<std::string> lines = TensorLines(head, e->tensor, counterexample_, kLabelChars);
      if (not_run && lines.size() == 3) lines[2] = absl::StrCat("counterexample: ", kNotRun);
      Lines(kLabelX, top + 22, lines, "name");
      absl::StrAppend(&svg_, "</g>\n");
    }
    y_ += kEdgeHeight;
  }

  // Nodes left out of a long path.
  void Gap(size_t left_out) {
    ArrowDown(kAxisX, y_, y_ + kEdgeHeight / 2, /*dashed=*/true);
    absl::StrAppend(&svg_, "<text class=\"gap\" x=\"", kLabelX, "\" y=\"", y_ + kEdgeHeight / 4 + 4,
                    "\">", left_out, " more nodes: see the table below</text>\n");
    y_ += kEdgeHeight / 2;
  }

  // A node's box, with the cards of the tensors it reads from off the path beside it.
  // `literal`, the finding's attribute on its node, is drawn after the op in bold: the number
  // the example baked in.
  void Node(const lint::NodeRef& node, size_t index, std::string_view roles,
            const std::vector<const PathEdge*>& cards, const std::string& literal) {
    const int n = static_cast<int>(cards.size());
    const int cards_height = n > 0 ? n * (kCardHeight + kCardGap) - kCardGap : 0;
    const int row = std::max(kBoxHeight, cards_height);
    const int box_y = y_ + (row - kBoxHeight) / 2;
    const int box_mid = box_y + kBoxHeight / 2;
    for (int i = 0; i < n; ++i) {
      const PathEdge& e = *cards[i];
      const int card_y = y_ + (row - cards_height) / 2 + i * (kCardHeight + kCardGap);
      const int mid = card_y + kCardHeight / 2;
      absl::StrAppend(&svg_, "<g class=\"card\" data-value=\"", Html(e.tensor.name), "\"><title>",
                      Html(TensorTitle(e.tensor)), "</title>\n");
      absl::StrAppend(&svg_, "<rect x=\"", kCardX, "\" y=\"", card_y, "\" width=\"", kCardWidth,
                      "\" height=\"", kCardHeight, "\" rx=\"6\"/>\n");
      std::string head = absl::StrCat(e.tensor.name, " from ", SourceText(e));
      Lines(kCardX + 10, card_y + 17, TensorLines(head, e.tensor, counterexample_, kCardChars),
            "name");
      absl::StrAppend(&svg_, "<polyline class=\"arrow\" points=\"", kCardX, ",", mid, " ",
                      kConnectorX, ",", mid, " ", kConnectorX, ",", box_mid, " ",
                      kBoxX + kBoxWidth + 8, ",", box_mid, "\"/>\n");
      absl::StrAppend(&svg_, "</g>\n");
    }
    if (n > 0) {
      const int tip = kBoxX + kBoxWidth;
      absl::StrAppend(&svg_, "<polygon class=\"head\" points=\"", tip + 9, ",", box_mid - 5, " ",
                      tip + 9, ",", box_mid + 5, " ", tip, ",", box_mid, "\"/>\n");
    }
    absl::StrAppend(
        &svg_, "<g class=\"node ", std::string(roles), "\" data-index=\"", index, "\" data-op=\"",
        Html(node.op_type), "\" data-label=\"", Html(NodeLabel(node)), "\"><title>",
        Html(absl::StrCat(NodePath(node, kAsIs), " (", node.op_type, " #", node.index, ")")),
        "</title>\n");
    absl::StrAppend(&svg_, "<rect x=\"", kBoxX, "\" y=\"", box_y, "\" width=\"", kBoxWidth,
                    "\" height=\"", kBoxHeight, "\" rx=\"8\"/>\n");
    const std::string op = Cut(node.op_type, kBoxChars);
    absl::StrAppend(&svg_, "<text class=\"op\" x=\"", kBoxX + 12, "\" y=\"", box_y + 19, "\">",
                    Html(op));
    if (!literal.empty() && op.size() + 1 < kBoxChars) {
      absl::StrAppend(&svg_, " <tspan class=\"literal\" font-weight=\"bold\">",
                      Html(Cut(literal, kBoxChars - op.size() - 1)), "</tspan>");
    }
    absl::StrAppend(&svg_, "</text>\n");
    absl::StrAppend(&svg_, "<text class=\"label\" x=\"", kBoxX + 12, "\" y=\"", box_y + 36, "\">",
                    Html(Cut(NodeLabel(node), kBoxChars)), "</text></g>\n");
    y_ += row;
  }

  // Where the last tensor goes: a graph output, or on into the rest of the graph.
  void End(const PathEdge& e, const lint::Finding& finding) {
    std::string text = e.graph_output ? absl::StrCat("output ", Quoted(e.tensor.name))
                                      : absl::StrCat(Quoted(e.tensor.name), " goes on");
    if (e.graph_output && finding.counterexample) {
      for (const lint::ShapeAt& o : finding.counterexample->outputs) {
        if (o.value == e.tensor.name && o.expected) {
          absl::StrAppend(&text, ", declared ", DimsText(*o.expected));
        }
      }
    }
    absl::StrAppend(&svg_, "<rect class=\"end\" x=\"", kAxisX - kPillWidth / 2, "\" y=\"", y_,
                    "\" width=\"", kPillWidth, "\" height=\"", kPillHeight, "\" rx=\"15\"/>\n");
    absl::StrAppend(&svg_, "<text class=\"end\" x=\"", kAxisX, "\" y=\"", y_ + 19, "\">",
                    Html(Cut(text, kPillChars)), "</text>\n");
    y_ += kPillHeight;
  }

  void Legend() {
    y_ += 24;
    int x = kBoxX;
    for (auto [cls, text] : {std::pair{"entered", "where the size entered"},
                             std::pair{"finding", "the finding's node"},
                             std::pair{"fails", "fails at the counterexample"}}) {
      absl::StrAppend(&svg_, "<g class=\"node ", cls, "\"><rect x=\"", x, "\" y=\"", y_ - 11,
                      "\" width=\"14\" height=\"14\" rx=\"3\"/></g><text class=\"legend\" x=\"",
                      x + 20, "\" y=\"", y_, "\">", text, "</text>\n");
      x += 250;
    }
    y_ += kMargin;
  }

  std::string Svg(std::string_view label) const {
    return absl::StrCat("<svg class=\"path\" role=\"img\" aria-label=\"", Html(label),
                        "\" width=\"", kWidth, "\" height=\"", y_, "\" viewBox=\"0 0 ", kWidth, " ",
                        y_, "\">", "\n", svg_, "</svg>\n");
  }

 private:
  bool counterexample_;
  int y_ = kMargin;
  std::string svg_;
};

std::string Roles(const lint::Finding& f, const FindingPath& path, size_t i) {
  std::vector<std::string> roles;
  const lint::NodeRef& n = path.nodes[i];
  if (i == 0) roles.push_back("entered");
  if (n.graph == f.node.graph && n.index == f.node.index) roles.push_back("finding");
  if (path.connected && i + 1 == path.nodes.size() &&
      (path.ends_in_failure || !f.counterexample || !f.counterexample->node_fails)) {
    roles.push_back("fails");
  }
  return absl::StrJoin(roles, " ");
}

std::string BindingText(const std::vector<std::pair<std::string, int64_t>>& binding) {
  return absl::StrJoin(binding, ", ", [](std::string* out, const auto& kv) {
    absl::StrAppend(out, kv.first, "=", kv.second);
  });
}

// What the witness of `path` is: the export size only where the analysis knew it.
std::string WitnessWords(const FindingPath& path) {
  return path.witness_is_export ? "at the export size" : "where every requirement holds";
}

std::string Cell(std::string_view text, std::string_view cls = "") {
  if (cls.empty()) return absl::StrCat("<td>", Html(text), "</td>");
  return absl::StrCat("<td class=\"", std::string(cls), "\">", Html(text), "</td>");
}

// Every tensor of the path, uncut, with its symbolic type. `not_run`: the last node cannot run
// at the counterexample (Drawing::Edge).
std::string TensorTable(const FindingPath& path, bool not_run) {
  std::string out = absl::StrCat(
      "<table class=\"tensors\"><thead><tr><th>from</th><th>tensor</th><th>to</th>"
      "<th>type</th><th>",
      WitnessWords(path), "</th><th>at the counterexample</th></tr></thead><tbody>\n");
  for (const PathEdge& e : path.edges) {
    const std::string from = e.from >= 0 ? NodeLabel(path.nodes[e.from]) : SourceText(e);
    std::string to = e.to >= 0 ? NodeLabel(path.nodes[e.to]) : "";
    if (e.to < 0) to = e.graph_output ? "graph output" : "the rest of the graph";
    const PathTensor& t = e.tensor;
    const std::string at_counterexample =
        path.counterexample.empty()
            ? std::string("-")
            : (not_run && e.to < 0 ? std::string(kNotRun)
                                   : absl::StrCat(SizesText(t.at_counterexample),
                                                  ValuesSuffix(t.values_at_counterexample)));
    absl::StrAppend(&out, "<tr>", Cell(from), Cell(t.name, "mono"), Cell(to), Cell(t.type, "mono"),
                    Cell(SizesText(t.at_witness) + ValuesSuffix(t.values_at_witness), "mono"),
                    Cell(at_counterexample, "mono"), "</tr>\n");
  }
  absl::StrAppend(&out, "</tbody></table></details>\n");
  return out;
}

}  // namespace

std::string SizesText(const std::optional<SizesAt>& sizes) {
  if (!sizes) return "?";
  return absl::StrCat("[",
                      absl::StrJoin(*sizes, ", ",
                                    [](std::string* out, const std::optional<int64_t>& d) {
                                      absl::StrAppend(out, d ? absl::StrCat(*d) : "?");
                                    }),
                      "]");
}

std::string PathFigure(const lint::Finding& finding, const FindingPath& path) {
  if (path.nodes.empty()) return "";
  const bool cx = !path.counterexample.empty();
  Drawing d(cx);
  const size_t n = path.nodes.size();
  auto edge = [&](int from, int to) -> const PathEdge* {
    for (const PathEdge& e : path.edges) {
      if (e.from == from && e.to == to) return &e;
    }
    return nullptr;
  };
  const bool cut = n > kMaxDrawnNodes;
  for (size_t i = 0; i < n; ++i) {
    if (cut && i >= kDrawnAtEachEnd && i < n - kDrawnAtEachEnd) continue;
    if (i > 0) {
      if (cut && i == n - kDrawnAtEachEnd) d.Gap(n - 2 * kDrawnAtEachEnd);
      d.Edge(edge(static_cast<int>(i) - 1, static_cast<int>(i)));
    }
    std::vector<const PathEdge*> cards;
    for (const PathEdge& e : path.edges) {
      if (e.from < 0 && e.to == static_cast<int>(i)) cards.push_back(&e);
    }
    const bool own =
        path.nodes[i].graph == finding.node.graph && path.nodes[i].index == finding.node.index;
    d.Node(path.nodes[i], i, Roles(finding, path, i), cards, own ? path.literal : "");
  }
  const bool not_run = path.connected && path.ends_in_failure;
  if (const PathEdge* out = edge(static_cast<int>(n) - 1, -1)) {
    d.Edge(out, not_run);
    d.End(*out, finding);
  }
  d.Legend();

  const lint::NodeRef& first = path.nodes.front();
  const lint::NodeRef& last = path.nodes.back();
  const std::string route =
      n == 1 ? absl::StrCat(first.op_type, " ", Quoted(NodeLabel(first)))
             : absl::StrCat("from ", first.op_type, " ", Quoted(NodeLabel(first)), " to ",
                            last.op_type, " ", Quoted(NodeLabel(last)), " (", n, " nodes)");
  std::string caption = absl::StrCat("The path ", route, ". Shapes ", WitnessWords(path), " (",
                                     BindingText(path.witness), ")");
  if (cx) {
    absl::StrAppend(&caption, " and at the counterexample (", BindingText(path.counterexample),
                    "), where the dims that differ are marked");
  }
  absl::StrAppend(&caption, ".");
  if (!path.connected && finding.counterexample) {
    absl::StrAppend(&caption, " The failing node ",
                    Quoted(NodeLabel(finding.counterexample->failing_node)),
                    " is not downstream of the finding's node: the drawing ends there.");
  }
  return absl::StrCat("<figure class=\"path\">", d.Svg(absl::StrCat("path ", route)),
                      "<figcaption>", Html(caption), "</figcaption></figure>\n",
                      "<details class=\"tensors\"><summary>The tensors of the path</summary>\n",
                      TensorTable(path, not_run));
}

}  // namespace shapelint::report
