// SL007's repair (the rule is rules/example_size_literal.cc): each literal a finding names is
// computed from the input's shape the way it derived from the example size.
#include <algorithm>
#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "example_size_literal.h"
#include "lint/fix_builder.h"

namespace shapelint::lint::example_size_literal {
namespace {

using infer::Element;

// The literal as the expression of its dim that gave it at the example (the derivation the
// finding states); nullopt, with `why`, where no single one did. sqrt has none: ONNX computes
// it only in floating point.
sym::MaybeExpr DerivedValue(const Slot& slot, Form form, int64_t d, std::string& why) {
  const int64_t v = std::llabs(slot.literal);
  const sym::MaybeExpr dim = slot.dim;
  auto c = [](int64_t k) { return sym::MaybeExpr(sym::Expr::Constant(k)); };
  sym::MaybeExpr value;
  switch (form) {
    case kWhole:
      value = dim;
      break;
    case kMinusOne:
      value = sym::Sub(dim, c(1));
      break;
    case kHalf:
      // ceil(d / 2) as floor((d + 1) / 2): Div of a size, never negative, is the floor.
      value = v == d / 2 ? sym::FloorDiv(dim, c(2)) : sym::FloorDiv(sym::Add(dim, c(1)), c(2));
      break;
    case kDouble:
      value = sym::Mul(c(2), dim);
      break;
    case kSqrt:
      return std::nullopt;  // no expression: the caller says why
    case kRecordedLine:
      why =
          "the recorded line computes the literal from the size; the linter does not read "
          "Python arithmetic";
      return std::nullopt;
    case kSpecializedSize:
    case kInputSize:
      why =
          "the literal is an input's size, which reaches the node through other sizes; the "
          "fix does not rebuild that path";
      return std::nullopt;
    case kRoundUp: {
      const std::vector<int64_t> k = RoundUpMultiples(v, d);
      if (k.size() != 1) {
        why = absl::StrCat("the pad reaches a multiple of ", absl::StrJoin(k, " and of "),
                           " at export: which one the model means is not known");
        return std::nullopt;
      }
      // k * ceil(d / k) - d, the pad up to the next multiple.
      value = sym::Sub(sym::Mul(c(k[0]), sym::FloorDiv(sym::Add(dim, c(k[0] - 1)), c(k[0]))), dim);
      break;
    }
  }
  return slot.literal < 0 ? sym::Neg(value) : value;
}

// Opsets from which Gather takes negative indices and Slice its bounds as inputs.
constexpr int64_t kNegativeGatherOpset = 11;
constexpr int64_t kSliceInputsOpset = 10;

// The repair: each literal the finding names is computed from the input's shape the way the
// finding says it derived from the example (ends 5 becomes W // 2); a window as large as the
// whole map becomes global pooling. At the export sizes the graph computes what it did.
class LiteralRepair {
 public:
  LiteralRepair(const Analysis& analysis, int node, Applicability applicability)
      : analysis_(analysis),
        node_(analysis.model().graph().node(node)),
        b_(analysis, node, applicability, "") {}

  absl::StatusOr<FixIt> Build(const std::vector<Derived>& literals) && {
    const std::string& op = node_.op_type();
    if (op == "AveragePool" || op == "MaxPool" || op == "LpPool") return std::move(*this).Pool();
    if (op == "GridSample") {
      // The literal is the grid's shape: its values come from a computation the exporter
      // folded, which no rewrite of one number brings back.
      return absl::FailedPreconditionError(
          "the grid is a folded tensor of the example's size; build it in forward from the "
          "input's shape");
    }
    if (op == "Gather" || op == "Slice") {
      if (auto st = NotASeries(literals); !st.ok()) return st;
    }
    if (op == "Gather") {
      const std::vector<Element>* indices = ValuesOf(analysis_, node_, 1);
      if (indices != nullptr && indices->size() > 1) {
        return std::move(*this).Progression(*indices, literals.front());
      }
    }
    std::map<int, std::vector<const Derived*>> by_input;
    for (const Derived& l : literals) {
      if (l.slot.input < 0) {
        return absl::FailedPreconditionError(
            absl::StrCat("the literal is the node's ", l.slot.operand, " attribute at this opset"));
      }
      by_input[l.slot.input].push_back(&l);
    }
    std::vector<std::string> text;
    for (const auto& [input, in] : by_input) {
      auto value = Operand(input, in, text);
      if (!value.ok()) return value.status();
      b_.Rewire(node_.index(), input, *std::move(value));
      b_.DropComputationIfUnread(node_.input(input));
    }
    FixIt fix = std::move(b_).Take();
    fix.description = absl::StrJoin(text, "; ");
    return fix;
  }

 private:
  // A literal row or bound is one of a series when the same tensor is read by the same op on
  // the same dim at another literal position that does not derive from the example (x[:, 1],
  // x[:, 2], x[:, 3] beside x[:, 4] at T = 5; unfold's windows): a loop unrolled over the
  // example size, whose steps no fix of one literal brings back. Position 0 and positions
  // counted from the end are the same at every size and say nothing.
  absl::Status NotASeries(const std::vector<Derived>& literals) const {
    const ir::Graph& g = analysis_.model().graph();
    if (node_.input_size() == 0) return absl::OkStatus();
    for (int other : g.Consumers(node_.input(0))) {
      if (other == node_.index() || g.node(other).op_type() != node_.op_type()) continue;
      for (const Slot& slot : SlotsOf(analysis_, g, other)) {
        auto d = slot.dim.Evaluate(analysis_.example());
        const bool same_dim = std::any_of(literals.begin(), literals.end(),
                                          [&](const Derived& l) { return l.slot.dim == slot.dim; });
        if (!same_dim || slot.literal <= 0 || !d || Derivation(slot, *d)) continue;
        return absl::FailedPreconditionError(absl::StrCat(
            "'", std::string(node_.input(0)), "' is read at the literal position ", slot.literal,
            " too, by ", node_.op_type(), " '", g.NodeLabel(other),
            "': a loop unrolled over the example size or a series of windows, which a fix of "
            "one literal does not repair"));
      }
    }
    return absl::OkStatus();
  }

  // torch.arange(a, int(T), s) folded to [a, a + s, ..., T - 1] (index_select's rows):
  // Range(a, T, s). Of the limits that give these rows at export, T is the only one that stays
  // inside the axis at every size.
  absl::StatusOr<FixIt> Progression(const std::vector<Element>& indices, const Derived& l) && {
    constexpr int64_t kRangeOpset = 11;
    // Rows from 0 up to the literal, which is below 2^31: their differences cannot overflow.
    std::vector<int64_t> rows;
    for (const Element& e : indices) {
      if (auto c = ConstantOf(e); c && *c >= 0 && *c <= l.slot.literal) rows.push_back(*c);
    }
    const int64_t step = rows.size() == indices.size() ? rows[1] - rows[0] : 0;
    for (size_t i = 1; i < rows.size() && step > 0; ++i) {
      if (rows[i] - rows[i - 1] != step) rows.clear();
    }
    if (step <= 0 || rows.empty() || rows.back() != l.slot.literal || b_.opset() < kRangeOpset) {
      return absl::FailedPreconditionError(
          absl::StrCat("the indices hold ", indices.size(), " rows that are not an arange up to ",
                       DimText(l.slot.dim), " - 1: which of them follow the size is not known"));
    }
    auto limit = b_.Compute(l.slot.dim);
    if (!limit) return NotComputed(l.slot.dim);
    const std::string range =
        b_.Add("Range",
               {b_.Ints({rows.front()}, true), b_.Add("Squeeze", {*limit}, {}, "limit"),
                b_.Ints({step}, true)},
               {}, "rows");
    b_.Rewire(node_.index(), 1, range);
    b_.DropComputationIfUnread(node_.input(1));
    FixIt fix = std::move(b_).Take();
    fix.description =
        absl::StrCat("indices [", absl::StrJoin(rows, ", "), "] become range(", rows.front(), ", ",
                     DimText(l.slot.dim), ", ", step, "), computed from the input's shape");
    return fix;
  }

  // Input `input` rebuilt: its literals computed, its other values kept.
  absl::StatusOr<std::string> Operand(int input, const std::vector<const Derived*>& literals,
                                      std::vector<std::string>& text) {
    const std::vector<Element>* values = ValuesOf(analysis_, node_, input);
    if (values == nullptr) return absl::FailedPreconditionError("the operand's values are unknown");
    std::vector<FixBuilder::Entry> entries;
    for (size_t k = 0; k < values->size(); ++k) {
      const Derived* l = nullptr;
      for (const Derived* candidate : literals) {
        if (candidate->slot.element == k && l == nullptr) l = candidate;
      }
      if (l == nullptr) {
        // A value the graph computes is read back from the operand.
        const auto c = ConstantOf((*values)[k]);
        if (c) {
          entries.emplace_back(*c);
        } else {
          entries.emplace_back(b_.Add(
              "Gather", {std::string(node_.input(input)), b_.Ints({static_cast<int64_t>(k)})},
              {{{"axis", 0}}, {}}, "entry"));
        }
        continue;
      }
      auto computed = Computed(*l);
      if (!computed.ok()) return computed.status();
      entries.push_back(*std::move(computed));
      std::string change = absl::StrCat(l->slot.operand, " ", l->slot.literal, " becomes ",
                                        Stated(*l, entries.back()));
      if (std::find(text.begin(), text.end(), change) == text.end()) text.push_back(change);
    }
    // A scalar operand (Gather's index of x[:, T - 1]) stays a scalar.
    const infer::TensorFact* fact = analysis_.inference().Find(node_.input(input));
    return b_.Vector(entries, fact != nullptr && fact->rank() == 0);
  }

  // How the change reads: "W // 2", or "-1 (T - 1, counted from the end)".
  static std::string Stated(const Derived& l, const FixBuilder::Entry& value) {
    std::string how = *Derivation(l.slot, l.d);
    if (l.slot.literal < 0) how = absl::StrCat("-(", how, ")");
    if (const int64_t* literal = std::get_if<int64_t>(&value)) {
      return absl::StrCat(*literal, " (", how, ", counted from the end)");
    }
    return absl::StrCat(how, ", computed from the input's shape");
  }

  // The literal's value at every size: a 1-D int64 of one element, or a literal that means the
  // same at every size.
  absl::StatusOr<FixBuilder::Entry> Computed(const Derived& l) {
    if (l.also) {
      return absl::FailedPreconditionError(
          absl::StrCat(l.slot.literal, " derives from ", DimText(l.slot.dim), " and from ",
                       DimText(*l.also), " at export: which one the model means is not known"));
    }
    // The last row or the end but one counted from the end is the same at every size.
    const std::string& op = node_.op_type();
    if (l.form == kMinusOne && l.slot.literal > 0 &&
        ((op == "Gather" && b_.opset() >= kNegativeGatherOpset) ||
         (op == "Slice" && b_.opset() >= kSliceInputsOpset))) {
      return int64_t{-1};
    }
    if (l.form == kSqrt) {
      // ONNX has no integer square root, and the static proof does not follow float ops.
      return absl::FailedPreconditionError(absl::StrCat(
          "sqrt(", DimText(l.slot.dim), ") is computed in ONNX only through floating point"));
    }
    std::string why;
    const sym::MaybeExpr value = DerivedValue(l.slot, l.form, l.d, why);
    if (!value) return absl::FailedPreconditionError(why);
    auto computed = b_.Compute(*value);
    if (!computed) return NotComputed(*value);
    return FixBuilder::Entry(*std::move(computed));
  }

  static absl::Status NotComputed(const sym::Expr& e) {
    return absl::FailedPreconditionError(
        absl::StrCat(e.ToString(kMaxExprText), " is not computed from the inputs' dims alone"));
  }

  // F.avg_pool2d(x, (int(H), int(W))) pools the whole map at every size: global pooling. With
  // no padding and no dilation the window covers the map whatever the strides, as at export.
  absl::StatusOr<FixIt> Pool() && {
    const std::string& op = node_.op_type();
    const auto pads = IntsAttr(node_, "pads");
    const auto dilations = IntsAttr(node_, "dilations");
    const std::string_view auto_pad = node_.StringAttribute("auto_pad").value_or("NOTSET");
    if (std::any_of(pads.begin(), pads.end(), [](int64_t p) { return p != 0; }) ||
        std::any_of(dilations.begin(), dilations.end(), [](int64_t d) { return d != 1; }) ||
        (auto_pad != "NOTSET" && auto_pad != "VALID")) {
      return absl::FailedPreconditionError("the window is padded or dilated");
    }
    if (node_.output_size() > 1 && !node_.output(1).empty()) {
      return absl::FailedPreconditionError("the pool's indices are read");
    }
    if (node_.input_size() == 0 || node_.output_size() == 0) {
      return absl::FailedPreconditionError("the pool has no input or no output");
    }
    FixBuilder::Attributes attributes;
    if (op == "LpPool") attributes.ints.emplace_back("p", IntAttr(node_, "p").value_or(2));
    b_.Add(absl::StrCat("Global", op), {std::string(node_.input(0))}, std::move(attributes), "",
           node_.output(0));
    b_.Replace(node_.index());
    FixIt fix = std::move(b_).Take();
    fix.description = absl::StrCat("the window as large as the example map becomes Global", op,
                                   ", which pools the whole map at every size");
    return fix;
  }

  const Analysis& analysis_;
  const ir::Node node_;
  FixBuilder b_;
};

}  // namespace

absl::StatusOr<FixIt> RepairLiterals(const Analysis& analysis, int node,
                                     Applicability applicability,
                                     const std::vector<Derived>& literals) {
  return LiteralRepair(analysis, node, applicability).Build(literals);
}

}  // namespace shapelint::lint::example_size_literal
