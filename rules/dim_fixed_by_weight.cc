// SL004 dim-fixed-by-weight: a dim the inputs declare dynamic is fixed by the shape of a
// weight — a conv kernel's input channels, a linear layer's in_features, a per-channel scale.
// The graph is fine and PyTorch rejects other sizes too; the declaration is what is wrong.
//
// Claims: a failure whose failing node meets a trained weight (LiteralSource::Kind::kWeight:
// a kernel or feature count the node contracts over, a per-channel vector, or a tensor named
// as a module parameter).
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "lint/rule.h"

namespace shapelint::lint {
namespace {

class DimFixedByWeight : public Rule {
 public:
  using Rule::Rule;

  bool ClaimsLiteral(const BlameSite& site) const override {
    return site.literal().kind == LiteralSource::Kind::kWeight;
  }

  void Check(const Analysis& analysis, std::vector<Finding>& out) const override {
    for (const Cause& cause : analysis.causes()) {
      if (!Owns(cause)) continue;
      const infer::Requirement& r = *cause.pins.front()->requirement;
      Finding f = FindingFor(analysis, cause, cause.node,
                             absl::StrCat("weight '", cause.literal.name, "' [",
                                          absl::StrJoin(cause.literal.dims, ", "), "] fixes ",
                                          absl::StrJoin(cause.symbols, ", "),
                                          ", which the inputs declare dynamic (", r.what, ")"));
      // The graph is right for the sizes it was built for: a note about the declaration.
      f.severity = Severity::kNote;
      f.attribute = cause.literal.name;
      f.fix =
          "declare these dims static (drop them from dynamic_axes / dynamic_shapes), or change "
          "the layer if the model is meant to take other sizes";
      out.push_back(std::move(f));
    }
  }
};

}  // namespace

std::unique_ptr<Rule> MakeDimFixedByWeight(const RuleInfo& info) {
  return std::make_unique<DimFixedByWeight>(info);
}

}  // namespace shapelint::lint
