// Ops that rearrange or resize a tensor: Expand, Tile, Pad, Split, DepthToSpace, SpaceToDepth,
// Resize, Upsample, CenterCropPad, and the same-shape ops with values of their own (CastLike,
// Clip, CumSum). Each reads its sizes in the form of the opset the model imports: attributes
// in early opsets, inputs later. Values of small integer tensors pass through element by
// element, keeping each element's literal origin.
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <limits>

#include "absl/strings/str_cat.h"
#include "infer/op_context.h"
#include "infer/ops.h"
#include "infer/tensor_util.h"

namespace shapelint::infer {
namespace {

using ONNX_NAMESPACE::AttributeProto;
using ONNX_NAMESPACE::TensorProto;
using sym::Expr;
using sym::MaybeExpr;

// The origin of a literal element, or none for one derived from a shape.
OriginId LiteralOrigin(const OpContext& ctx, OriginId id) {
  const Origin* o = ctx.origin(id);
  return o != nullptr && o->IsLiteral() ? id : kNoOrigin;
}

std::vector<int64_t> AllAxes(int64_t rank) {
  std::vector<int64_t> axes(rank);
  for (int64_t i = 0; i < rank; ++i) axes[i] = i;
  return axes;
}

// floor(in * scale), as Resize and Upsample size their output from a float scale. ONNX's shape
// inference and onnxruntime both compute it in float: floor(float(in) * scale). For a constant
// dim that is done here the same way.
//
// For a symbolic dim the float is read as the fraction num / den (den <= 64) it was rounded
// from, e.g. 0.6f = 0.60000002 as 3 / 5, and floor(in * num / den) is an Expr. That equals the
// float computation for every realistic dim when the float is at or above the fraction: where
// in * num / den is an integer, the float product is that integer or a hair above it, and
// elsewhere the product is at least 1 / den away from the next integer, far more than float
// rounding moves it. A float just below its fraction (0.7f = 0.69999999) can round either way
// at the integers, so that dim stays unknown, as does a scale that is no small fraction.
MaybeExpr ScaleDim(const MaybeExpr& in, double scale) {
  if (!in || !std::isfinite(scale) || scale <= 0) return std::nullopt;
  const float s = static_cast<float>(scale);
  if (auto c = in->AsConstant()) {
    const float product = static_cast<float>(*c) * s;
    if (!(product < 0x1p62f)) return std::nullopt;
    return Expr::Constant(static_cast<int64_t>(std::floor(product)));
  }
  constexpr int64_t kMaxDenominator = 64;
  constexpr double kMaxScale = 1024;
  const double exact = s;  // the float's value, exactly
  if (exact > kMaxScale) return std::nullopt;
  for (int64_t den = 1; den <= kMaxDenominator; ++den) {
    const double num = std::round(exact * static_cast<double>(den));
    if (num < 1) continue;
    const double fraction = num / static_cast<double>(den);
    // Within float rounding (half an ulp, 2^-24 relative) of the fraction, and not below it.
    if (std::abs(exact - fraction) > fraction * 0x1p-24 || exact < fraction) continue;
    return sym::FloorDiv(sym::Mul(in, Expr::Constant(static_cast<int64_t>(num))),
                         Expr::Constant(den));
  }
  return std::nullopt;
}

// Resize-18's keep_aspect_ratio_policy "not_larger" / "not_smaller": one scale for all
// resized axes, the min (max) of sizes[i] / in[i], then out = round(scale * in), in float as
// ONNX and onnxruntime compute it. Known only for constant dims and sizes.
void KeepAspectRatio(bool not_larger, const Dims& in, const std::vector<int64_t>& axes,
                     const std::vector<MaybeExpr>& sizes, Dims& out) {
  float scale = not_larger ? std::numeric_limits<float>::max() : 0.0f;
  std::vector<int64_t> dims;
  for (size_t i = 0; i < axes.size(); ++i) {
    auto d = in[axes[i]] ? in[axes[i]]->AsConstant() : std::nullopt;
    auto s = sizes[i] ? sizes[i]->AsConstant() : std::nullopt;
    if (!d || !s || *d <= 0 || *s < 0) return;
    const float ratio = static_cast<float>(*s) / static_cast<float>(*d);
    scale = not_larger ? std::min(scale, ratio) : std::max(scale, ratio);
    dims.push_back(*d);
  }
  for (size_t i = 0; i < axes.size(); ++i) {
    const float v = std::roundf(scale * static_cast<float>(dims[i]));
    if (!(v < 0x1p62f)) return;
    out[axes[i]] = Expr::Constant(static_cast<int64_t>(v));
  }
}

}  // namespace

void InferExpand(OpContext& ctx) {
  const TensorFact& x = ctx.in(0);
  TensorFact& y = ctx.out(0);
  y.elem_type = x.elem_type;
  if (!RequireVector(ctx, 1, "shape")) return;
  if (!x.shape) return;  // the output rank is max(rank(input), len(shape))
  const TensorFact& target = ctx.in(1);
  if (!target.values) {
    auto len = ConstLength(ctx, 1);
    if (len && *len >= 0 && *len <= kMaxTrackedElements) {
      y.shape = Dims(std::max<int64_t>(*len, x.rank()));
    }
    return;
  }
  // Expand broadcasts the input and the target shape both ways (numpy rules): a target dim of
  // 1 keeps the input's dim.
  const std::vector<Element>& t = *target.values;
  const size_t xr = x.shape->size(), tr = t.size(), rank = std::max(xr, tr);
  Dims out(rank);
  for (size_t axis = 0; axis < rank; ++axis) {
    std::vector<BroadcastOperand> operands;
    if (axis + xr >= rank) operands.push_back({(*x.shape)[axis + xr - rank], kNoOrigin});
    if (axis + tr >= rank) {
      const Element& e = t[axis + tr - rank];
      operands.push_back({e.value, LiteralOrigin(ctx, e.origin)});
    }
    out[axis] = BroadcastDim(
        ctx, operands, RequirementKind::kBroadcast,
        [&] { return absl::StrCat("Expand input vs target shape at output axis ", axis); },
        static_cast<int64_t>(axis));
  }
  out = WithoutNegative(std::move(out));
  y.shape = out;
  auto dense = Dense(x);
  auto out_dims = ConstDims(out);
  auto count = ConstantElementCount(out);
  if (!dense || !out_dims || !count || *count > kMaxTrackedElements) return;
  std::vector<Element> vals;
  for (int64_t i = 0; i < *count; ++i) {
    vals.push_back((*dense->values)[BroadcastSource(i, *out_dims, dense->dims)]);
  }
  y.values = std::move(vals);
}

void InferTile(OpContext& ctx) {
  const TensorFact& x = ctx.in(0);
  TensorFact& y = ctx.out(0);
  y.elem_type = x.elem_type;
  if (!RequireVector(ctx, 1, "repeats")) return;
  if (!x.shape) return;
  auto repeats = ElementValues(ctx, 1);
  if (!repeats) {
    y.shape = Dims(x.rank());  // Tile keeps the rank
    return;
  }
  if (static_cast<int64_t>(repeats->size()) != x.rank()) return;  // invalid: repeats per axis
  Dims out;
  for (int64_t k = 0; k < x.rank(); ++k) out.push_back(sym::Mul((*x.shape)[k], (*repeats)[k]));
  out = WithoutNegative(std::move(out));
  y.shape = out;
  auto dense = Dense(x);
  auto out_dims = ConstDims(out);
  auto count = ConstantElementCount(out);
  if (!dense || !out_dims || !count || *count > kMaxTrackedElements) return;
  // Output coordinate c reads input coordinate c mod dim on every axis.
  const std::vector<int64_t> strides = Strides(dense->dims);
  std::vector<Element> vals;
  for (int64_t i = 0; i < *count; ++i) {
    std::vector<int64_t> c = Unravel(i, *out_dims);
    for (size_t k = 0; k < c.size(); ++k) c[k] %= dense->dims[k];
    vals.push_back((*dense->values)[Ravel(c, strides)]);
  }
  y.values = std::move(vals);
}

namespace {

// A reflect pad mirrors the axis without its edge, so each side adds at most dim - 1 elements:
// ONNX Runtime refuses a pad of 2 on 2 elements ("pre-pad (2) exceeds maximum allowed (1)"),
// and a crop (a negative pad) comes first ("requires axis length >= 2 after slicing"). PyTorch's
// reflection pad has the same limit, so it is the model's own, as a kernel's size is. Literal
// pads only: a pad computed from the sizes has no sign the analysis knows.
void RequireMirrorFits(OpContext& ctx, const MaybeExpr& dim, const MaybeExpr& begin,
                       const MaybeExpr& end, int64_t axis) {
  const std::optional<int64_t> b = begin ? begin->AsConstant() : std::nullopt;
  const std::optional<int64_t> e = end ? end->AsConstant() : std::nullopt;
  if (!b || !e || std::max(*b, *e) <= 0) return;
  constexpr int64_t kLargestPad = int64_t{1} << 40;  // past any size: no overflow below
  if (std::max(*b, *e) > kLargestPad || std::min(*b, *e) < -kLargestPad) return;
  const int64_t needed = std::max(*b, *e) + 1 - std::min<int64_t>(*b, 0) - std::min<int64_t>(*e, 0);
  ctx.Require(RequirementKind::kWindow, Relation::kAtLeast, dim, Expr::Constant(needed),
              absl::StrCat("Pad reflect of ", std::max(*b, *e), " on axis ", axis), kNoOrigin,
              axis);
}

}  // namespace

void InferPad(OpContext& ctx) {
  const TensorFact& x = ctx.in(0);
  TensorFact& y = ctx.out(0);
  y.elem_type = x.elem_type;
  if (!x.shape) return;
  const int64_t rank = x.rank();
  std::optional<std::vector<MaybeExpr>> pads;
  std::vector<int64_t> axes = AllAxes(rank);
  if (ctx.opset() < 11) {
    // Pad-2 takes `pads`; Pad-1 called it `paddings`. Both: [x1_begin, x2_begin, ..., x1_end,
    // x2_end] for every axis.
    auto p = ctx.AttrInts("pads");
    if (!p) p = ctx.AttrInts("paddings");
    if (p) {
      pads.emplace();
      for (int64_t v : *p) pads->push_back(Expr::Constant(v));
    }
  } else {
    pads = ElementValues(ctx, 1);
    // Pad-18 adds an optional `axes` input; pads then holds 2 * len(axes) values.
    if (ctx.opset() >= 18 && ctx.has_input(3)) {
      auto a = ctx.ConstInts(3);
      if (!a) {
        y.shape = Dims(rank);  // which axes are padded is not known
        return;
      }
      auto n = NormalizeAxes(*a, rank);
      if (!n) return;
      axes = *n;
    }
  }
  Dims out = *x.shape;
  if (!pads) {
    for (int64_t a : axes) out[a] = std::nullopt;
  } else {
    if (pads->size() != 2 * axes.size()) return;  // malformed
    // Modes (constant, reflect, edge, wrap) fill differently but size alike: in + begin + end;
    // negative pads crop.
    for (size_t i = 0; i < axes.size(); ++i) {
      out[axes[i]] = sym::Add(sym::Add(out[axes[i]], (*pads)[i]), (*pads)[i + axes.size()]);
    }
    if (ctx.AttrString("mode").value_or("constant") == "reflect") {
      for (size_t i = 0; i < axes.size(); ++i) {
        RequireMirrorFits(ctx, (*x.shape)[axes[i]], (*pads)[i], (*pads)[i + axes.size()], axes[i]);
      }
    }
  }
  y.shape = WithoutNegative(std::move(out));
}

void InferSplit(OpContext& ctx) {
  const TensorFact& x = ctx.in(0);
  const size_t n_out = ctx.num_outputs();
  for (size_t k = 0; k < n_out; ++k) ctx.out(k).elem_type = x.elem_type;
  if (!x.shape || n_out == 0) return;
  auto axis = NormalizeAxis(ctx.AttrInt("axis", 0), x.rank());
  if (!axis) return;
  const MaybeExpr dim = (*x.shape)[*axis];
  std::vector<MaybeExpr> sizes(n_out);
  // Explicit sizes: the `split` attribute before opset 13, the optional `split` input since.
  bool explicit_sizes = false;
  std::optional<std::vector<Element>> split;
  if (ctx.opset() < 13) {
    if (auto s = ctx.AttrInts("split")) {
      explicit_sizes = true;
      OriginId origin = AttributeOrigin(ctx, "split");
      split.emplace();
      for (int64_t v : *s) split->push_back({Expr::Constant(v), origin});
    }
  } else if (ctx.has_input(1) && !KnownEmpty(ctx, 1)) {
    explicit_sizes = true;
    split = ctx.in(1).values;
  }
  if (explicit_sizes) {
    if (split && split->size() == n_out) {
      MaybeExpr sum = Expr::Constant(0);
      OriginId origin = kNoOrigin;
      for (size_t i = 0; i < n_out; ++i) {
        sizes[i] = (*split)[i].value;
        sum = sym::Add(sum, sizes[i]);
        if (origin == kNoOrigin) origin = LiteralOrigin(ctx, (*split)[i].origin);
      }
      // "Sum of the values must be equal to the dim value at 'axis' specified."
      ctx.Require(RequirementKind::kSplitSum, Relation::kEqual, dim, sum,
                  absl::StrCat("Split sizes must add up to input axis ", *axis), origin, *axis);
      if (FailsForCertain(Relation::kEqual, dim, sum)) sizes.assign(n_out, std::nullopt);
    }
  } else if (auto num = ctx.opset() >= 18 ? ctx.AttrInt("num_outputs") : std::nullopt) {
    // Split-18 with num_outputs: chunks of ceil(dim / n); "if the tensor is not evenly
    // splittable the last chunk will be smaller" (ONNX's reference: dim - (n - 1) * chunk).
    const int64_t n = *num;
    if (n < 1 || static_cast<int64_t>(n_out) > n) return;
    MaybeExpr chunk = sym::CeilDiv(dim, Expr::Constant(n));
    MaybeExpr last = sym::Sub(dim, sym::Mul(chunk, Expr::Constant(n - 1)));
    if (ConstantBelow(last, 0)) last = std::nullopt;  // the op fails: leave it unknown
    for (size_t i = 0; i < n_out; ++i) {
      sizes[i] = static_cast<int64_t>(i) == n - 1 ? last : chunk;
    }
  } else {
    // Equal parts, one per output; the dim must divide (ONNX shape inference and onnxruntime
    // reject an uneven split here).
    const MaybeExpr n = Expr::Constant(static_cast<int64_t>(n_out));
    ctx.Require(RequirementKind::kSplitSum, Relation::kDivisible, dim, n,
                absl::StrCat("Split into ", n_out, " equal parts along axis ", *axis), kNoOrigin,
                *axis);
    const bool can_hold = !FailsForCertain(Relation::kDivisible, dim, n);
    for (size_t i = 0; i < n_out; ++i) {
      sizes[i] = can_hold ? sym::FloorDiv(dim, n) : std::nullopt;  // the op fails otherwise
    }
  }
  for (size_t k = 0; k < n_out; ++k) {
    Dims out = *x.shape;
    out[*axis] = sizes[k];
    ctx.out(k).shape = WithoutNegative(std::move(out));
  }
  // Values: a 1-D tensor (a shape being cut into pieces) split at constant sizes.
  if (!x.values || x.rank() != 1) return;
  size_t pos = 0;
  for (size_t k = 0; k < n_out; ++k) {
    auto len = sizes[k] ? sizes[k]->AsConstant() : std::nullopt;
    if (!len || *len < 0 || pos + *len > x.values->size()) return;
    ctx.out(k).values =
        std::vector<Element>(x.values->begin() + pos, x.values->begin() + pos + *len);
    pos += *len;
  }
}

namespace {

// DepthToSpace and SpaceToDepth move blocksize x blocksize pixels to and from channels of an
// NCHW tensor.
void InferBlockRearrange(OpContext& ctx, bool to_space) {
  const TensorFact& x = ctx.in(0);
  TensorFact& y = ctx.out(0);
  y.elem_type = x.elem_type;
  if (!x.shape) return;
  if (x.rank() != 4) return;  // defined for [N, C, H, W] only
  auto b = ctx.AttrInt("blocksize");
  int64_t b2 = 0;  // blocksize^2, the channels one output pixel takes: unknown past int64
  if (!b || *b < 1 || __builtin_mul_overflow(*b, *b, &b2)) return;
  const Dims& s = *x.shape;
  const MaybeExpr block = Expr::Constant(*b);
  const MaybeExpr area = Expr::Constant(b2);
  const OriginId origin = AttributeOrigin(ctx, "blocksize");
  if (to_space) {
    ctx.Require(RequirementKind::kReshapeCount, Relation::kDivisible, s[1], area,
                absl::StrCat("DepthToSpace: channels must be divisible by blocksize^2 (", b2, ")"),
                origin, 1);
    const bool can_hold = !FailsForCertain(Relation::kDivisible, s[1], area);
    y.shape = Dims{s[0], can_hold ? sym::FloorDiv(s[1], area) : std::nullopt, sym::Mul(s[2], block),
                   sym::Mul(s[3], block)};
  } else {
    Dims out{s[0], sym::Mul(s[1], area), std::nullopt, std::nullopt};
    for (int64_t axis : {2, 3}) {
      ctx.Require(
          RequirementKind::kReshapeCount, Relation::kDivisible, s[axis], block,
          absl::StrCat("SpaceToDepth: axis ", axis, " must be divisible by blocksize (", *b, ")"),
          origin, axis);
      if (!FailsForCertain(Relation::kDivisible, s[axis], block)) {
        out[axis] = sym::FloorDiv(s[axis], block);
      }
    }
    y.shape = std::move(out);
  }
}

}  // namespace

void InferDepthToSpace(OpContext& ctx) { InferBlockRearrange(ctx, /*to_space=*/true); }
void InferSpaceToDepth(OpContext& ctx) { InferBlockRearrange(ctx, /*to_space=*/false); }

void InferResize(OpContext& ctx) {
  const TensorFact& x = ctx.in(0);
  TensorFact& y = ctx.out(0);
  y.elem_type = x.elem_type;
  if (!x.shape) return;
  const int64_t rank = x.rank();
  // Resize-18 may resize a subset of axes; the others keep their size.
  std::vector<int64_t> axes = AllAxes(rank);
  if (ctx.opset() >= 18) {
    if (auto a = ctx.AttrInts("axes"); a && !a->empty()) {
      auto n = NormalizeAxes(*a, rank);
      if (!n) {
        y.shape = Dims(rank);
        return;
      }
      axes = *n;
    }
  }
  Dims out = *x.shape;
  for (int64_t a : axes) out[a] = std::nullopt;
  // Resize-10: (X, scales). Resize-11+: (X, roi, scales, sizes), exactly one of scales and
  // sizes given; an empty tensor counts as not given.
  const size_t scales_at = ctx.opset() < 11 ? 1 : 2;
  const bool sizes_given = ctx.opset() >= 11 && ctx.has_input(3) && !KnownEmpty(ctx, 3);
  const bool scales_given = ctx.has_input(scales_at) && !KnownEmpty(ctx, scales_at);
  auto sizes = sizes_given ? ElementValues(ctx, 3) : std::nullopt;
  if (sizes && !sizes->empty()) {
    if (sizes->size() == axes.size()) {
      const std::string policy =
          ctx.opset() >= 18 ? ctx.AttrString("keep_aspect_ratio_policy").value_or("stretch")
                            : "stretch";
      if (policy == "stretch") {
        // The sizes are the output dims.
        for (size_t i = 0; i < axes.size(); ++i) {
          const MaybeExpr& s = (*sizes)[i];
          if (ConstantBelow(s, 0)) continue;  // invalid
          out[axes[i]] = s;
        }
      } else if (policy == "not_larger" || policy == "not_smaller") {
        KeepAspectRatio(policy == "not_larger", *x.shape, axes, *sizes, out);
      }
    }
  } else if (scales_given && !sizes_given) {
    // output_dimension = floor(input_dimension * (roi_end - roi_start) * scale): roi counts
    // only for tf_crop_and_resize, and it is a float tensor: unknown then.
    const std::string mode =
        ctx.opset() >= 11 ? ctx.AttrString("coordinate_transformation_mode").value_or("half_pixel")
                          : "asymmetric";
    auto scales = mode == "tf_crop_and_resize" ? std::nullopt : ConstFloats(ctx, scales_at);
    if (scales && scales->size() == axes.size()) {
      for (size_t i = 0; i < axes.size(); ++i) {
        out[axes[i]] = ScaleDim((*x.shape)[axes[i]], (*scales)[i]);
      }
    }
  }
  y.shape = std::move(out);
}

void InferUpsample(OpContext& ctx) {
  const TensorFact& x = ctx.in(0);
  TensorFact& y = ctx.out(0);
  y.elem_type = x.elem_type;
  if (!x.shape) return;
  // Upsample-7: `scales` attribute; Upsample-9 (and the deprecated -10): `scales` input.
  std::optional<std::vector<double>> scales;
  if (ctx.opset() < 9) {
    const AttributeProto* a = ctx.Attr("scales");
    if (a != nullptr && a->type() == AttributeProto::FLOATS) {
      scales = std::vector<double>(a->floats().begin(), a->floats().end());
    }
  } else {
    scales = ConstFloats(ctx, 1);
  }
  Dims out(x.rank());
  if (scales && static_cast<int64_t>(scales->size()) == x.rank()) {
    // Each output dim is floor(input dim * scale).
    for (int64_t i = 0; i < x.rank(); ++i) out[i] = ScaleDim((*x.shape)[i], (*scales)[i]);
  }
  y.shape = std::move(out);
}

void InferCenterCropPad(OpContext& ctx) {
  const TensorFact& x = ctx.in(0);
  TensorFact& y = ctx.out(0);
  y.elem_type = x.elem_type;
  if (!x.shape) return;
  std::vector<int64_t> axes = AllAxes(x.rank());
  if (auto a = ctx.AttrInts("axes")) {
    auto n = NormalizeAxes(*a, x.rank());
    if (!n) return;
    axes = *n;
  }
  // Each axis in `axes` is cropped or padded to the matching value of `shape`.
  Dims out = *x.shape;
  auto target = ElementValues(ctx, 1);
  for (size_t i = 0; i < axes.size(); ++i) {
    out[axes[i]] = target && target->size() == axes.size() ? (*target)[i] : std::nullopt;
  }
  y.shape = WithoutNegative(std::move(out));
}

void InferCastLike(OpContext& ctx) {
  // Cast with the target type taken from input 1.
  const TensorFact& x = ctx.in(0);
  TensorFact& y = ctx.out(0);
  y.elem_type = ctx.in(1).elem_type;
  y.shape = x.shape;
  if (!x.values || y.elem_type == 0) return;
  if (y.elem_type != TensorProto::BOOL) {
    y.values = x.values;  // integers survive the cast, as InferCast keeps them
    if (IsIntegerType(y.elem_type)) TruncateQuotients(x, y);
    return;
  }
  std::vector<Element> vals;
  for (const Element& e : *x.values) {
    auto c = e.value ? e.value->AsConstant() : std::nullopt;
    vals.push_back({c ? MaybeExpr(Expr::Constant(*c != 0)) : std::nullopt, e.origin});
  }
  y.values = std::move(vals);
}

void InferClip(OpContext& ctx) {
  const TensorFact& x = ctx.in(0);
  TensorFact& y = ctx.out(0);
  y.elem_type = x.elem_type;
  y.shape = x.shape;
  if (!x.values) return;
  // Bounds: `min`/`max` attributes before opset 11, optional inputs 1 and 2 since. A bound
  // that is not a known integer leaves the values unknown.
  auto bound = [&](size_t input, std::string_view attr) -> std::optional<std::optional<Element>> {
    if (ctx.opset() < 11) {
      auto f = ctx.AttrFloat(attr);
      if (!f) return std::optional<Element>();
      if (*f != std::floor(*f) || std::fabs(*f) > 0x1p53) return std::nullopt;
      return std::optional<Element>(Element{Expr::Constant(static_cast<int64_t>(*f))});
    }
    if (!ctx.has_input(input)) return std::optional<Element>();
    if (auto e = SingleElement(ctx, input); e && e->value) return std::optional<Element>(*e);
    auto f = ConstFloats(ctx, input);
    if (!f || f->size() != 1 || (*f)[0] != std::floor((*f)[0]) || std::fabs((*f)[0]) > 0x1p53) {
      return std::nullopt;
    }
    return std::optional<Element>(Element{Expr::Constant(static_cast<int64_t>((*f)[0]))});
  };
  auto lo = bound(1, "min");
  auto hi = bound(2, "max");
  if (!lo || !hi) return;
  // min(max(x, lo), hi): "when min is greater than max, all values are set to max".
  std::vector<Element> vals;
  for (const Element& e : *x.values) {
    MaybeExpr v = e.value;
    if (*lo) v = sym::Max(v, (*lo)->value);
    if (*hi) v = sym::Min(v, (*hi)->value);
    if (v && e.value && *v == *e.value) {
      vals.push_back(e);
    } else if (v && *lo && *v == *(*lo)->value) {
      vals.push_back({v, (*lo)->origin});
    } else if (v && *hi && *v == *(*hi)->value) {
      vals.push_back({v, (*hi)->origin});
    } else {
      vals.push_back(Computed(v, {&e}));
    }
  }
  y.values = std::move(vals);
}

void InferCumSum(OpContext& ctx) {
  const TensorFact& x = ctx.in(0);
  TensorFact& y = ctx.out(0);
  y.elem_type = x.elem_type;
  y.shape = x.shape;
  // Values of a 1-D tensor: running sums, optionally exclusive (starting at 0) or reversed.
  if (!x.values || x.rank() != 1) return;
  auto axis = SingleElement(ctx, 1);
  auto a = axis && axis->value ? axis->value->AsConstant() : std::nullopt;
  if (!a || (*a != 0 && *a != -1)) return;
  const bool exclusive = ctx.AttrInt("exclusive", 0) != 0;
  const bool reverse = ctx.AttrInt("reverse", 0) != 0;
  const std::vector<Element>& in = *x.values;
  const size_t n = in.size();
  std::vector<Element> vals(n);
  MaybeExpr sum = Expr::Constant(0);
  std::vector<const Element*> seen;
  for (size_t step = 0; step < n; ++step) {
    const size_t i = reverse ? n - 1 - step : step;
    if (exclusive) vals[i] = Computed(sum, seen);
    sum = sym::Add(sum, in[i].value);
    seen.push_back(&in[i]);
    if (!exclusive) vals[i] = step == 0 ? in[i] : Computed(sum, seen);
  }
  y.values = std::move(vals);
}

}  // namespace shapelint::infer
