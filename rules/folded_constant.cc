// SL005 folded-constant: a literal tensor sized at the example input meets a dynamic dim — a
// positional table sliced to the example length and folded, a causal mask built at the example
// size, a Constant shape fed to Expand or Tile. The exporter evaluated x.size(...) once and
// wrote the result; at other sizes the node fails.
//
// Claims: a failure whose failing node meets a literal the exporter wrote
// (LiteralSource::Kind::kConstant), traced back through layout ops to a Constant or an
// initializer; blamed where it entered (the Expand, Tile or Resize it sizes, or its first
// consumer). The repairs are in folded_constant_fix.cc.
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "folded_constant_fix.h"
#include "lint/rule.h"

namespace shapelint::lint {
namespace {

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
        absl::StatusOr<FixIt> fix = RepairFoldedConstant(analysis, cause);
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
