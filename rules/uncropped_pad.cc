// SL013 uncropped-pad: a Reshape views a tensor the graph padded to a multiple as the size it
// had before padding.
//
// Window attention pads its feature map up to a multiple of the window, partitions it, and
// after attention merges the windows and crops the padding back off before it views the map
// as a sequence again. Hugging Face's Swin crops only `if was_padded:`, a Python bool on the
// size: traced at a multiple, the crop is not in the graph, while the pad (its amounts
// computed from the size) is. The graph then pads where the size is no multiple and views the
// padded map with the size from before padding: ONNX Runtime fails exactly where the padding
// was meant to let the model run, and eager PyTorch, which crops, runs there.
//
// The evidence is the graph's own: a Pad on the way to the view that grows an axis where the
// view fails and leaves it alone at the witness. The crop eager applies is inferred, not seen,
// so this is a hypothesis (a warning by the severity policy). SL010 leaves these relations to
// this rule (lint/padding.h).
//
// Where the padded tensor reaches a graph output with no view on the way (Video Swin crops back
// only `if pad_r > 0`), nothing fails: the output's axis is the input's size at a multiple and
// the padded size elsewhere. Same evidence, same hypothesis.
//
// Claims: nothing; it reads the requirements no rule reports through a cause, as SL010 does
// (Analysis::ReportedThroughCauses).
#include <set>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "lint/granule.h"
#include "lint/padding.h"
#include "lint/requirements.h"
#include "lint/rule.h"

namespace shapelint::lint {
namespace {

// How far from the witness a size is looked for at which the view fails (lint/requirements.h).
constexpr int64_t kNearby = 4;

class UncroppedPadRule : public Rule {
 public:
  using Rule::Rule;

  void Check(const Analysis& analysis, std::vector<Finding>& out) const override {
    const absl::flat_hash_set<const infer::Requirement*> claimed = Claimed(analysis);
    std::set<std::pair<const ir::Graph*, int>> reported;
    sym::Binding moved = analysis.witness();  // each try sets one symbol and puts it back
    for (const infer::Requirement& r : analysis.inference().requirements) {
      if (r.kind != infer::RequirementKind::kReshapeCount || r.graph == nullptr || r.node < 0 ||
          claimed.contains(&r) || reported.contains({r.graph, r.node})) {
        continue;
      }
      const std::vector<std::string> symbols = SymbolsOf(r);
      if (symbols.empty()) continue;
      std::optional<UncroppedPad> pad;
      std::optional<Counterexample> failure;
      FailingNear(r, symbols, analysis.witness(), moved, kNearby, [&](const sym::Binding& failing) {
        std::optional<UncroppedPad> p = PadNotCroppedBefore(analysis, r, failing);
        if (!p) return false;
        Counterexample c = analysis.Evaluate(failing);
        if (!c.node_fails || c.failing_node.index != r.node) return false;
        pad = p;
        failure = std::move(c);
        return true;
      });
      if (!pad) continue;
      reported.insert({r.graph, r.node});
      out.push_back(Report(analysis, r, symbols, *pad, std::move(*failure)));
    }
    CheckOutputs(analysis, out);
  }

 private:
  // The requirements other findings own: those reported through causes, and the bounds and
  // restrictions SL010 states.
  static absl::flat_hash_set<const infer::Requirement*> Claimed(const Analysis& analysis) {
    absl::flat_hash_set<const infer::Requirement*> claimed = analysis.ReportedThroughCauses();
    for (const Bound& b : analysis.bounds()) claimed.insert(b.requirement);
    for (const Pin& p : analysis.design_pins()) claimed.insert(p.requirement);
    return claimed;
  }

  // A graph output that returns the padded size: Video Swin pads D, H and W to multiples of its
  // window and crops back only `if pad_d1 > 0 or pad_r > 0 or pad_b > 0`; traced at multiples,
  // nothing crops, nothing fails, and the output is W padded up where eager returns W. An axis
  // that is an input's size at the witness and grows past it a size or a few on, where a Pad on
  // the way grows and does not at the witness, while every node runs there.
  void CheckOutputs(const Analysis& analysis, std::vector<Finding>& out) const {
    const ir::Graph& g = analysis.model().graph();
    bool pads = false;
    for (int i = 0; i < g.num_nodes() && !pads; ++i) pads = g.node(i).op_type() == "Pad";
    if (!pads) return;
    // One binding for every try, each size set and put back: a model with an output of rank
    // 10,000 has as many symbols, and a copy per axis would be quadratic.
    sym::Binding scratch = analysis.witness();
    for (const auto& o : g.proto().output()) {
      const infer::TensorFact* fact = analysis.inference().FindIn(g, o.name());
      const int producer = g.Producer(o.name());
      if (fact == nullptr || !fact->shape || producer < 0) continue;
      for (size_t axis = 0; axis < fact->shape->size(); ++axis) {
        const sym::MaybeExpr& dim = (*fact->shape)[axis];
        if (!dim || dim->AsConstant()) continue;
        for (const std::string& s : dim->Symbols()) {
          const std::optional<int64_t> base = SizeKept(analysis, *dim, s, scratch);
          if (!base) continue;
          if (std::optional<Finding> f =
                  PaddedOutput(analysis, producer, o.name(), axis, *dim, s, *base, scratch)) {
            out.push_back(std::move(*f));
            return;  // one per model: every output of the block shares the pad
          }
        }
      }
    }
  }

  // A size of `symbol` at which `dim` is that size, the others at the witness: its export size
  // where known (a multiple, where nothing was padded), else the first from the witness on
  // within a granule's reach (the witness itself may be padded: the model runs everywhere).
  // `at` holds the witness, and does again on return.
  static std::optional<int64_t> SizeKept(const Analysis& analysis, const sym::Expr& dim,
                                         const std::string& symbol, sym::Binding& at) {
    const std::optional<int64_t> from = at.Get(symbol);
    if (!from || *from > (int64_t{1} << 40)) return std::nullopt;
    std::vector<int64_t> tries;
    if (const std::optional<int64_t> e = analysis.example().Get(symbol);
        e && *e >= 1 && *e <= (int64_t{1} << 40)) {
      tries.push_back(*e);
    }
    for (int64_t size = *from; size <= *from + kMaxGranule; ++size) tries.push_back(size);
    const std::vector<std::string> others = dim.Symbols();
    std::optional<int64_t> kept_at;
    for (const int64_t size : tries) {
      at.Set(symbol, size);
      if (dim.Evaluate(at) != size) continue;
      // The axis is the size itself, not a count that meets it there (a batch of 2 times 2 rows
      // of windows times ceil(W / 4) windows is W at W = 12): moving another symbol keeps it.
      bool kept = true;
      for (const std::string& other : others) {
        const std::optional<int64_t> v = at.Get(other);
        if (other == symbol || !v || *v > (int64_t{1} << 40)) {
          kept = kept && other == symbol;
          continue;
        }
        at.Set(other, *v + 1);
        kept = kept && dim.Evaluate(at) == size;
        at.Set(other, *v);
      }
      if (kept) {
        kept_at = size;
        break;
      }
    }
    at.Set(symbol, *from);
    return kept_at;
  }

  // `at` holds the witness, and does again on return.
  std::optional<Finding> PaddedOutput(const Analysis& analysis, int producer,
                                      const std::string& output, size_t axis, const sym::Expr& dim,
                                      const std::string& symbol, int64_t size,
                                      sym::Binding& at) const {
    const ir::Graph& g = analysis.model().graph();
    const int64_t witness_size = *at.Get(symbol);
    std::optional<int64_t> grows_at;
    for (int64_t step = 1; step <= kNearby && !grows_at; ++step) {
      at.Set(symbol, size + step);
      const std::optional<int64_t> there = dim.Evaluate(at);
      if (!there || *there < size + step) break;
      if (*there > size + step) grows_at = size + step;
    }
    at.Set(symbol, witness_size);
    if (!grows_at) return std::nullopt;
    // Rare from here on (an axis that grows past its size): copies are fine.
    sym::Binding holds = at;
    holds.Set(symbol, size);
    sym::Binding moved = at;
    moved.Set(symbol, *grows_at);
    const std::optional<int64_t> there = dim.Evaluate(moved);
    if (!there) return std::nullopt;
    const std::optional<UncroppedPad> pad = PadGrowingBefore(analysis, g, producer, holds, moved);
    if (!pad) return std::nullopt;
    Counterexample c = analysis.Evaluate(moved);
    if (c.node_fails) return std::nullopt;
    const std::string padded = std::string(g.node(pad->pad_node).output(0));
    c.failing_node = analysis.Ref(g, producer);
    c.failure = absl::StrCat("output '", output, "' axis ", axis, " is ", *there, " for ", symbol,
                             " = ", *grows_at, ": the size padded up, which nothing crops back");
    Finding f = FindingAt(
        analysis, g, producer, Evidence::kHypothesis,
        absl::StrCat("output '", output, "' axis ", axis, " is ", dim.ToString(kMaxExprText), ": ",
                     symbol, " where ", symbol, " = ", size, ", and ", symbol,
                     " padded up to a multiple at other sizes (the Pad making '", padded,
                     "'); nothing in the graph crops the padding back"));
    f.symbols = {symbol};
    // Every size runs; what holds only at some is the output's size. No residue class
    // (SymbolRange::congruent_from) is stated: the model does not fail outside it.
    Witness w;
    w.ranges.push_back(SymbolRange::Between(symbol, size, size, size));
    for (int64_t k = 2; k <= kMaxGranule; ++k) {
      moved.Set(symbol, size + k);
      if (dim.Evaluate(moved) == size + k) {
        w.ranges.back().every = k;
        break;
      }
    }
    w.summary =
        w.ranges.back().every
            ? (size % *w.ranges.back().every == 0
                   ? absl::StrCat("returns ", symbol, " unpadded only where it is a multiple of ",
                                  *w.ranges.back().every)
                   : absl::StrCat("returns ", symbol, " unpadded only where it is ", size,
                                  " plus a multiple of ", *w.ranges.back().every))
            : absl::StrCat("returns ", symbol, " unpadded at ", symbol, " = ", size);
    f.witness = std::move(w);
    f.counterexample = std::move(c);
    f.notes.push_back(
        {absl::StrCat("the Pad making '", padded, "' pads by ", pad->grown_by,
                      " at the counterexample and by 0 at ", symbol, " = ", size,
                      ": the model pads to a "
                      "multiple (of a window, a patch) and eager PyTorch crops the padding off "
                      "before it returns, in a branch on a size (`if pad_r > 0:`) that the "
                      "trace, at a multiple, did not take; a model that returns the padded map "
                      "on purpose does so in eager PyTorch too"),
         analysis.Ref(g, pad->pad_node)});
    f.fix = absl::StrCat(
        "crop the padding back unconditionally before returning (x[..., :H, :W] also when "
        "nothing was padded: the trace then records it), or serve and profile ",
        symbol, " at the sizes the witness gives");
    f.unfixable =
        "the crop eager PyTorch applies is not in the graph, and where it cuts is not recorded";
    return f;
  }

  Finding Report(const Analysis& analysis, const infer::Requirement& r,
                 const std::vector<std::string>& symbols, const UncroppedPad& pad,
                 Counterexample failure) const {
    const ir::Graph& graph = *r.graph;
    const ir::Node reshape = graph.node(r.node);
    const ir::Node padding = graph.node(pad.pad_node);
    const infer::TensorFact* input = analysis.inference().FindIn(graph, reshape.input(0));
    const infer::TensorFact* output =
        reshape.output_size() > 0 ? analysis.inference().FindIn(graph, reshape.output(0)) : nullptr;
    const std::string padded =
        padding.output_size() > 0 ? std::string(padding.output(0)) : std::string();
    const std::string growth = pad.growth ? pad.growth->ToString(kMaxExprText) : "?";
    std::string viewed = absl::StrCat("'", std::string(reshape.input(0)), "'");
    if (input != nullptr && input->shape) absl::StrAppend(&viewed, " ", FormatDims(*input->shape));
    if (output != nullptr && output->shape) {
      absl::StrAppend(&viewed, " as ", FormatDims(*output->shape));
    }
    Finding f = FindingAt(
        analysis, graph, r.node, Evidence::kHypothesis,
        absl::StrCat("Reshape views ", viewed, ", a tensor padded on axis ", pad.axis, " by ",
                     growth, " (the Pad making '", padded,
                     "'), with the size from before "
                     "padding: the element counts agree only where nothing is padded, and "
                     "nothing in the graph crops the padding back"));
    f.symbols = symbols;
    f.witness = analysis.RepeatingWitnessFor(symbols);
    f.counterexample = std::move(failure);
    f.notes.push_back(
        {absl::StrCat("the Pad making '", padded, "' pads by ", pad.grown_by,
                      " at the counterexample and by 0 at the witness: the graph pads so that "
                      "the view can run at sizes that are no multiple, and eager PyTorch crops "
                      "the padding off before the view, in a branch on a size (`if "
                      "was_padded:`) that the trace, at a multiple, did not take"),
         analysis.Ref(graph, pad.pad_node)});
    f.fix = absl::StrCat(
        "crop the padding back unconditionally before the view (x[:, :height, :width] also when "
        "nothing was padded: the trace then records it), or serve and profile ",
        absl::StrJoin(symbols, ", "), " at the sizes the witness gives");
    f.unfixable =
        "the crop eager PyTorch applies is not in the graph, and where it cuts (which rows and "
        "columns the padding added) is not recorded";
    return f;
  }
};

}  // namespace

std::unique_ptr<Rule> MakeUncroppedPad(const RuleInfo& info) {
  return std::make_unique<UncroppedPadRule>(info);
}

}  // namespace shapelint::lint
