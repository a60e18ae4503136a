// SL005 folded-constant: a literal tensor sized at the example input meets a dynamic dim — a
// positional table sliced to the example length and folded, a causal mask built at the example
// size, a Constant shape fed to Expand or Tile. The exporter evaluated x.size(...) once and
// wrote the result; at other sizes the node fails.
//
// Claims: a failure whose failing node meets a literal the exporter wrote
// (LiteralSource::Kind::kConstant), traced back through layout ops to a Constant or an
// initializer; blamed where it entered (the Expand or Tile it sizes, or its first consumer).
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "lint/fix_builder.h"
#include "lint/rule.h"

namespace shapelint::lint {
namespace {

// The repair of a shape operand (Expand's shape, Tile's repeats): each entry a pin of the cause
// holds at a literal is computed instead from the dim the pin says it stands for. The entry is
// the one that gives the pin's constant at the output (for Tile, times the input's dim there);
// several such entries are ambiguous and left alone.
class OperandRepair {
 public:
  OperandRepair(const Analysis& analysis, const Cause& cause)
      : analysis_(analysis), cause_(cause), src_(cause.literal) {}

  absl::StatusOr<FixIt> Build() {
    const ir::Graph& g = analysis_.model().graph();
    const int at = EntryNode(g);
    if (at < 0) {
      return absl::FailedPreconditionError(
          "the literal is a tensor of its own, not a shape operand of the main graph");
    }
    const ir::Node entry = g.node(at);
    if (entry.input(1) != src_.name || !ReadValues()) {
      return absl::FailedPreconditionError("the shape reaches the node through other ops");
    }
    tile_ = entry.op_type() == "Tile";
    in_dims_ =
        analysis_.DimsAt(entry.input(0), analysis_.witness()).value_or(std::vector<int64_t>{});
    if (tile_ && in_dims_.size() != values_.size()) {
      return absl::FailedPreconditionError("the Tile input's dims at the witness are not known");
    }
    std::vector<sym::MaybeExpr> entries(values_.size());
    for (const Pin* pin : cause_.pins) {
      if (auto st = Assign(*pin->requirement, entries); !st.ok()) return st;
    }
    FixBuilder b(analysis_, at, Applicability::kSafe, "");
    std::vector<std::string> parts, text;
    for (size_t k = 0; k < entries.size(); ++k) {
      if (!entries[k]) {
        parts.push_back(b.Ints({values_[k]}));
        text.push_back(absl::StrCat(values_[k]));
        continue;
      }
      std::optional<std::string> computed = b.Compute(*entries[k]);
      if (!computed) {
        return absl::FailedPreconditionError(absl::StrCat(
            entries[k]->ToString(kMaxExprText), " is not computed from the inputs' dims alone"));
      }
      parts.push_back(*computed);
      text.push_back(entries[k]->ToString(kMaxExprText));
    }
    b.Rewire(at, 1, b.Add("Concat", parts, {{{"axis", 0}}, {}}, "shape"));
    if (src_.node >= 0) b.DropIfUnread(src_.node);
    FixIt fix = std::move(b).Take();
    fix.description =
        absl::StrCat(entry.op_type(), "'s ", tile_ ? "repeats follow" : "shape follows",
                     " the inputs' dims: [", absl::StrJoin(text, ", "), "]");
    return fix;
  }

 private:
  // The Expand or Tile the literal sizes: where blame traced it, or the failing node itself
  // when the literal is its shape operand (Expand(x, [1, 2, 16]) failing at the Expand).
  int EntryNode(const ir::Graph& g) const {
    if (src_.graph != &g) return -1;
    if (src_.entry >= 0) return src_.entry;
    for (int n : {cause_.node, src_.consumer}) {
      if (n < 0 || cause_.graph != &g) continue;
      const ir::Node node = g.node(n);
      if ((node.op_type() == "Expand" || node.op_type() == "Tile") && node.input_size() > 1 &&
          node.input(1) == src_.name) {
        return n;
      }
    }
    return -1;
  }

  // The operand's values: blame's, or the engine's for a plain Constant.
  bool ReadValues() {
    values_ = src_.values;
    if (!values_.empty()) return true;
    const infer::TensorFact* fact = analysis_.inference().Find(src_.name);
    if (fact == nullptr || !fact->values) return false;
    for (const infer::Element& e : *fact->values) {
      auto c = e.value ? e.value->AsConstant() : std::nullopt;
      if (!c) return false;
      values_.push_back(*c);
    }
    return !values_.empty();
  }

  // The entry the requirement's literal side came from gets its symbolic side.
  absl::Status Assign(const infer::Requirement& r, std::vector<sym::MaybeExpr>& entries) const {
    const auto lc = r.lhs.AsConstant(), rc = r.rhs.AsConstant();
    if (lc.has_value() == rc.has_value()) {
      return absl::FailedPreconditionError(
          "the failing requirement is not a literal against a dim");
    }
    const int64_t constant = lc ? *lc : *rc;
    const sym::Expr dim = lc ? r.rhs : r.lhs;
    std::optional<size_t> at;
    for (size_t k = 0; k < values_.size(); ++k) {
      const int64_t out = tile_ ? values_[k] * in_dims_[k] : values_[k];
      if (out != constant) continue;
      if (at) {
        return absl::FailedPreconditionError(
            absl::StrCat("several entries give ", constant, "; which stands for ",
                         dim.ToString(kMaxExprText), " is not known"));
      }
      at = k;
    }
    if (!at) return absl::FailedPreconditionError("no entry gives the failing size");
    sym::MaybeExpr value = dim;
    if (tile_ && in_dims_[*at] != 1) value = sym::FloorDiv(dim, sym::Expr::Constant(in_dims_[*at]));
    if (!value || (entries[*at] && entries[*at] != value)) {
      return absl::FailedPreconditionError("two requirements disagree on an entry");
    }
    entries[*at] = value;
    return absl::OkStatus();
  }

  const Analysis& analysis_;
  const Cause& cause_;
  const LiteralSource& src_;
  bool tile_ = false;
  std::vector<int64_t> values_;
  std::vector<int64_t> in_dims_;
};

class FoldedConstant : public Rule {
 public:
  using Rule::Rule;

  bool ClaimsLiteral(const BlameSite& site) const override {
    return site.literal().kind == LiteralSource::Kind::kConstant;
  }

  void Check(const Analysis& analysis, std::vector<Finding>& out) const override {
    for (const Cause& cause : analysis.causes()) {
      if (!Owns(cause)) continue;
      const infer::Requirement& r = *cause.pins.front()->requirement;
      const LiteralSource& src = cause.literal;
      const std::string what = src.node >= 0
                                   ? absl::StrCat("Constant '", src.graph->NodeLabel(src.node), "'")
                                   : absl::StrCat("initializer '", src.name, "'");
      const auto& node = cause.graph->node(cause.node);
      const std::string literal =
          src.values.empty()
              ? absl::StrCat(what, " of shape [", absl::StrJoin(src.dims, ", "), "]")
              : absl::StrCat(what, " holding [", absl::StrJoin(src.values, ", "), "]");
      // Where it meets the dynamic dim may be further down than where it entered.
      const auto& meets = r.graph->node(r.node);
      const std::string entry = cause.node == r.node && r.graph == cause.graph
                                    ? ""
                                    : absl::StrCat(", enters at ", node.op_type(), " '",
                                                   cause.graph->NodeLabel(cause.node), "'");
      Finding f =
          FindingFor(analysis, cause, cause.node,
                     absl::StrCat(literal, " was sized at the example input", entry,
                                  " and meets the dynamic ", absl::StrJoin(cause.symbols, ", "),
                                  " in ", meets.op_type(), " (", r.what, ")"));
      f.attribute = src.name;
      f.fix =
          "compute the tensor from the input's size inside the model (slice the table with "
          "x.shape[1], build masks with torch.arange(x.shape[1])) instead of a Python int, so "
          "that the exporter keeps it dynamic";
      if (analysis.fixes_wanted()) {
        absl::StatusOr<FixIt> fix = OperandRepair(analysis, cause).Build();
        if (fix.ok()) {
          f.fix_it = *std::move(fix);
        } else {
          f.unfixable = std::string(fix.status().message());
        }
      }
      out.push_back(std::move(f));
    }
  }
};

}  // namespace

std::unique_ptr<Rule> MakeFoldedConstant(const RuleInfo& info) {
  return std::make_unique<FoldedConstant>(info);
}

}  // namespace shapelint::lint
