// SL008 example-size-scale: a sum or a product over dynamic dims scaled by a float literal that
// equals those dims' size at export — x.sum(-1) / int(x.size(-1)), a mean multiplied back by
// int(H) * int(W), attention scores divided by math.sqrt(int(x.size(-1))). The shapes stay
// right at every size; the values are wrong everywhere but at the export size.
//
// Needs the export sizes (--export-dims). Always a warning: no shape breaks, so there is no
// counterexample to show, only the number and the size it equals. Only where that size changes
// at a size near the export size where the graph runs: elsewhere the scale is right wherever
// the model works.
#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <string_view>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "lint/fix_builder.h"
#include "lint/provenance.h"
#include "lint/rule.h"
#include "shapelint/infer/constants.h"

namespace shapelint::lint {
namespace {

// Ops between the reduction and the scale that keep what is being scaled.
bool PassesScale(const std::string& op) {
  return op == "Mul" || op == "Div" || op == "Cast" || op == "Identity" || op == "Neg" ||
         op == "Transpose" || op == "Reshape" || op == "Unsqueeze" || op == "Squeeze";
}

// Nodes followed back from the scale to the reduction.
constexpr int kMaxHops = 4;

// A one-element float literal: the scale.
std::optional<double> ScalarLiteral(const ir::Graph& g, std::string_view value) {
  auto values = infer::ConstantFloats(g, value);
  if (!values || values->size() != 1) return std::nullopt;
  return (*values)[0];
}

// A dim a reduction or contraction summed over.
struct Reduced {
  int node = -1;
  std::vector<sym::Expr> dims;  // the dynamic dims it summed over
};

// The reduction (ReduceSum/ReduceMean over given axes, or MatMul's contraction) that `value`
// comes from, through ops that only rescale or relayout it.
std::optional<Reduced> ReductionOf(const Analysis& analysis, const ir::Graph& g,
                                   std::string_view value) {
  std::string_view v = value;
  for (int hop = 0; hop < kMaxHops; ++hop) {
    const int p = g.Producer(v);
    if (p < 0) return std::nullopt;
    const auto& n = g.node(p);
    const std::string& op = n.op_type();
    if (!n.domain().empty() && n.domain() != "ai.onnx") return std::nullopt;
    const infer::TensorFact* in =
        n.input_size() > 0 ? analysis.inference().Find(n.input(0)) : nullptr;
    if (op == "MatMul") {
      if (in == nullptr || !in->shape || in->shape->empty() || !in->shape->back() ||
          in->shape->back()->IsConstant()) {
        return std::nullopt;
      }
      return Reduced{p, {*in->shape->back()}};
    }
    if (op == "ReduceSum" || op == "ReduceMean") {
      if (in == nullptr || !in->shape) return std::nullopt;
      std::vector<int64_t> axes = n.IntsAttribute("axes").value_or({});
      if (axes.empty() && n.input_size() > 1) {
        const infer::TensorFact* f = analysis.inference().Find(n.input(1));
        if (f == nullptr || !f->values) return std::nullopt;
        for (const auto& e : *f->values) {
          auto c = e.value ? e.value->AsConstant() : std::nullopt;
          if (!c) return std::nullopt;
          axes.push_back(*c);
        }
      }
      Reduced r{p, {}};
      for (int64_t a : axes) {
        if (a < 0) a += in->rank();
        if (a < 0 || a >= in->rank()) return std::nullopt;
        const auto& d = (*in->shape)[a];
        if (d && !d->IsConstant()) r.dims.push_back(*d);
      }
      if (r.dims.empty()) return std::nullopt;
      return r;
    }
    if (!PassesScale(op) || n.input_size() == 0) return std::nullopt;
    // Through a Mul or Div, follow the operand that is not itself a literal.
    v = n.input(0);
    if ((op == "Mul" || op == "Div") && n.input_size() == 2 && ScalarLiteral(g, v)) v = n.input(1);
  }
  return std::nullopt;
}

// A float literal written from an int matches the size to within float32 rounding (sqrt(64) is
// exact; sqrt(80) = 8.944272 has seven significant digits): a relative tolerance well above
// float32's epsilon (1.2e-7) and well below the gap between neighbouring sizes' roots.
constexpr double kRelativeTolerance = 1e-5;
// The literal is a size when it is at least 2: 1 is the identity, and a factor between 1 and 2
// is no size.
constexpr double kMinSize = 2 - 1e-9;

bool Near(double a, double b) { return std::fabs(a - b) <= kRelativeTolerance * std::fabs(b); }

// What the number is: the size (a dim, or the product of the dims summed over) or its root.
struct Matched {
  std::string text;
  std::vector<std::string> symbols;
  sym::Expr size;
  bool root = false;
};

// The repair: the literal computed from the input's shape as the number it is (Cast of the
// size, its Sqrt, then its reciprocal or negation as the literal has them), in the literal's
// type and rank. Unsafe, as the finding is a warning: the number may be the module's own.
absl::StatusOr<FixIt> ScaleRepair(const Analysis& analysis, int node, int side, double scale,
                                  const Matched& m) {
  const ir::Node n = analysis.model().graph().node(node);
  const infer::TensorFact* literal = analysis.inference().Find(n.input(side));
  if (literal == nullptr || literal->elem_type == 0) {
    return absl::FailedPreconditionError("the literal's type is not known");
  }
  FixBuilder b(analysis, node, Applicability::kUnsafe, "");
  std::optional<std::string> size = b.Compute(m.size);
  if (!size) {
    return absl::FailedPreconditionError(absl::StrCat(
        m.size.ToString(kMaxExprText), " is not computed from the inputs' dims alone"));
  }
  std::string v = b.Add("Cast", {*size}, {{{"to", literal->elem_type}}, {}}, "scale");
  if (m.root) v = b.Add("Sqrt", {v}, {}, "scale");
  if (std::fabs(scale) < 1) v = b.Add("Reciprocal", {v}, {}, "scale");
  if (scale < 0) v = b.Add("Neg", {v}, {}, "scale");
  if (literal->rank() == 0) v = b.Add("Reshape", {v, b.Ints({})}, {}, "scale");
  b.Rewire(node, side, v);
  b.DropComputationIfUnread(n.input(side));
  FixIt fix = std::move(b).Take();
  fix.unsafe_as_hypothesis = true;  // a warning: the number may be the module's own
  const std::string number = m.root ? absl::StrCat("sqrt(", m.size.ToString(kMaxExprText), ")")
                                    : m.size.ToString(kMaxExprText);
  fix.description = absl::StrCat("the literal ", scale, " becomes ", scale < 0 ? "-" : "",
                                 std::fabs(scale) < 1 ? absl::StrCat("1 / ", number) : number,
                                 ", computed from the input's shape");
  return fix;
}

// True when `size`, `at_export` at the export size, takes another value near it at sizes where
// the graph runs: each of its symbols moved alone from the export size by 1, by a few steps,
// doubled and halved. A size that stays where the graph runs (a head size the engine knows
// only as the -1 of a Reshape over dims a position table pins, 32 wherever EfficientFormerV2
// runs) makes the scale right wherever the model works: the module's constant, no finding.
bool VariesWhereTheGraphRuns(const Analysis& analysis, const sym::Expr& size, int64_t at_export) {
  const sym::Binding base = analysis.ExampleOverWitness();
  for (const std::string& s : size.Symbols()) {
    const std::optional<int64_t> v = base.Get(s);
    if (!v || *v < 1 || *v > (int64_t{1} << 40)) continue;
    for (const int64_t moved : {*v + 1, *v - 1, *v * 2, *v / 2, *v + 8, *v - 8, *v + 32, *v - 32}) {
      if (moved < 1 || moved == *v) continue;
      sym::Binding at = base;
      at.Set(s, moved);
      const std::optional<int64_t> there = size.Evaluate(at);
      if (!there || *there == at_export) continue;
      if (!analysis.Evaluate(at).node_fails) return true;
    }
  }
  return false;
}

// True when `code` multiplies or divides by the whole number `n` written as it is (`/ 8`,
// `* 8`, `.div(8)`, `.mul(8)`): a number elsewhere on the line (`transpose(1, 2)`) is not the
// scale's, and a power (`** 2`) is none.
bool ScalesByWritten(std::string_view code, int64_t n) {
  const std::string digits = absl::StrCat(n);
  for (const std::string_view op : {"/", "*", "div(", "mul("}) {
    for (size_t at = code.find(op); at != std::string_view::npos; at = code.find(op, at + 1)) {
      if (op == "*" &&
          ((at > 0 && code[at - 1] == '*') || (at + 1 < code.size() && code[at + 1] == '*'))) {
        continue;
      }
      if (op == "/" &&
          ((at > 0 && code[at - 1] == '/') || (at + 1 < code.size() && code[at + 1] == '/'))) {
        continue;  // floor division: an int of the trace's
      }
      size_t from = at + op.size();
      while (from < code.size() && code[from] == ' ') ++from;
      if (code.substr(from, digits.size()) != digits) continue;
      const size_t end = from + digits.size();
      if (end == code.size() ||
          !(absl::ascii_isalnum(code[end]) || code[end] == '_' || code[end] == '.')) {
        return true;
      }
    }
  }
  return false;
}

// True when the recorded line of `node` (torch.export's stack trace) writes the scale: its
// magnitude as a decimal (0.125), or, where it is a whole number, as what the line multiplies
// or divides by (`/ 8`, `* 8`).
bool WrittenOnLine(const ir::Node& node, double scale, double number) {
  const std::optional<SourceLocation> line = SourceOf(node);
  if (!line) return false;
  if (WritesDecimal(line->code, scale)) return true;
  const double whole = std::round(number);
  return std::fabs(number - whole) <= 1e-9 * number && whole < 1e15 &&
         ScalesByWritten(line->code, static_cast<int64_t>(whole));
}

class ExampleSizeScale : public Rule {
 public:
  using Rule::Rule;

  void Check(const Analysis& analysis, std::vector<Finding>& out) const override {
    if (!analysis.has_example()) return;
    const ir::Graph& g = analysis.model().graph();
    for (int index : g.topological_order()) {
      const auto& n = g.node(index);
      if ((n.op_type() != "Mul" && n.op_type() != "Div") || n.input_size() != 2) continue;
      if (!n.domain().empty() && n.domain() != "ai.onnx") continue;
      for (int side = 0; side < 2; ++side) {
        auto scale = ScalarLiteral(g, n.input(side));
        if (!scale || *scale == 0) continue;
        // Dividing by the size, or multiplying by its inverse: either way the number is n.
        const double number = std::fabs(*scale) >= 1 ? std::fabs(*scale) : 1 / std::fabs(*scale);
        if (number < kMinSize) continue;
        auto reduced = ReductionOf(analysis, g, n.input(1 - side));
        if (!reduced) continue;
        auto matched = Match(analysis, *reduced, number);
        if (!matched) continue;
        // A scale the node's recorded line spells out (`* 0.5`, `/ 8`) is the module's own
        // number, which eager PyTorch multiplies by too: no size the trace read off the example.
        if (WrittenOnLine(n, *scale, number)) continue;
        Finding f = FindingAt(
            analysis, g, index, Evidence::kHypothesis,
            absl::StrCat(n.op_type(), " by the literal ", *scale, ": ", matched->text,
                         " summed over by ", g.node(reduced->node).op_type(), " '",
                         g.NodeLabel(reduced->node), "'; the values are right only at that size"));
        f.attribute = absl::StrCat("input ", side);
        f.symbols = matched->symbols;
        f.notes.push_back(
            {absl::StrCat("the dims are summed over here"), analysis.Ref(g, reduced->node)});
        f.fix =
            "take the size from the tensor inside the model (x.mean(-1) instead of x.sum(-1) / "
            "int(x.size(-1)); x.shape[-1] ** -0.5 instead of math.sqrt(int(x.size(-1)))) so "
            "that the exporter keeps it dynamic";
        if (analysis.fixes_wanted()) {
          auto fix = ScaleRepair(analysis, index, side, *scale, *matched);
          if (fix.ok()) {
            f.fix_it = *std::move(fix);
          } else {
            f.unfixable = std::string(fix.status().message());
          }
        }
        out.push_back(std::move(f));
        break;
      }
    }
  }

 private:
  // What the number is, e.g. "8 = sqrt(d)..." text and the symbols it involves.
  static std::optional<Matched> Match(const Analysis& analysis, const Reduced& reduced,
                                      double number) {
    // Each dim alone, then all together (a mean over H and W undone by H * W).
    struct Candidate {
      int64_t size;
      std::string text;
      std::vector<std::string> symbols;
      sym::MaybeExpr expr;
    };
    std::vector<Candidate> candidates;
    Candidate all{1, "", {}, sym::Expr::Constant(1)};
    std::vector<std::string> names;
    for (const auto& d : reduced.dims) {
      auto v = d.Evaluate(analysis.example());
      if (!v) return std::nullopt;
      // A head size or feature count fixed by a weight makes the scale a model constant.
      for (const auto& s : d.Symbols()) {
        if (analysis.FixedByWeight(s)) return std::nullopt;
      }
      candidates.push_back({*v, d.ToString(kMaxExprText), d.Symbols(), d});
      all.expr = sym::Mul(all.expr, d);
      names.push_back(d.AsSymbol() ? d.ToString(kMaxExprText)
                                   : absl::StrCat("(", d.ToString(kMaxExprText), ")"));
      if (__builtin_mul_overflow(all.size, *v, &all.size)) return std::nullopt;
      for (auto& s : d.Symbols()) all.symbols.push_back(s);
    }
    if (reduced.dims.size() > 1) {
      all.text = absl::StrJoin(names, " * ");
      std::sort(all.symbols.begin(), all.symbols.end());
      all.symbols.erase(std::unique(all.symbols.begin(), all.symbols.end()), all.symbols.end());
      candidates.push_back(std::move(all));
    }
    for (const Candidate& c : candidates) {
      if (c.size < 2 || !c.expr) continue;
      const double size = static_cast<double>(c.size);
      std::string how;
      const bool root = !Near(number, size);
      if (!root) {
        how = absl::StrCat("that is ", c.text, " at the export size (", c.size, "),");
      } else if (Near(number, std::sqrt(size))) {
        how = absl::StrCat("that is sqrt(", c.text, ") at the export size (", c.text, " = ", c.size,
                           "),");
      } else {
        continue;
      }
      // Evaluating the graph at moved sizes is the dear part: only for a number that matched.
      if (!VariesWhereTheGraphRuns(analysis, *c.expr, c.size)) continue;
      return Matched{absl::StrCat(how, " the size"), c.symbols, *c.expr, root};
    }
    return std::nullopt;
  }
};

}  // namespace

std::unique_ptr<Rule> MakeExampleSizeScale(const RuleInfo& info) {
  return std::make_unique<ExampleSizeScale>(info);
}

}  // namespace shapelint::lint
