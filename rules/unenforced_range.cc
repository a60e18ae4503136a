// SL014 unenforced-range: torch.export recorded a bounded range for a dynamic dim that the graph
// does not enforce.
//
// torch.export records, per symbol, the range of sizes its guards allow (range_constraints). A
// guard that bounds a size without pinning it comes from code that compared the size with a
// number: a Python branch (`if h > 11: x = self.down(x)`), an assert or torch._check. A branch
// is traced once, at the example: the graph holds the path the example took, and the range
// records where that path is the right one (height in [0, 11]). ONNX keeps the range only as
// metadata; ONNX Runtime runs the graph at every size, so past the bound it computes the taken
// path where eager PyTorch takes the other. A check of the module's own (an assert, a table
// only so long) leaves the same record and eager refuses those sizes too.
//
// The evidence is the exporter's record and the graph's own evaluation: the graph runs, with
// every output's shape known, at a size just outside the recorded range. Which reading holds,
// a branch missing from the graph or a limit of the module, only a run of the module tells, so
// this is a hypothesis (a warning by the severity policy). A range the graph enforces itself (a
// table of 64 positions fails past 64) is the module's design, which SL010 reports. The narrow
// ranges that a read of a batch of 1 leaves (VR[1, 2]) and lower bounds of 2 (torch.export's
// 0/1 specialization) are no guard of the code. A lower bound (`stride = 2 if h >= 8 else 1`
// leaves VR[8, int_oo]) is read at the bound minus one, unless the ops explain it: where an op
// needs the size (a window, a reflect pad) the graph fails below it, and a size the graph
// computes that falls to 1 or 0 there is what torch.export's specialization bounded.
//
// Claims: nothing; it reads the exporter's record in Check.
#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "lint/export_ranges.h"
#include "lint/provenance.h"
#include "lint/requirements.h"
#include "lint/rule.h"

namespace shapelint::lint {
namespace {

// The smallest upper bound read as a guard of the code: a batch read at 1 leaves [1, 2].
constexpr int64_t kSmallestGuardedMax = 3;
// The smallest lower bound read as a guard of the code: 2 is torch.export's 0/1 specialization.
constexpr int64_t kSmallestGuardedMin = 3;
// Past this an upper bound guards no size anyone runs, and one more would overflow.
constexpr int64_t kLargestGuardedMax = int64_t{1} << 62;

class UnenforcedRange : public Rule {
 public:
  using Rule::Rule;

  void Check(const Analysis& analysis, std::vector<Finding>& out) const override {
    const ir::Graph& graph = analysis.model().graph();
    if (analysis.recorded_bounds().empty()) return;
    absl::flat_hash_set<std::string> seen;
    for (const infer::InputDim& d : analysis.inference().input_dims) {
      const std::optional<std::string_view> name = d.dim ? d.dim->AsSymbol() : std::nullopt;
      if (!name) continue;
      const std::string symbol(*name);
      auto it = analysis.recorded_bounds().find(symbol);
      if (it == analysis.recorded_bounds().end() || !seen.insert(symbol).second) continue;
      const ExportRange& range = it->second;
      std::optional<Outside> outside;
      if (range.max && *range.max >= kSmallestGuardedMax && *range.max < kLargestGuardedMax) {
        outside = RunsAt(analysis, symbol, *range.max + 1);
      }
      if (!outside && range.min && *range.min >= kSmallestGuardedMin &&
          *range.min < kLargestGuardedMax && !SizeLeavesBound(analysis, symbol, *range.min)) {
        outside = RunsAt(analysis, symbol, *range.min - 1);
      }
      if (outside) out.push_back(Report(analysis, graph, d, symbol, range, *outside));
    }
  }

 private:
  // Whether a size the graph computes from `symbol` explains the lower bound `min` without a
  // comparison in the code. torch.export takes no size it computes to be 0 or 1 (its 0/1
  // specialization: a stage that pools a map down to 2 x 2 bounds the input from below), and
  // eager ops refuse a negative count (arange of (n - 16) // 4 + 1 frames): so a dim that is 2
  // or more at `min` and 1 or 0 just below, or 1 and then 0, or an integer the graph computes
  // that is 0 or more at `min` and negative below, is what bounded the symbol.
  static bool SizeLeavesBound(const Analysis& analysis, const std::string& symbol, int64_t min) {
    sym::Binding at = analysis.ExampleOverWitness();
    at.Set(symbol, min);
    sym::Binding below = at;
    below.Set(symbol, min - 1);
    sym::Evaluator on(at);
    sym::Evaluator under(below);
    // Below `under_below` just under the bound, and at least `there_from` at it.
    const auto falls = [&](const sym::MaybeExpr& e, int64_t under_below, int64_t there_from) {
      if (!e || e->AsConstant()) return false;
      const std::optional<int64_t> here = under(*e);
      if (!here || *here >= under_below) return false;
      const std::optional<int64_t> there = on(*e);
      return there && *there > *here && *there >= there_from;
    };
    for (const infer::TensorFact& fact : analysis.inference().facts) {
      if (fact.shape) {
        for (const sym::MaybeExpr& dim : *fact.shape) {
          if (falls(dim, 2, 1)) return true;
        }
      }
      if (fact.values) {
        for (const infer::Element& v : *fact.values) {
          if (falls(v.value, 0, 0)) return true;
        }
      }
    }
    return false;
  }

  // The graph at a size outside the recorded range: it runs there, every output known.
  struct Outside {
    int64_t size = 0;
    Counterexample run;
  };

  static std::optional<Outside> RunsAt(const Analysis& analysis, const std::string& symbol,
                                       int64_t size) {
    sym::Binding at = analysis.ExampleOverWitness();
    at.Set(symbol, size);
    Counterexample run = analysis.Evaluate(at);
    if (run.node_fails ||
        std::cmp_not_equal(run.outputs.size(), analysis.model().graph().proto().output_size())) {
      return std::nullopt;
    }
    return Outside{size, std::move(run)};
  }

  static std::string RangeText(const std::string& symbol, const ExportRange& r) {
    return absl::StrCat(symbol, " in [", r.min ? absl::StrCat(*r.min) : "0", ", ",
                        r.max ? absl::StrCat(*r.max) : "int_oo", "]");
  }

  static std::string ShapesText(const std::vector<ShapeAt>& shapes) {
    std::vector<std::string> parts;
    parts.reserve(shapes.size());
    for (const ShapeAt& s : shapes) {
      parts.push_back(absl::StrCat(s.value, " ", FormatDims(s.actual)));
    }
    return absl::StrJoin(parts, ", ");
  }
  static std::string ShapesText(
      const std::vector<std::pair<std::string, std::vector<int64_t>>>& shapes) {
    std::vector<std::string> parts;
    parts.reserve(shapes.size());
    for (const auto& [name, dims] : shapes) {
      parts.push_back(absl::StrCat(name, " ", FormatDims(dims)));
    }
    return absl::StrJoin(parts, ", ");
  }

  Finding Report(const Analysis& analysis, const ir::Graph& graph, const infer::InputDim& d,
                 const std::string& symbol, const ExportRange& range,
                 const Outside& outside) const {
    const std::string recorded = RangeText(symbol, range);
    // Shown at the input's first reader that records a user's line, as SL011 shows its record.
    const int reader = ReaderToShow(graph, d.input);
    Finding f = FindingAt(
        analysis, graph, reader, Evidence::kHypothesis,
        absl::StrCat("torch.export traced input '", d.input, "' axis ", d.axis, " (", symbol,
                     ") only for ", recorded, " (range_constraints), but the graph runs at ",
                     symbol, " = ", outside.size,
                     " as well: code that compared the size with a number (a Python branch, an "
                     "assert) guarded the trace, and nothing in the graph does"));
    f.attribute = absl::StrCat("input '", d.input, "' axis ", d.axis);
    f.symbols = {symbol};
    Witness w;
    w.ranges.push_back(SymbolRange::Between(
        symbol, analysis.ExampleOverWitness().Get(symbol).value_or(0), range.min, range.max));
    w.summary = absl::StrCat("traced, by the exporter's record, for ", recorded);
    f.witness = std::move(w);
    f.notes.push_back(
        {absl::StrCat("at ", symbol, " = ", outside.size, " (", ShapesText(outside.run.inputs),
                      ") the graph runs and returns ", ShapesText(outside.run.outputs),
                      ": if forward branches on the size, this is the branch the example took, "
                      "and eager PyTorch takes the other there; if the bound is a check of the "
                      "module's own, eager refuses that size too. A run of the module at ",
                      symbol, " = ", outside.size, " settles which (onnx-shapelint confirm)"),
         std::nullopt});
    f.fix = absl::StrCat(
        "serve ", symbol,
        " only inside the recorded range, or make the branch part of the graph (torch.cond, or "
        "tensor code such as torch.where instead of a Python if on the size) and export again");
    return f;
  }
};

}  // namespace

std::unique_ptr<Rule> MakeUnenforcedRange(const RuleInfo& info) {
  return std::make_unique<UnenforcedRange>(info);
}

}  // namespace shapelint::lint
