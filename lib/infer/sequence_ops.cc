// Sequence ops (opset 11+): a sequence of known length is tracked element by element
// (TensorFact::elements), so that SequenceAt, SequenceLength and ConcatFromSequence give
// shapes. Positions the engine cannot read leave the result unknown unless every element has
// the same shape, in which case the position does not matter for shapes.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "infer/nn_util.h"
#include "infer/op_context.h"
#include "infer/ops.h"
#include "infer/tensor_util.h"
#include "shapelint/ir/model.h"

namespace shapelint::infer {
namespace {

using nn::C;
using ONNX_NAMESPACE::TensorProto;
using sym::Expr;
using sym::MaybeExpr;

bool SameShape(const TensorFact& a, const TensorFact& b) {
  return a.elem_type == b.elem_type && SameKnownShape(a, b);
}

// A sequence as the ops see it: explicit elements (constant length) or one element that
// every position shares (symbolic length).
struct Seq {
  Expr length = Expr::Constant(0);
  std::vector<TensorFact> elements;
  bool uniform = false;
};

std::optional<Seq> ReadSeq(const TensorFact& f) {
  if (!f.sequence) return std::nullopt;
  const SequenceFact& s = *f.sequence;
  if (!s.length.AsConstant()) {
    if (s.elements.size() != 1) return std::nullopt;
    return Seq{s.length, s.elements, true};
  }
  return Seq{Expr::Constant(static_cast<int64_t>(s.elements.size())), s.elements, false};
}

TensorFact Sequence(std::vector<TensorFact> elements) {
  TensorFact f;
  const Expr length = Expr::Constant(static_cast<int64_t>(elements.size()));
  f.sequence =
      std::make_shared<const SequenceFact>(SequenceFact{std::move(elements), length, std::nullopt});
  return f;
}

// `length` copies of `element`: explicit when the length is a small constant.
std::optional<TensorFact> UniformSequence(const MaybeExpr& length, const TensorFact& element) {
  if (!length) return std::nullopt;
  TensorFact plain;  // shape and type only: values differ between positions
  plain.elem_type = element.elem_type;
  plain.shape = element.shape;
  if (auto n = length->AsConstant()) {
    if (*n < 0 || *n > kMaxTrackedElements) return std::nullopt;
    return Sequence(std::vector<TensorFact>(static_cast<size_t>(*n), plain));
  }
  TensorFact f;
  f.sequence = std::make_shared<const SequenceFact>(SequenceFact{{plain}, *length, std::nullopt});
  return f;
}

// The element every position holds when all elements (and `extra`, if given) share a shape.
std::optional<TensorFact> CommonElement(const Seq& seq, const TensorFact* extra = nullptr) {
  const TensorFact* first = extra;
  if (first == nullptr && seq.elements.empty()) return std::nullopt;
  if (first == nullptr) first = &seq.elements.front();
  for (const TensorFact& e : seq.elements) {
    if (!SameShape(e, *first)) return std::nullopt;
  }
  return *first;
}

// A constant position input normalised to [0, size) (or [0, size] when `insert`); nullopt
// when unknown or out of range.
std::optional<int64_t> Position(const OpContext& ctx, size_t i, int64_t size, bool insert) {
  auto e = SingleElement(ctx, i);
  auto pos = e && e->value ? e->value->AsConstant() : std::nullopt;
  if (!pos) return std::nullopt;
  const int64_t limit = insert ? size + 1 : size;
  int64_t p = *pos < 0 ? *pos + size : *pos;
  if (p < 0 || p >= limit) return std::nullopt;
  return p;
}

// Chunks of `size` along `axis` of a dim `total`, `ceil(total / size)` of them.
TensorFact ChunkSequence(int64_t axis, int64_t size, const Expr& total, TensorFact element) {
  TensorFact f;
  const MaybeExpr length = sym::CeilDiv(total, C(size));
  if (!length) return f;
  f.sequence = std::make_shared<const SequenceFact>(SequenceFact{
      {},
      *length,
      SequenceChunks{axis, size, total, std::make_shared<const TensorFact>(std::move(element))}});
  return f;
}

// SequenceAt of a constant position in a chunked sequence: chunk k is min(size, total - k*size)
// long, and there must be k + 1 of them (total >= k*size + 1); the last one (-1) holds
// total - size * floor((total - 1) / size).
void ChunkAt(OpContext& ctx, const SequenceFact& seq) {
  const SequenceChunks& c = *seq.chunks;
  auto e = SingleElement(ctx, 1);
  auto pos = e && e->value ? e->value->AsConstant() : std::nullopt;
  if (!pos || *pos < -1 || *pos >= kMaxTrackedElements) return;
  MaybeExpr dim;
  if (*pos == -1) {
    dim = sym::Sub(c.total, sym::Mul(C(c.size), sym::FloorDiv(sym::Sub(c.total, C(1)), C(c.size))));
  } else {
    const int64_t begin = *pos * c.size;
    // The first chunk is there wherever the dim is (the empty tensor gives one empty chunk).
    if (begin > 0) {
      ctx.Require(RequirementKind::kIndexBound, Relation::kAtLeast, c.total, C(begin + 1),
                  absl::StrCat("SequenceAt position ", *pos, " needs ", *pos + 1, " chunks of ",
                               c.size, " along axis ", c.axis),
                  kNoOrigin, c.axis);
    }
    dim = sym::Min(C(c.size), sym::Sub(c.total, C(begin)));
  }
  TensorFact out = *c.element;
  if (out.shape && c.axis < out.rank()) (*out.shape)[c.axis] = dim;
  ctx.out(0) = std::move(out);
}

}  // namespace

// SequenceEmpty-11: a sequence of length 0.
void InferSequenceEmpty(OpContext& ctx) { ctx.out(0) = Sequence({}); }

// SequenceConstruct-11: the inputs, in order.
void InferSequenceConstruct(OpContext& ctx) {
  std::vector<TensorFact> elements;
  for (size_t i = 0; i < ctx.num_inputs(); ++i) elements.push_back(ctx.in(i));
  ctx.out(0) = Sequence(std::move(elements));
}

// SequenceInsert-11: inserts the tensor at `position` (default: at the end; negative counts
// from the back, -n..n accepted).
void InferSequenceInsert(OpContext& ctx) {
  auto seq = ReadSeq(ctx.in(0));
  if (!seq) return;
  const TensorFact& x = ctx.in(1);
  if (!seq->uniform) {
    std::vector<TensorFact> elements = std::move(seq->elements);
    const int64_t n = static_cast<int64_t>(elements.size());
    if (!ctx.has_input(2)) {
      elements.push_back(x);
      ctx.out(0) = Sequence(std::move(elements));
      return;
    }
    if (auto pos = Position(ctx, 2, n, /*insert=*/true)) {
      elements.insert(elements.begin() + *pos, x);
      ctx.out(0) = Sequence(std::move(elements));
      return;
    }
  }
  // Where the tensor goes is unknown (or does not matter): fine for shapes if all agree.
  if (auto common = CommonElement(*seq, &x)) {
    if (auto f = UniformSequence(sym::Add(seq->length, C(1)), *common)) ctx.out(0) = *f;
  }
}

// SequenceErase-11: removes the element at `position` (default: the last).
void InferSequenceErase(OpContext& ctx) {
  auto seq = ReadSeq(ctx.in(0));
  if (!seq || seq->elements.empty()) return;
  if (!seq->uniform) {
    std::vector<TensorFact> elements = std::move(seq->elements);
    const int64_t n = static_cast<int64_t>(elements.size());
    if (!ctx.has_input(1)) {
      elements.pop_back();
      ctx.out(0) = Sequence(std::move(elements));
      return;
    }
    if (auto pos = Position(ctx, 1, n, /*insert=*/false)) {
      elements.erase(elements.begin() + *pos);
      ctx.out(0) = Sequence(std::move(elements));
      return;
    }
  }
  if (auto common = CommonElement(*seq)) {
    if (auto f = UniformSequence(sym::Sub(seq->length, C(1)), *common)) ctx.out(0) = *f;
  }
}

// SequenceAt-11: the element at `position` (negative counts from the back).
void InferSequenceAt(OpContext& ctx) {
  if (ctx.in(0).sequence && ctx.in(0).sequence->chunks) {
    ChunkAt(ctx, *ctx.in(0).sequence);
    return;
  }
  auto seq = ReadSeq(ctx.in(0));
  if (!seq) return;
  const int64_t n = static_cast<int64_t>(seq->elements.size());
  if (!seq->uniform) {
    if (auto pos = Position(ctx, 1, n, /*insert=*/false)) {
      ctx.out(0) = seq->elements[*pos];
      return;
    }
  } else if (auto e = SingleElement(ctx, 1)) {
    // A sequence of a dynamic length (SplitToSequence of an input axis) read at a constant
    // position: one that unbind() unrolled at the example's length fails on fewer elements.
    const std::optional<int64_t> pos = e->value ? e->value->AsConstant() : std::nullopt;
    if (pos && *pos > -kMaxTrackedElements && *pos < kMaxTrackedElements &&
        (*pos >= 1 || *pos < -1)) {
      const int64_t needed = *pos >= 0 ? *pos + 1 : -*pos;
      ctx.Require(RequirementKind::kIndexBound, Relation::kAtLeast, seq->length, C(needed),
                  absl::StrCat("SequenceAt position ", *pos, " needs ", needed, " elements"),
                  e->origin);
    }
  }
  if (auto common = CommonElement(*seq)) ctx.out(0) = *common;
}

// SequenceLength-11: an int64 scalar holding the number of elements.
void InferSequenceLength(OpContext& ctx) {
  TensorFact& y = ctx.out(0);
  y.elem_type = TensorProto::INT64;
  y.shape = Dims{};
  if (ctx.in(0).sequence && ctx.in(0).sequence->chunks) {
    y.values = std::vector<Element>{{ctx.in(0).sequence->length}};
  } else if (auto seq = ReadSeq(ctx.in(0))) {
    y.values = std::vector<Element>{{seq->length}};
  }
}

// SplitToSequence-11: without `split`, one element per index of `axis` (that dim dropped when
// keepdims = 0); a scalar `split` cuts chunks of that size, the last one smaller; a 1-D
// `split` gives the sizes.
void InferSplitToSequence(OpContext& ctx) {
  const TensorFact& x = ctx.in(0);
  if (!x.shape) return;
  auto axis = NormalizeAxis(ctx.AttrInt("axis", 0), x.rank());
  if (!axis) return;
  const MaybeExpr dim = (*x.shape)[*axis];
  auto element = [&](const MaybeExpr& size, bool keep) {
    TensorFact e;
    e.elem_type = x.elem_type;
    Dims dims = *x.shape;
    if (keep) {
      dims[*axis] = size;
    } else {
      dims.erase(dims.begin() + *axis);
    }
    e.shape = std::move(dims);
    return e;
  };
  std::vector<TensorFact> elements;
  if (!ctx.has_input(1)) {
    const bool keep = ctx.AttrInt("keepdims", 1) != 0;
    if (auto f = UniformSequence(dim, element(C(1), keep))) ctx.out(0) = *f;
    return;
  }
  if (ctx.in(1).rank() == 0) {
    auto chunk = nn::ConstOf(nn::ScalarInput(ctx, 1));
    auto total = nn::ConstOf(dim);
    if (chunk && *chunk > 0 && !total && dim) {
      ctx.out(0) = ChunkSequence(*axis, *chunk, *dim, element(std::nullopt, true));
      return;
    }
    if (!chunk || !total || *chunk <= 0 || *total > kMaxTrackedElements) return;
    for (int64_t begin = 0; begin < *total; begin += *chunk) {
      elements.push_back(element(C(std::min(*chunk, *total - begin)), true));
    }
  } else {
    auto sizes = ElementValues(ctx, 1);
    if (!sizes) return;
    MaybeExpr sum = C(0);
    for (const MaybeExpr& s : *sizes) {
      elements.push_back(element(s, true));
      sum = sym::Add(sum, s);
    }
    ctx.Require(RequirementKind::kSplitSum, Relation::kEqual, dim, sum,
                absl::StrCat("SplitToSequence sizes must add up to input axis ", *axis), kNoOrigin,
                *axis);
  }
  ctx.out(0) = Sequence(std::move(elements));
}

// ConcatFromSequence-11: Concat of the elements along `axis`, or a stack on a new axis when
// new_axis = 1 (then axis may be -r-1..r and the elements must have equal shapes).
void InferConcatFromSequence(OpContext& ctx) {
  auto seq = ReadSeq(ctx.in(0));
  if (!seq || seq->elements.empty()) return;
  const TensorFact& first = seq->elements.front();
  TensorFact& y = ctx.out(0);
  y.elem_type = first.elem_type;
  auto axis_attr = ctx.AttrInt("axis");
  if (!first.shape || !axis_attr) return;
  const bool new_axis = ctx.AttrInt("new_axis", 0) != 0;
  const int64_t rank = first.rank();
  auto axis = NormalizeAxis(*axis_attr, new_axis ? rank + 1 : rank);
  if (!axis) return;
  Dims dims = *first.shape;
  MaybeExpr concat = C(0);
  for (const TensorFact& e : seq->elements) {
    if (!e.shape || e.rank() != rank) return;
    for (int64_t a = 0; a < rank; ++a) {
      if (!new_axis && a == *axis) continue;
      ctx.Require(RequirementKind::kConcatDim, Relation::kEqual, (*e.shape)[a], dims[a],
                  absl::StrCat("ConcatFromSequence elements must agree on axis ", a), kNoOrigin, a);
    }
    if (!new_axis) concat = sym::Add(concat, (*e.shape)[*axis]);
  }
  if (new_axis) {
    dims.insert(dims.begin() + *axis, seq->length);
  } else {
    dims[*axis] = seq->uniform ? sym::Mul(seq->length, dims[*axis]) : concat;
  }
  y.shape = std::move(dims);
}

// Optional-15: an optional holding its input (or, without one, empty); the engine tracks the
// held tensor's fact. OptionalGetElement-15/18 passes it on; OptionalHasElement-15/18 is a
// bool scalar, true when the optional is known to hold a value.
void InferOptional(OpContext& ctx) {
  if (ctx.has_input(0)) ctx.out(0) = ctx.in(0);
}

void InferOptionalGetElement(OpContext& ctx) { ctx.out(0) = ctx.in(0); }

void InferOptionalHasElement(OpContext& ctx) {
  TensorFact& y = ctx.out(0);
  y.elem_type = TensorProto::BOOL;
  y.shape = Dims{};
  const ir::Node node = ctx.node();
  if (node.input_size() == 0 || node.input(0).empty()) {
    y.values = std::vector<Element>{{C(0)}};  // no input: an empty optional
    return;
  }
  const int producer = ctx.graph().Producer(node.input(0));
  if (producer >= 0 && ctx.graph().node(producer).op_type() == "Optional") {
    const auto& opt = ctx.graph().node(producer);
    const bool holds = opt.input_size() > 0 && !opt.input(0).empty();
    y.values = std::vector<Element>{{C(holds ? 1 : 0)}};
  }
}

// SequenceMap-17: the body runs once per element of the input sequence; additional inputs that
// are sequences give their element at the same position, tensors are passed whole. Each body
// output becomes a sequence of the same length.
void InferSequenceMap(OpContext& ctx, SubgraphRunner& runner) {
  const ir::Graph* body = ctx.graph().Subgraph(ctx.node_index(), "body");
  auto seq = ReadSeq(ctx.in(0));
  if (body == nullptr || !seq) return;
  // One body run per position; a sequence of symbolic length has one position for all.
  const size_t runs = seq->uniform ? 1 : seq->elements.size();
  std::vector<std::vector<TensorFact>> outputs(ctx.num_outputs());
  for (size_t i = 0; i < runs; ++i) {
    std::vector<TensorFact> inputs{seq->elements[i]};
    for (size_t k = 1; k < ctx.num_inputs(); ++k) {
      const TensorFact& extra = ctx.in(k);
      auto other = ReadSeq(extra);
      if (!other) {
        inputs.push_back(extra);
      } else if (other->uniform == seq->uniform && other->length == seq->length) {
        inputs.push_back(other->elements[other->uniform ? 0 : i]);
      } else {
        return;  // sequences of different lengths: the op fails
      }
    }
    auto out = runner.RunSubgraph(ctx, *body, std::move(inputs), false);
    for (size_t j = 0; j < outputs.size() && j < out.size(); ++j) outputs[j].push_back(out[j]);
  }
  for (size_t j = 0; j < outputs.size(); ++j) {
    if (outputs[j].size() != runs) continue;
    if (seq->uniform) {
      if (auto f = UniformSequence(seq->length, outputs[j][0])) ctx.out(j) = *f;
    } else {
      ctx.out(j) = Sequence(std::move(outputs[j]));
    }
  }
}

}  // namespace shapelint::infer
