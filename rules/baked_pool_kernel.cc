// SL001 baked-pool-kernel: a pooling window computed from the example input size.
//
// Exporters without a dynamic adaptive pool decompose adaptive_avg_pool2d(x, out) at an input
// size divisible by `out` into AveragePool(kernel = in / out, stride = in / out). The window
// then yields `out` only at that input size; elsewhere the pooled map silently grows or shrinks.
//
// Claims: a pooling node on the failure's path whose spatial output changes with the moved
// size and that has the decomposition's signature: windows that tile the input exactly
// (strides == kernel_shape, no padding) and either a window of 1 (a no-op pool nobody writes
// by hand) or a declared fixed pooled size.
//
// Also, without a failure: torch.export decomposes adaptive pooling the same way and declares
// the output as the fixed window computes it ((s53//4)), so nothing in the shapes contradicts.
// The exporter records where the node came from; a pool with the signature whose recorded
// PyTorch code is an adaptive pool (the stack trace's line, or AdaptiveAvgPool2d in the module
// classes) is reported with the sizes at which its output grows where adaptive pooling's
// would not.
#include <numeric>

#include "absl/status/statusor.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "lint/fix_builder.h"
#include "lint/provenance.h"
#include "lint/recorded_sizes.h"
#include "lint/rule.h"

namespace shapelint::lint {
namespace {

// Dims before the spatial ones: batch and channels.
constexpr size_t kSpatialBegin = 2;

// A pool with its data input and output present. Every read below takes input 0 and output 0
// for granted; a mutated or hand-written model may have neither.
bool IsPool(ir::Node n) {
  const std::string& op = n.op_type();
  return (op == "AveragePool" || op == "MaxPool" || op == "LpPool") && n.input_size() > 0 &&
         !n.input(0).empty() && n.output_size() > 0 && !n.output(0).empty();
}

std::vector<int64_t> IntsOf(ir::Node node, std::string_view attr) {
  return node.IntsAttribute(attr).value_or({});
}

// "[3, 2]", or "[1, ...]" for an attribute the node leaves at its default.
std::string Ints(ir::Node node, std::string_view attr) {
  if (node.IntsAttribute(attr).absent()) return "[1, ...]";
  return absl::StrCat("[", absl::StrJoin(IntsOf(node, attr), ", "), "]");
}

// True when the spatial dims of the node's output differ between the witness and the moved
// sizes (only batch or channels changing is not the window's doing).
bool SpatialChanged(const BlameSite& site, ir::Node node) {
  const std::string_view out = node.output(0);
  auto a = site.DimsAtWitness(out), b = site.DimsAtMoved(out);
  if (!a || !b || a->size() != b->size() || a->size() <= kSpatialBegin) return a != b;
  return !std::equal(a->begin() + kSpatialBegin, a->end(), b->begin() + kSpatialBegin);
}

// True when the graph declares the node's pooled size fixed (every spatial dim a number).
bool DeclaresFixedPooledSize(const ir::Graph& g, ir::Node node) {
  const std::string_view out = node.output(0);
  for (const auto* vi : {g.Output(out), g.ValueInfo(out)}) {
    if (vi == nullptr || !vi->type().tensor_type().has_shape()) continue;
    const auto& s = vi->type().tensor_type().shape();
    if (s.dim_size() <= static_cast<int>(kSpatialBegin)) continue;
    bool fixed = true;
    for (int i = kSpatialBegin; i < s.dim_size(); ++i) fixed = fixed && s.dim(i).has_dim_value();
    if (fixed) return true;
  }
  return false;
}

// Windows that tile the input exactly: strides == kernel_shape, no padding.
bool TilesExactly(ir::Node n) {
  const std::vector<int64_t> kernel = IntsOf(n, "kernel_shape");
  std::vector<int64_t> strides = IntsOf(n, "strides");
  const std::vector<int64_t> pads = IntsOf(n, "pads");
  if (kernel.empty()) return false;
  if (strides.empty()) strides.assign(kernel.size(), 1);
  return strides == kernel &&
         std::all_of(pads.begin(), pads.end(), [](int64_t p) { return p == 0; });
}

// True when `text` names an adaptive pool in any of PyTorch's spellings: F.adaptive_avg_pool2d,
// nn.AdaptiveMaxPool1d, aten.adaptive_avg_pool2d.
bool NamesAdaptivePool(std::string text) {
  text.erase(std::remove(text.begin(), text.end(), '_'), text.end());
  absl::AsciiStrToLower(&text);
  return absl::StrContains(text, "adaptiveavgpool") || absl::StrContains(text, "adaptivemaxpool");
}

// True when the exporter recorded that the node came from an adaptive pool: in the module
// classes it is in, or in the PyTorch line that made it.
bool RecordedAsAdaptivePool(ir::Node n) {
  const std::vector<std::string> classes = ClassHierarchy(n);
  if (std::any_of(classes.begin(), classes.end(), NamesAdaptivePool)) return true;
  const std::optional<SourceLocation> source = SourceOf(n);
  return source && NamesAdaptivePool(source->code);
}

bool IsDecomposedAdaptivePool(const BlameSite& site, int index) {
  const ir::Node n = site.graph().node(index);
  if (!IsPool(n) || !SpatialChanged(site, n)) return false;
  const std::vector<int64_t> kernel = IntsOf(n, "kernel_shape");
  std::vector<int64_t> strides = IntsOf(n, "strides");
  const std::vector<int64_t> pads = IntsOf(n, "pads");
  if (kernel.empty()) return false;
  if (strides.empty()) strides.assign(kernel.size(), 1);
  // Adaptive pooling decomposed at a divisible size: windows tile the input exactly.
  if (strides != kernel) return false;
  if (std::any_of(pads.begin(), pads.end(), [](int64_t p) { return p != 0; })) return false;
  // A window of 1 with stride 1 does nothing; only the decomposition writes that.
  if (std::all_of(kernel.begin(), kernel.end(), [](int64_t k) { return k == 1; })) return true;
  // Or the model promises a fixed pooled size that the window only gives at one size.
  return DeclaresFixedPooledSize(site.graph(), n);
}

// Inside the witness range the pooled size is right, but adaptive pooling's values come out
// only where each window tiles the input exactly (input == kernel * output), i.e. at the
// export size. Says where that is, when it is narrower than the range.
std::optional<std::string> ExactTiling(const Analysis& analysis, const Cause& cause,
                                       const Finding& finding) {
  if (!finding.witness) return std::nullopt;
  const auto& node = cause.graph->node(cause.node);
  const auto kernel = IntsOf(node, "kernel_shape");
  const infer::TensorFact* in = analysis.inference().Find(node.input(0));
  auto out = analysis.DimsAt(node.output(0), analysis.witness());
  if (in == nullptr || !in->shape || !out || in->shape->size() != kernel.size() + kSpatialBegin) {
    return std::nullopt;
  }
  std::vector<std::string> exact;
  bool narrower = false;
  for (const SymbolRange& r : finding.witness->ranges) {
    if (!r.min || !r.max) return std::nullopt;
    std::vector<int64_t> good;
    for (int64_t v = *r.min; v <= *r.max; ++v) {
      sym::Binding b = analysis.witness();
      b.Set(r.symbol, v);
      bool tiles = true;
      for (size_t i = 0; i < kernel.size(); ++i) {
        const auto& dim = (*in->shape)[i + kSpatialBegin];
        auto size = dim ? dim->Evaluate(b) : std::nullopt;
        tiles = tiles && size == kernel[i] * (*out)[i + kSpatialBegin];
      }
      if (tiles) good.push_back(v);
    }
    if (good.size() != 1) return std::nullopt;  // only a single exact size is worth stating
    narrower = narrower || *r.min != *r.max;
    exact.push_back(absl::StrCat(r.symbol, " = ", good[0]));
  }
  if (!narrower || exact.empty()) return std::nullopt;
  return absl::StrCat("the values match adaptive pooling only where the windows tile the input ",
                      "exactly (", absl::StrJoin(exact, ", "),
                      "); elsewhere in the range the shape is right and the values are not");
}

// The fix-it: the adaptive pool the exporter decomposed, its windows computed from the input's
// size. It pools to the size the fixed window gives where it is right (SizesOfThePool): there
// the windows tile the input exactly and the adaptive windows are the old ones, so the fix is
// safe.

// Average pooling sums in double: a running sum over a long axis loses float precision.
constexpr int64_t kDouble = ONNX_NAMESPACE::TensorProto::DOUBLE;
// CumSum exists, and Pad takes its pads as an input, from opset 11; Slice takes its starts and
// ends as inputs from opset 10.
constexpr int64_t kCumSumOpset = 11;
constexpr int64_t kSliceInputsOpset = 10;
// ReduceMax takes its axes as an input from this opset on.
constexpr int64_t kReduceAxesInputOpset = 18;

// What the lowering needs to know of a pool it can repair.
struct PoolFixPlan {
  bool average = false;
  int64_t rank = 0;
  std::vector<int64_t> out;  // the pooled size per spatial axis
  int32_t elem_type = 0;     // of the input, which the output shares
};

std::string Bracketed(const std::vector<int64_t>& v) {
  return absl::StrCat("[", absl::StrJoin(v, ", "), "]");
}

// Pooling to 1 everywhere: the global pool, which needs no windows.
bool PoolsToOne(const PoolFixPlan& plan) {
  return std::all_of(plan.out.begin(), plan.out.end(), [](int64_t o) { return o == 1; });
}

// The input's element type: inferred, else declared.
int32_t ElemTypeOf(const Analysis& analysis, const ir::Graph& g, std::string_view value) {
  const infer::TensorFact* fact = analysis.inference().Find(value);
  if (fact != nullptr && fact->elem_type != 0) return fact->elem_type;
  for (const auto* vi : {g.Input(value), g.ValueInfo(value)}) {
    if (vi != nullptr && vi->type().tensor_type().elem_type() != 0) {
      return vi->type().tensor_type().elem_type();
    }
  }
  return 0;
}

// Why the pool cannot be repaired, as a FailedPrecondition; else what the repair needs.
// The sizes at which the pool's window is the adaptive one: the export sizes when given; else
// the witness, when a failure pins the pooled size there (`pinned`: VGG's classifier takes only
// 7x7); nullopt when neither tells (a pool found by its recorded code: the witness is any size
// at which the window fits, 3 for a kernel of 3, not the export's 12).
std::optional<sym::Binding> SizesOfThePool(const Analysis& analysis, bool pinned) {
  if (analysis.has_example()) {
    sym::Binding at = analysis.witness();
    analysis.example().ForEach(
        [&](std::string_view symbol, int64_t size) { at.Set(symbol, size); });
    return at;
  }
  if (pinned) return analysis.witness();
  return std::nullopt;
}

absl::StatusOr<PoolFixPlan> PlanFix(const Analysis& analysis, const ir::Graph& g, ir::Node n,
                                    bool pinned) {
  auto unfixable = [](const char* why) { return absl::FailedPreconditionError(why); };
  if (&g != &analysis.model().graph()) return unfixable("in a subgraph");
  if (n.op_type() == "LpPool") return unfixable("LpPool has no adaptive form");
  PoolFixPlan plan;
  plan.average = n.op_type() == "AveragePool";
  const int64_t opset = analysis.model().OpsetVersion("");
  if (opset < (plan.average ? kCumSumOpset : kSliceInputsOpset)) {
    return unfixable(plan.average ? "opset < 11" : "opset < 10");
  }
  if (n.output_size() > 1 && !n.output(1).empty()) {
    return unfixable("MaxPool's Indices output has no adaptive form");
  }
  const std::vector<int64_t> dilations = IntsOf(n, "dilations");
  if (std::any_of(dilations.begin(), dilations.end(), [](int64_t d) { return d != 1; })) {
    return unfixable("dilated windows have no adaptive form");
  }
  const std::optional<sym::Binding> at = SizesOfThePool(analysis, pinned);
  if (!at) {
    return unfixable(
        "no failure pins the pooled size and no export size was given: the size it pools to is "
        "not known (give --export-dims)");
  }
  const auto in = analysis.DimsAt(n.input(0), *at);
  const std::vector<int64_t> kernel = IntsOf(n, "kernel_shape");
  if (!in) return unfixable("the input's spatial size at the witness is unknown");
  if (in->size() != kernel.size() + kSpatialBegin) {
    return unfixable("the kernel's rank does not match the input's");
  }
  plan.rank = static_cast<int64_t>(in->size());
  for (size_t i = 0; i < kernel.size(); ++i) {
    const int64_t size = (*in)[i + kSpatialBegin];
    if (kernel[i] <= 0 || size < kernel[i] || size % kernel[i] != 0) {
      return unfixable(
          "kernel does not divide the input at the witness (give the export size: --export-dims)");
    }
    plan.out.push_back(size / kernel[i]);
  }
  plan.elem_type = ElemTypeOf(analysis, g, n.input(0));
  if (plan.elem_type == 0) return unfixable("the input's element type is unknown");
  return plan;
}

// Adaptive pooling's windows along one axis of size H into `out`: window i covers
// [floor(i*H/out), ceil((i+1)*H/out)), which overlap when `out` does not divide H, as
// PyTorch's do. 1-D int64 tensors of length `out`.
struct Windows {
  std::string starts;
  std::string ends;
};

Windows WindowsAlong(FixBuilder& b, std::string_view x, int64_t axis, int64_t out) {
  std::vector<int64_t> index(out);
  std::iota(index.begin(), index.end(), 0);
  std::vector<int64_t> next = index;
  for (int64_t& i : next) ++i;
  const std::string size = b.DimOf(x, axis);
  const std::string count = b.Ints({out});
  Windows w;
  const std::string before = b.Add("Mul", {b.Ints(index), size}, {}, "window_start_scaled");
  w.starts = b.Add("Div", {before, count}, {}, "window_starts");
  // ceil(a / out) as floor((a + out - 1) / out): Div truncates, and sizes are never negative.
  const std::string after = b.Add("Mul", {b.Ints(next), size}, {}, "window_end_scaled");
  const std::string rounded_up = b.Add("Add", {after, b.Ints({out - 1})}, {}, "window_end_rounded");
  w.ends = b.Add("Div", {rounded_up, count}, {}, "window_ends");
  return w;
}

// The mean of (double) `t` over the windows along `axis`: a window's sum is the difference of
// a running sum with a zero in front, C[end] - C[start], one Gather each for every window.
std::string AverageAlong(FixBuilder& b, const std::string& t, const Windows& w, int64_t axis,
                         int64_t rank, int64_t out) {
  std::vector<int64_t> pads(2 * rank, 0);
  pads[axis] = 1;  // one zero before the axis' first element
  const std::string padded = b.Add("Pad", {t, b.Ints(pads)}, {}, "padded");
  const std::string running =
      b.Add("CumSum", {padded, b.Ints({axis}, /*scalar=*/true)}, {}, "running_sum");
  const FixBuilder::Attributes along = {{{"axis", axis}}, {}};
  const std::string to_end = b.Add("Gather", {running, w.ends}, along, "sum_to_end");
  const std::string to_start = b.Add("Gather", {running, w.starts}, along, "sum_to_start");
  const std::string sum = b.Add("Sub", {to_end, to_start}, {}, "window_sum");
  // The window lengths as [out, 1, ...]: broadcast along the axes after this one.
  std::vector<int64_t> counts_shape(rank - axis, 1);
  counts_shape[0] = out;
  const std::string length = b.Add("Sub", {w.ends, w.starts}, {}, "window_length");
  const std::string as_double = b.Add("Cast", {length}, {{{"to", kDouble}}, {}}, "window_length");
  const std::string counts = b.Add("Reshape", {as_double, b.Ints(counts_shape)}, {}, "counts");
  return b.Add("Div", {sum, counts}, {}, "window_mean");
}

// The max of `t` along `axis` (`axes` holds it), kept as a dim of 1.
std::string ReduceMaxAlong(FixBuilder& b, const std::string& t, int64_t axis,
                           const std::string& axes, std::string_view output) {
  if (b.opset() >= kReduceAxesInputOpset) {
    return b.Add("ReduceMax", {t, axes}, {{{"keepdims", 1}}, {}}, "window_max", output);
  }
  return b.Add("ReduceMax", {t}, {{{"keepdims", 1}}, {{"axes", {axis}}}}, "window_max", output);
}

// The max of `t` over the windows along `axis`: each window sliced out and reduced, the
// results joined. The last node writes `output` when given.
std::string MaxAlong(FixBuilder& b, const std::string& t, const Windows& w, int64_t axis,
                     int64_t out, std::string_view output) {
  const std::string axes = b.Ints({axis});
  std::vector<std::string> index;
  for (int64_t i = 0; i <= out; ++i) index.push_back(b.Ints({i}));
  std::vector<std::string> maxima;
  for (int64_t i = 0; i < out; ++i) {
    const std::string start = b.Add("Slice", {w.starts, index[i], index[i + 1]}, {}, "start");
    const std::string end = b.Add("Slice", {w.ends, index[i], index[i + 1]}, {}, "end");
    const std::string window = b.Add("Slice", {t, start, end, axes}, {}, "window");
    maxima.push_back(ReduceMaxAlong(b, window, axis, axes, out == 1 ? output : ""));
  }
  if (out == 1) return maxima[0];
  return b.Add("Concat", maxima, {{{"axis", axis}}, {}}, "window_maxima", output);
}

// Builds the lowering of `plan` for pool `n`, whose output the last node writes. Pooling a
// rectangle is separable: the mean (max) over it is the mean (max) over rows of the mean (max)
// over columns, so the axes are pooled one after the other.
void Lower(FixBuilder& b, ir::Node n, const PoolFixPlan& plan) {
  const std::string x(n.input(0)), y(n.output(0));
  if (PoolsToOne(plan)) {
    b.Add(plan.average ? "GlobalAveragePool" : "GlobalMaxPool", {x}, {}, "", y);
    return;
  }
  std::string t = plan.average ? b.Add("Cast", {x}, {{{"to", kDouble}}, {}}, "as_double") : x;
  for (int64_t axis = kSpatialBegin; axis < plan.rank; ++axis) {
    const int64_t out = plan.out[axis - kSpatialBegin];
    const Windows w = WindowsAlong(b, x, axis, out);
    if (plan.average) {
      t = AverageAlong(b, t, w, axis, plan.rank, out);
    } else {
      t = MaxAlong(b, t, w, axis, out, axis + 1 == plan.rank ? y : "");
    }
  }
  if (plan.average) b.Add("Cast", {t}, {{{"to", plan.elem_type}}, {}}, "", y);
}

// Attaches the repair of pool `n` of `g` to its finding, or why there is none.
void AttachFix(const Analysis& analysis, const ir::Graph& g, ir::Node n, bool pinned, Finding& f) {
  absl::StatusOr<PoolFixPlan> plan = PlanFix(analysis, g, n, pinned);
  if (!plan.ok()) {
    f.unfixable = std::string(plan.status().message());
    return;
  }
  // The command line names the node before the description: say only what it becomes.
  const std::string what =
      PoolsToOne(*plan)
          ? absl::StrCat(plan->average ? "GlobalAveragePool" : "GlobalMaxPool", ", which pools to ",
                         Bracketed(plan->out), " at every input size")
          : absl::StrCat("adaptive ", plan->average ? "average" : "max", " pooling to ",
                         Bracketed(plan->out), ", computed from the input's size");
  FixBuilder b(analysis, n.index(), Applicability::kSafe,
               absl::StrCat("kernel ", Ints(n, "kernel_shape"), " becomes ", what));
  Lower(b, n, *plan);
  b.Replace(n.index());
  f.fix_it = std::move(b).Take();
}

class BakedPoolKernel : public Rule {
 public:
  using Rule::Rule;

  bool ClaimsNode(const BlameSite& site, int node) const override {
    return IsDecomposedAdaptivePool(site, node);
  }

  void Check(const Analysis& analysis, std::vector<Finding>& out) const override {
    for (const Cause& cause : analysis.causes()) {
      if (!Owns(cause)) continue;
      const auto& node = cause.graph->node(cause.node);
      std::string pooled = "the pooled size";
      if (auto dims = analysis.DimsAt(node.output(0), analysis.witness());
          dims && dims->size() > kSpatialBegin) {
        pooled = absl::StrCat("the pooled size [",
                              absl::StrJoin(dims->begin() + kSpatialBegin, dims->end(), ", "), "]");
      }
      Finding f =
          FindingFor(analysis, cause, cause.node,
                     absl::StrCat(node.op_type(), " kernel_shape=", Ints(node, "kernel_shape"),
                                  ", strides=", Ints(node, "strides"),
                                  " was computed from the example input size: ", pooled,
                                  " holds only at that size (adaptive pooling decomposed)"));
      if (auto note = ExactTiling(analysis, cause, f)) f.notes.push_back({*note, std::nullopt});
      f.attribute = "kernel_shape";
      f.fix = kFix;
      if (analysis.fixes_wanted()) AttachFix(analysis, *cause.graph, node, /*pinned=*/true, f);
      out.push_back(std::move(f));
    }
    ReportRecordedAdaptivePools(analysis, out);
  }

 private:
  static constexpr char kFix[] =
      "export with a static spatial size, or with an exporter that lowers adaptive pooling "
      "dynamically (e.g. CumSum + Gather); for an output size of 1 use GlobalAveragePool";
  // How far past the example the search for a size that grows the pooled map goes, in windows.
  static constexpr int kMaxWindowsMoved = 4;

  // The pools the exporter recorded as adaptive whose windows tile the input exactly and whose
  // input moves with the sizes: reported without a failure, which the declared shapes hide.
  void ReportRecordedAdaptivePools(const Analysis& analysis, std::vector<Finding>& out) const {
    const ir::Graph& g = analysis.model().graph();
    for (int index : g.topological_order()) {
      const ir::Node n = g.node(index);
      if (!IsPool(n) || !TilesExactly(n) || analysis.Claimed(g, index) ||
          !RecordedAsAdaptivePool(n)) {
        continue;
      }
      if (std::optional<Finding> f = RecordedAdaptivePool(analysis, g, n)) {
        out.push_back(*std::move(f));
      }
    }
  }

  std::optional<Finding> RecordedAdaptivePool(const Analysis& analysis, const ir::Graph& g,
                                              ir::Node n) const {
    const infer::TensorFact* in = analysis.inference().Find(n.input(0));
    const std::vector<int64_t> kernel = IntsOf(n, "kernel_shape");
    if (in == nullptr || !in->shape || in->shape->size() != kernel.size() + kSpatialBegin) {
      return std::nullopt;
    }
    // The axes whose output size the recorded line fixes: adaptive_avg_pool2d(x, (None, 3))
    // keeps the first axis's size, and (None, None) is the identity. All of them when the line
    // does not say (nn.AdaptiveAvgPool2d called as a module).
    const std::optional<SourceLocation> source = SourceOf(n);
    const std::vector<std::optional<int64_t>> recorded =
        source ? AdaptiveOutputSize(source->code, kernel.size())
               : std::vector<std::optional<int64_t>>{};
    auto fixed = [&](size_t axis) {
      return recorded.empty() || recorded[axis - kSpatialBegin].has_value();
    };
    sym::Binding base = analysis.witness();
    analysis.example().ForEach([&](std::string_view s, int64_t v) { base.Set(s, v); });
    const auto pooled = SizesWhereTheWindowFits(analysis, n, *in, base);
    if (!pooled) return std::nullopt;
    // The first spatial symbol whose growth by whole windows grows the pooled map.
    for (size_t axis = kSpatialBegin; axis < in->shape->size(); ++axis) {
      const sym::MaybeExpr& dim = (*in->shape)[axis];
      if (!dim || dim->IsConstant() || !fixed(axis)) continue;
      for (const std::string& symbol : dim->Symbols()) {
        const int64_t at = base.Get(symbol).value_or(1);
        const int64_t step = kernel[std::min(axis - kSpatialBegin, kernel.size() - 1)];
        for (int64_t v = at + 1; v <= at + kMaxWindowsMoved * step; ++v) {
          sym::Binding moved = base;
          moved.Set(symbol, v);
          const auto grown = analysis.DimsAt(n.output(0), moved);
          if (!grown || *grown == *pooled) continue;
          const std::string before =
              analysis.has_example() ? "the export size" : absl::StrCat(symbol, " = ", at);
          return Report(analysis, g, n, *pooled, *grown, moved, before);
        }
      }
    }
    return std::nullopt;
  }

  // The pooled dims at `base`, grown first where a window does not fit the input there (a map
  // of 0: a size nobody runs); nullopt when no such size is found.
  static std::optional<std::vector<int64_t>> SizesWhereTheWindowFits(const Analysis& analysis,
                                                                     ir::Node n,
                                                                     const infer::TensorFact& in,
                                                                     sym::Binding& base) {
    constexpr int kMaxDoublings = 12;
    const std::vector<int64_t> kernel = IntsOf(n, "kernel_shape");
    for (int round = 0; round <= kMaxDoublings; ++round) {
      auto pooled = analysis.DimsAt(n.output(0), base);
      if (!pooled || pooled->size() != in.shape->size()) return std::nullopt;
      bool fits = true;
      for (size_t axis = kSpatialBegin; axis < pooled->size(); ++axis) {
        if ((*pooled)[axis] >= 1) continue;
        fits = false;
        const sym::MaybeExpr& dim = (*in.shape)[axis];
        if (!dim) return std::nullopt;
        for (const std::string& s : dim->Symbols()) {
          base.Set(s, std::max(2 * base.Get(s).value_or(1), kernel[axis - kSpatialBegin]));
        }
      }
      if (fits) return pooled;
    }
    return std::nullopt;
  }

  Finding Report(const Analysis& analysis, const ir::Graph& g, ir::Node n,
                 const std::vector<int64_t>& pooled, const std::vector<int64_t>& grown,
                 const sym::Binding& moved, const std::string& before) const {
    auto spatial = [](const std::vector<int64_t>& dims) {
      return absl::StrCat("[",
                          absl::StrJoin(dims.begin() + static_cast<std::ptrdiff_t>(kSpatialBegin),
                                        dims.end(), ", "),
                          "]");
    };
    Finding f = FindingAt(
        analysis, g, n.index(), Evidence::kExporterRecord,
        absl::StrCat(n.op_type(), " kernel_shape=", Ints(n, "kernel_shape"),
                     ", strides=", Ints(n, "strides"),
                     " is an adaptive pool decomposed at the example size (as the exporter "
                     "recorded it): its pooled size follows the input, where adaptive pooling's ",
                     analysis.has_example() ? absl::StrCat("stays ", spatial(pooled))
                                            : std::string("does not change")));
    f.attribute = "kernel_shape";
    Counterexample c = analysis.Evaluate(moved);
    std::string pool;
    if (analysis.has_example()) {
      // What the seed's table shows: the ONNX pool's output next to adaptive pooling's, which
      // keeps the pooled size of the export size.
      std::vector<int64_t> adaptive = grown;
      std::copy(pooled.begin() + static_cast<std::ptrdiff_t>(kSpatialBegin), pooled.end(),
                adaptive.begin() + static_cast<std::ptrdiff_t>(kSpatialBegin));
      pool = absl::StrCat("the pool returns [", absl::StrJoin(grown, ", "),
                          "] here, where adaptive pooling returns [", absl::StrJoin(adaptive, ", "),
                          "] (its pooled size at ", before, ")");
    } else {
      pool = absl::StrCat("the pool gives ", spatial(grown), " here and ", spatial(pooled), " at ",
                          before, "; an adaptive pool gives the same size at both");
    }
    // Where a layer after the pool (a Linear over its flattened map) fails on the grown map,
    // the model fails there: that node stays where it breaks, the pool's sizes said after it.
    if (c.node_fails) {
      c.failure = absl::StrCat(c.failure, "; before it, ", pool);
    } else {
      c.failing_node = analysis.Ref(g, n.index());
      c.failure = std::move(pool);
    }
    f.counterexample = std::move(c);
    f.fix = kFix;
    if (analysis.fixes_wanted()) AttachFix(analysis, g, n, /*pinned=*/false, f);
    return f;
  }
};

}  // namespace

std::unique_ptr<Rule> MakeBakedPoolKernel(const RuleInfo& info) {
  return std::make_unique<BakedPoolKernel>(info);
}

}  // namespace shapelint::lint
