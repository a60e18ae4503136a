// SL004 dim-fixed-by-weight: a dim the inputs declare dynamic is fixed by the shape of a
// weight — a conv kernel's input channels, a linear layer's in_features, a per-channel scale.
// The graph is fine and PyTorch rejects other sizes too; the declaration is what is wrong.
//
// Claims: a failure whose failing node meets a trained weight (LiteralSource::Kind::kWeight:
// a kernel or feature count the node contracts over, a per-channel vector, or a tensor named
// as a module parameter).
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "lint/fix_builder.h"
#include "lint/provenance.h"
#include "lint/rule.h"
#include "shapelint/sym/expr.h"

namespace shapelint::lint {
namespace {

// The size the weight gives `symbol` on its own, from the finding's witness (each with the
// others at the witness; the relations between them are AddDeclarationFix's to check): nullopt
// when it leaves the dim a range (two inputs concatenated into its features).
std::optional<int64_t> FixedSize(const Finding& f, const std::string& symbol) {
  if (!f.witness) return std::nullopt;
  for (const SymbolRange& r : f.witness->ranges) {
    if (r.symbol == symbol && r.min && r.max && *r.min == *r.max) return *r.min;
  }
  return std::nullopt;
}

// True when every requirement that relates `fixed`'s dims to others holds once they take those
// sizes, whatever the others are: its two sides differ by a multiple of (dim - size) for one of
// them. A batch that cancels out of a view's element count (8*B*T == B*D*T) leaves B and T free
// once D = 8; a grid of h*w == 16 fixes neither h nor w alone, and is not repaired so.
bool RelationsHoldOnceFixed(const Analysis& analysis,
                            const std::vector<std::pair<std::string, int64_t>>& fixed) {
  for (const Pin& pin : analysis.pins()) {
    if (pin.symbols.size() < 2) continue;
    const bool relates = std::any_of(fixed.begin(), fixed.end(), [&](const auto& f) {
      return std::binary_search(pin.symbols.begin(), pin.symbols.end(), f.first);
    });
    if (!relates) continue;
    const sym::MaybeExpr d = sym::Sub(pin.requirement->lhs, pin.requirement->rhs);
    if (!d) return false;
    if (d->AsConstant() == 0) continue;
    const bool vanishes = std::any_of(fixed.begin(), fixed.end(), [&](const auto& f) {
      const sym::MaybeExpr factor =
          sym::Sub(sym::Expr::Symbol(f.first), sym::Expr::Constant(f.second));
      const sym::MaybeExpr quotient = sym::FloorDivExpr(d, factor);
      return quotient && sym::Mul(quotient, factor) == d;
    });
    if (!vanishes) return false;
  }
  return true;
}

// The repair of the declaration: each dim the weight fixes declared as its size, wherever the
// graph names it (inputs, outputs, value_info), or at its input's axis when it has no name.
// The dims the witness leaves free stay dynamic, where fixing the others satisfies every
// requirement that relates them.
void AddDeclarationFix(const Analysis& analysis, const Cause& cause,
                       const std::vector<std::string>& fixed, Finding& f) {
  const std::string relation = absl::StrCat(
      "the weight fixes a relation of ", absl::StrJoin(cause.symbols, ", "), ", not each of them");
  std::vector<std::pair<std::string, int64_t>> sizes;
  std::vector<std::string> text;
  for (const std::string& symbol : fixed) {
    std::optional<int64_t> size = FixedSize(f, symbol);
    if (!size) {
      f.unfixable = relation;
      return;
    }
    sizes.emplace_back(symbol, *size);
    text.push_back(absl::StrCat(symbol, " = ", *size));
  }
  if (f.witness && !f.witness->relations.empty() && !RelationsHoldOnceFixed(analysis, sizes)) {
    f.unfixable = relation;
    return;
  }
  // Where the weight meets the dim by broadcasting (x + pos), size 1 runs too: the declaration
  // would refuse it, so the fix is unsafe.
  const bool broadcasts = std::any_of(cause.pins.begin(), cause.pins.end(), [](const Pin* pin) {
    return pin->requirement->relation == infer::Relation::kBroadcastable;
  });
  f.fix_it = DeclarationFix(
      analysis, broadcasts ? Applicability::kUnsafe : Applicability::kSafe, sizes,
      absl::StrCat("declare ", absl::StrJoin(text, ", "), ", the size the weight fixes",
                   broadcasts ? " (size 1 broadcasts as well, and is refused then)" : ""));
}

// True when the weight meets the dim by broadcasting (a table added to tokens), not by a
// contraction (a layer's features).
bool BroadcastsIn(const Cause& cause) {
  return std::any_of(cause.pins.begin(), cause.pins.end(), [](const Pin* pin) {
    return pin->requirement->relation == infer::Relation::kBroadcastable;
  });
}

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
      Finding f = FindingFor(analysis, cause, cause.node, "");
      // The dims the weight fixes: not those its requirement leaves free (a batch that cancels
      // out of the element count of a view the weight meets), which the declaration's repair
      // below leaves dynamic too.
      const std::vector<std::string> fixed =
          f.witness ? RestrictedSymbols(*f.witness, cause.symbols) : cause.symbols;
      f.message = absl::StrCat("weight '", cause.literal.name, "' [",
                               absl::StrJoin(cause.literal.dims, ", "), "] fixes ",
                               absl::StrJoin(fixed, ", "), ", which the inputs declare dynamic (",
                               r.what, ")");
      // The graph is right for the sizes it was built for: a note about the declaration. Unless
      // the exporter recorded that the line resamples the table (transformers'
      // interpolate_pos_encoding, timm's resample_abs_pos_embed) in a branch the trace did not
      // take at the export size: the source adapts the table and the graph does not, a
      // hypothesis of a bake (a warning) that a run of the module settles.
      const std::optional<std::string> resampler =
          BroadcastsIn(cause) ? ResamplingCall(*cause.graph, cause.graph->node(cause.node))
                              : std::nullopt;
      f.evidence = resampler ? Evidence::kHypothesis : Evidence::kDesign;
      if (resampler) {
        f.notes.push_back(
            {absl::StrCat("the exporter recorded '", *resampler,
                          "' on this node's stack, and the graph resamples nothing under it: the "
                          "module adapts the table to the input's grid in a branch the trace did "
                          "not take at the export size, and the graph kept the table's size; "
                          "eager PyTorch runs at the other sizes if the module resamples there"),
             std::nullopt});
      }
      f.attribute = cause.literal.name;
      f.fix =
          "declare these dims static (drop them from dynamic_axes / dynamic_shapes), or change "
          "the layer if the model is meant to take other sizes";
      if (analysis.fixes_wanted()) AddDeclarationFix(analysis, cause, fixed, f);
      out.push_back(std::move(f));
    }
  }
};

}  // namespace

std::unique_ptr<Rule> MakeDimFixedByWeight(const RuleInfo& info) {
  return std::make_unique<DimFixedByWeight>(info);
}

}  // namespace shapelint::lint
