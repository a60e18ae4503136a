// SL015 truncating-floor-division: Python's floor division of a size, exported as ONNX's
// truncating integer Div of a dividend that is negative at every size.
//
// `-(-n // k)` is the Python idiom for ceil(n / k) (pad a length to whole chunks). Both torch
// exporters lower `//` on sizes to ONNX's integer Div, which truncates toward zero: for the
// negative dividend -n it gives -floor(n / k) where Python gives -ceil(n / k). The graph then
// computes floor where the module computes ceil: every size that is not a multiple of k, the
// export size among them when it is one, pads or chunks differently from eager PyTorch (or
// fails where a view needs the padded length). Nothing contradicts in the shapes: the graph is
// consistent with itself, only not with the source.
//
// Reports, without a failure: an integer Div whose dividend the algebra shows is never positive
// (and not always 0) and whose divisor is a constant above 1, or the mirror of it (a size over a
// constant below -1, `n // -k`). Evidence: the exporter's record
// naming Python's floor division on the node (the dynamo exporter's class hierarchy) makes it
// an error (source-mismatch: not a bake, so it may hold at the export size as well); without one
// (TorchScript records nothing) the Div may be a truncation the source asked for (torch.div(...,
// rounding_mode="trunc")), a hypothesis.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "lint/provenance.h"
#include "lint/rule.h"

namespace shapelint::lint {
namespace {

// ONNX's signed integer element types. An unsigned dividend is never negative.
bool SignedInteger(int32_t elem_type) {
  using ONNX_NAMESPACE::TensorProto;
  return elem_type == TensorProto::INT8 || elem_type == TensorProto::INT16 ||
         elem_type == TensorProto::INT32 || elem_type == TensorProto::INT64;
}

// Floor division of integers, as Python's //; `b` > 0.
int64_t FloorDivide(int64_t a, int64_t b) {
  const int64_t q = a / b;
  return (a % b != 0 && a < 0) ? q - 1 : q;
}

// True when the exporter recorded the node as Python's or aten's floor division.
bool RecordedAsFloorDivision(ir::Node node) {
  const std::vector<std::string> classes = ClassHierarchy(node);
  if (classes.empty()) return false;
  const std::string& op = classes.back();
  return absl::StrContains(op, "floordiv") || absl::StrContains(op, "floor_divide");
}

// One element of the Div: its dividend and divisor.
struct Quotient {
  sym::Expr dividend;
  int64_t divisor = 0;
  std::string written;  // the Div's own operands, "-seq / 4" or "seq / -4"
};

class TruncatingFloorDivision : public Rule {
 public:
  using Rule::Rule;

  void Check(const Analysis& analysis, std::vector<Finding>& out) const override {
    const ir::Graph& g = analysis.model().graph();
    for (int index : g.topological_order()) {
      const ir::Node n = g.node(index);
      if (n.op_type() != "Div" || n.input_size() < 2 || n.output_size() < 1 || n.input(0).empty() ||
          n.input(1).empty()) {
        continue;
      }
      const std::optional<Quotient> q = NegativeQuotient(analysis, n);
      if (!q) continue;
      if (std::optional<Finding> f = Report(analysis, g, n, *q)) out.push_back(*std::move(f));
    }
  }

 private:
  // Longest expression text a message quotes.
  static constexpr size_t kMaxChars = 120;
  // Sizes tried past the export size for one where the two divisions differ.
  static constexpr int64_t kMaxSteps = 64;
  static constexpr char kFix[] =
      "write the ceiling as (n + k - 1) // k in the module, whose dividend is never negative "
      "and which every exporter lowers right; or compute Div(a - Mod(a, b), b) in the graph "
      "(ONNX's Mod with fmod = 0 takes the divisor's sign, as Python's % does)";

  // The first element of the Div whose dividend and constant divisor have opposite signs at
  // every size, the dividend not constant and the divisor not 1 or -1: where truncation and
  // floor differ. Returned with both signs flipped where the divisor is negative (e // -k is
  // -e // k), so that the divisor is positive.
  static std::optional<Quotient> NegativeQuotient(const Analysis& analysis, ir::Node n) {
    const infer::TensorFact* a = analysis.inference().Find(n.input(0));
    const infer::TensorFact* b = analysis.inference().Find(n.input(1));
    if (a == nullptr || b == nullptr || !SignedInteger(a->elem_type) || !a->values || !b->values ||
        b->values->empty()) {
      return std::nullopt;
    }
    const size_t count = a->values->size();
    if (b->values->size() != 1 && b->values->size() != count) return std::nullopt;
    for (size_t i = 0; i < count; ++i) {
      const sym::MaybeExpr& x = (*a->values)[i].value;
      const sym::MaybeExpr& y = (*b->values)[b->values->size() == 1 ? 0 : i].value;
      const std::optional<int64_t> k = y ? y->AsConstant() : std::nullopt;
      if (!x || !k || x->IsConstant() || *k == INT64_MIN) continue;
      // Printed only once it is reported, and cut: a size expression can be far longer
      // printed than it is shared in memory.
      auto written = [&] { return absl::StrCat(x->ToString(kMaxChars), " / ", *k); };
      if (*k > 1 && sym::NeverPositive(*x)) return Quotient{*x, *k, written()};
      if (*k < -1 && sym::KnownNonNegative(*x)) {
        if (const sym::MaybeExpr negated = sym::Neg(x)) {
          return Quotient{*negated, -*k, written()};
        }
      }
    }
    return std::nullopt;
  }

  // The sizes at which the two divisions differ: the export sizes (or the witness) where they
  // do (`at_base`), else the first of them with one symbol of the dividend moved up,
  // inside torch.export's recorded range.
  static std::optional<sym::Binding> WhereTheyDiffer(const Analysis& analysis, const Quotient& q,
                                                     bool& at_base) {
    const sym::Binding base = analysis.ExampleOverWitness();
    // Where the graph's quotient is not 0 too: a length of 0 empties tensors downstream, on
    // which runtimes part from the specification (ONNX Runtime returns an empty tensor
    // unreduced), and says less than two lengths that differ.
    auto differs = [&](const sym::Binding& at) {
      const std::optional<int64_t> v = q.dividend.Evaluate(at);
      return v && *v % q.divisor != 0 && *v <= -q.divisor;
    };
    at_base = differs(base);
    if (at_base) return base;
    for (const std::string& s : q.dividend.Symbols()) {
      const std::optional<int64_t> at = base.Get(s);
      if (!at || *at > INT64_MAX - kMaxSteps) continue;
      // Within torch.export's range for the symbol, where it recorded one.
      const auto range = analysis.recorded_bounds().find(s);
      const std::optional<int64_t> max =
          range == analysis.recorded_bounds().end() ? std::nullopt : range->second.max;
      for (int64_t step = 1; step <= kMaxSteps; ++step) {
        if (max && *at + step > *max) break;
        sym::Binding moved = base;
        moved.Set(s, *at + step);
        if (differs(moved)) return moved;
      }
    }
    return std::nullopt;
  }

  std::optional<Finding> Report(const Analysis& analysis, const ir::Graph& g, ir::Node n,
                                const Quotient& q) const {
    bool at_base = false;
    const std::optional<sym::Binding> at = WhereTheyDiffer(analysis, q, at_base);
    if (!at) return std::nullopt;
    const int64_t dividend = *q.dividend.Evaluate(*at);
    const int64_t truncated = dividend / q.divisor;
    const int64_t floored = FloorDivide(dividend, q.divisor);
    const bool recorded = RecordedAsFloorDivision(n);
    // The dividend is -e with e >= 0: truncation gives -floor(e / k), Python -ceil(e / k).
    const sym::MaybeExpr e = sym::Neg(q.dividend);
    const std::string size = (e ? *e : q.dividend).ToString(kMaxChars);
    const std::string over =
        absl::StrCat(e && !e->AsSymbol() ? absl::StrCat("(", size, ")") : size, " / ", q.divisor);
    Finding f = FindingAt(
        analysis, g, n.index(), recorded ? Evidence::kSourceMismatch : Evidence::kHypothesis,
        absl::StrCat(
            "integer Div truncates toward zero where ",
            recorded ? "the recorded source's floor division (//)" : "Python's floor division (//)",
            " rounds down: the operands of ", q.written,
            " have opposite signs at every size, so the graph computes -floor(", over,
            ") where the source computes -ceil(", over,
            "): the -(-n // k) ceiling becomes a floor"));
    f.attribute = "input 0";
    Counterexample c = analysis.Evaluate(*at);
    c.failing_node = analysis.Ref(g, n.index());
    c.failure =
        absl::StrCat("Div returns ", truncated, " here, where floor division returns ", floored,
                     analysis.has_example() && at_base ? " (at the export size itself)" : "");
    c.node_fails = false;
    f.counterexample = std::move(c);
    if (!recorded) {
      // Assigned, not braced into a Note: GCC 12 warns of bogus bounds moving a long literal.
      f.notes.emplace_back().message = absl::StrCat(
          "the exporter recorded no source for this node (TorchScript records none): the "
          "module may have asked for truncation (torch.div(..., rounding_mode=\"trunc\")), "
          "though the -(-n // k) ceiling is what leaves a negated size here");
    }
    f.fix = kFix;
    return f;
  }
};

}  // namespace

std::unique_ptr<Rule> MakeTruncatingFloorDivision(const RuleInfo& info) {
  return std::make_unique<TruncatingFloorDivision>(info);
}

}  // namespace shapelint::lint
