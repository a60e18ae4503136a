// SL003 declared-shape-mismatch: a graph output or value_info declares a shape that the graph
// does not compute — a dynamic dim computed as a constant, a constant computed from a symbol,
// or two different constants. Only dims that promise something are compared: numbers and
// expressions over input symbols, not names an exporter invented ("unk__3").
//
// Takes what no rule claimed: a declared shape contradicted where no rule that runs recognised
// the op where the size entered.
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "lint/rule.h"

namespace shapelint::lint {
namespace {

class DeclaredShapeMismatch : public Rule {
 public:
  using Rule::Rule;

  void Check(const Analysis& analysis, std::vector<Finding>& out) const override {
    for (const Cause& cause : analysis.causes()) {
      // A claimed cause is reported by the rule that claimed it.
      if (cause.owner != nullptr) continue;
      for (const Pin* pin : cause.pins) {
        const infer::Requirement& r = *pin->requirement;
        if (r.kind != infer::RequirementKind::kDeclaredShape) continue;
        std::string message = absl::StrCat(
            r.what, ", but the graph computes ", r.lhs.ToString(kMaxExprText),
            pin->always_false ? " at every size"
                              : absl::StrCat(" (equal only where ", EqualityText(r), ")"));
        Finding f = FindingFor(analysis, cause, r.node, std::move(message));
        f.attribute = absl::StrCat("output '", r.value, "' axis ", r.axis);
        f.fix =
            "correct the declaration (dynamic_axes / dynamic_shapes names), or find the op that "
            "fixed this dim and make it follow the input";
        out.push_back(std::move(f));
      }
    }
  }
};

}  // namespace

std::unique_ptr<Rule> MakeDeclaredShapeMismatch(const RuleInfo& info) {
  return std::make_unique<DeclaredShapeMismatch>(info);
}

}  // namespace shapelint::lint
