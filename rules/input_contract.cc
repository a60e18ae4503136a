// SL006 input-contract: the graph relates two or more input dims with no literal involved —
// an attention mask of length total_seq added to scores of length past_seq + seq. That is the
// model's contract with its caller, not a baked size: a note that states it, so that callers
// (and serving configs) know the dims are not independent. The symbols are never merged.
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "lint/rule.h"

namespace shapelint::lint {
namespace {

class InputContract : public Rule {
 public:
  using Rule::Rule;

  void Check(const Analysis& analysis, std::vector<Finding>& out) const override {
    absl::flat_hash_set<std::string> stated;
    for (const Cause& cause : analysis.causes()) {
      if (cause.owner != nullptr) continue;  // a rule found where a size entered
      for (const Pin* pin : cause.pins) {
        const infer::Requirement& r = *pin->requirement;
        if (r.kind == infer::RequirementKind::kDeclaredShape || !pin->contract) continue;
        const std::string relation = EqualityText(r);
        if (!stated.insert(relation).second) continue;
        Finding f = FindingFor(analysis, cause, r.node,
                               absl::StrCat("the graph requires ", relation, " (", r.what,
                                            "): an input contract, not a baked size"));
        f.evidence = Evidence::kDesign;
        // A note states the contract; it claims no break. A witness would be misread: each
        // symbol is fixed only while the others are held.
        f.counterexample.reset();
        f.witness.reset();
        f.fix =
            "document the relation for callers, or name the dims so that it holds by "
            "construction (e.g. compute the mask length from the inputs inside the model)";
        out.push_back(std::move(f));
      }
    }
  }
};

}  // namespace

std::unique_ptr<Rule> MakeInputContract(const RuleInfo& info) {
  return std::make_unique<InputContract>(info);
}

}  // namespace shapelint::lint
