// ONNX Runtime contrib ops of the com.microsoft domain that ORT's transformer optimiser
// writes: fused attention, fused normalisations, GELU variants, 4-bit MatMul and gather.
// Shapes follow onnxruntime docs/ContribOperators.md; where it leaves a shape open (buffer
// sharing of KV caches, statistics outputs) the output stays unknown.
#include "absl/strings/str_cat.h"
#include "infer/nn_util.h"
#include "infer/op_context.h"
#include "infer/ops.h"
#include "infer/tensor_util.h"

namespace shapelint::infer {
namespace {

using nn::C;
using nn::ConstOf;
using nn::DimOf;
using ONNX_NAMESPACE::TensorProto;
using sym::MaybeExpr;

// 1-D parameter `param` (gamma, beta, bias) has one entry per hidden unit: X's last dim.
void RequireHiddenParam(OpContext& ctx, size_t param, const char* op) {
  const TensorFact& x = ctx.in(0);
  const TensorFact& p = ctx.in(param);
  if (!x.shape || x.rank() < 1 || !p.shape || p.rank() != 1) return;
  ctx.Require(RequirementKind::kChannels, Relation::kEqual, (*p.shape)[0], x.shape->back(),
              absl::StrCat(op, " input ", param, " length vs input hidden size"), kNoOrigin,
              x.rank() - 1);
}

// SkipLayerNormalization / SkipSimplifiedLayerNormalization: output and the optional
// input_skip_bias_sum (output 3) have the input's shape; mean and inv_std_var are unspecified.
void InferSkipNorm(OpContext& ctx, const char* op, std::initializer_list<size_t> params) {
  const TensorFact& x = ctx.in(0);
  for (size_t k : {size_t{0}, size_t{3}}) {
    if (k >= ctx.num_outputs()) continue;
    ctx.out(k).elem_type = x.elem_type;
    ctx.out(k).shape = x.shape;
  }
  for (size_t p : params) {
    if (ctx.has_input(p)) RequireHiddenParam(ctx, p, op);
  }
}

}  // namespace

void InferMsSameShape(OpContext& ctx) {
  // Gelu, FastGelu (X, bias?), BiasGelu (A, B), QuickGelu, RotaryEmbedding: "The output"
  // has the first input's shape.
  ctx.out(0).elem_type = ctx.in(0).elem_type;
  ctx.out(0).shape = ctx.in(0).shape;
}

void InferMsSkipLayerNormalization(OpContext& ctx) {
  // input, skip, gamma, beta?, bias?
  InferSkipNorm(ctx, "SkipLayerNormalization", {2, 3, 4});
}

void InferMsSkipSimplifiedLayerNormalization(OpContext& ctx) {
  // input, skip, gamma, bias?
  InferSkipNorm(ctx, "SkipSimplifiedLayerNormalization", {2, 3});
}

void InferMsEmbedLayerNormalization(OpContext& ctx) {
  // input_ids (B, S), segment_ids?, word_embedding (, hidden), position_embedding,
  // segment_embedding?, gamma (hidden), beta, mask?, position_ids? ->
  // output (B, S, hidden), mask_index (B) int32, embedding_sum (B, S, hidden).
  const TensorFact& ids = ctx.in(0);
  const TensorFact& word = ctx.in(2);
  const int32_t t = word.elem_type;
  const MaybeExpr hidden = DimOf(word, 1);
  // The position and segment embeddings are added to the word embedding: same hidden size.
  for (size_t p : {size_t{3}, size_t{4}}) {
    const TensorFact& e = ctx.in(p);
    if (ctx.has_input(p) && e.shape && e.rank() == 2) {
      ctx.Require(RequirementKind::kBroadcast, Relation::kEqual, (*e.shape)[1], hidden,
                  absl::StrCat("EmbedLayerNormalization input ", p, " hidden vs word_embedding"),
                  kNoOrigin, 1);
    }
  }
  if (ctx.num_outputs() > 0) ctx.out(0).elem_type = t;
  if (ctx.num_outputs() > 1) ctx.out(1).elem_type = TensorProto::INT32;
  if (ctx.num_outputs() > 2) ctx.out(2).elem_type = t;
  if (!ids.shape || ids.rank() != 2) return;
  // Positions 0 .. S - 1 index the position embedding's rows unless position_ids are given (then
  // up to their largest known value): ONNX Runtime fails "input index out of range" past the
  // table, as a Gather of position ids does (BERT's 512 positions).
  const TensorFact& positions = ctx.in(3);
  const TensorFact& position_ids = ctx.in(8);
  if (positions.shape && positions.rank() == 2) {
    const MaybeExpr needed =
        ctx.has_input(8) ? sym::Add(LargestOf(position_ids), C(1)) : (*ids.shape)[1];
    if (needed) {
      ctx.Require(RequirementKind::kIndexBound, Relation::kAtLeast, (*positions.shape)[0], *needed,
                  absl::StrCat("EmbedLayerNormalization positions up to ", needed->ToString(),
                               " - 1 in position_embedding axis 0"),
                  kNoOrigin, 0);
    }
  }
  // segment_ids have input_ids' shape; position_ids (1 or B, S): ONNX Runtime checks both.
  const TensorFact& segments = ctx.in(1);
  if (ctx.has_input(1) && segments.shape && segments.rank() == 2) {
    for (int64_t axis : {0, 1}) {
      ctx.Require(RequirementKind::kBroadcast, Relation::kEqual, (*segments.shape)[axis],
                  (*ids.shape)[axis],
                  absl::StrCat("EmbedLayerNormalization segment_ids vs input_ids axis ", axis),
                  kNoOrigin, axis);
    }
  }
  if (ctx.has_input(8) && position_ids.shape && position_ids.rank() == 2) {
    ctx.Require(RequirementKind::kBroadcast, Relation::kBroadcastable, (*position_ids.shape)[0],
                (*ids.shape)[0], "EmbedLayerNormalization position_ids vs input_ids axis 0",
                kNoOrigin, 0);
    ctx.Require(RequirementKind::kBroadcast, Relation::kEqual, (*position_ids.shape)[1],
                (*ids.shape)[1], "EmbedLayerNormalization position_ids vs input_ids axis 1",
                kNoOrigin, 1);
  }
  const Dims out{(*ids.shape)[0], (*ids.shape)[1], hidden};
  if (ctx.num_outputs() > 0) ctx.out(0).shape = out;
  if (ctx.num_outputs() > 1) ctx.out(1).shape = Dims{(*ids.shape)[0]};
  if (ctx.num_outputs() > 2) ctx.out(2).shape = out;
}

void InferMsAttention(OpContext& ctx) {
  // input (B, S, input_hidden), weights (input_hidden, hidden + hidden + v_hidden), bias?,
  // mask_index?, past? (2, B, heads, past_seq, head), attention_bias?, past_sequence_length? ->
  // output (B, S, v_hidden), present (2, B, heads, past_seq + S, head).
  const TensorFact& x = ctx.in(0);
  const TensorFact& w = ctx.in(1);
  for (size_t k = 0; k < ctx.num_outputs(); ++k) ctx.out(k).elem_type = x.elem_type;
  if (!x.shape || x.rank() != 3) return;
  if (w.shape && w.rank() == 2) {
    ctx.Require(RequirementKind::kInnerDim, Relation::kEqual, (*x.shape)[2], (*w.shape)[0],
                "Attention input hidden size vs weights axis 0", kNoOrigin, 2);
  }
  auto qkv = ctx.AttrInts("qkv_hidden_sizes");
  if (qkv && qkv->size() != 3) return;
  MaybeExpr v_hidden;
  if (qkv) {
    v_hidden = C((*qkv)[2]);
  } else if (auto total = ConstOf(DimOf(w, 1)); total && *total % 3 == 0) {
    v_hidden = C(*total / 3);  // Q, K and V of equal width
  }
  ctx.out(0).shape = Dims{(*x.shape)[0], (*x.shape)[1], v_hidden};
  if (ctx.num_outputs() < 2) return;
  const TensorFact& past = ctx.in(4);
  if (!ctx.has_input(4) || !past.shape || past.rank() != 5) return;
  if (ctx.AttrInt("past_present_share_buffer", 0) != 0) {
    ctx.out(1).shape = past.shape;  // the same buffer, (2, B, heads, max_sequence_length, head)
    return;
  }
  Dims present = *past.shape;
  present[3] = sym::Add(present[3], (*x.shape)[1]);
  ctx.out(1).shape = std::move(present);
}

void InferMsMultiHeadAttention(OpContext& ctx) {
  // query (B, S, hidden) or packed QKV (B, S, heads, 3, head); key (B, L, hidden), packed KV
  // (B, L, heads, 2, head) or a BNSH cache (B, heads, L, head); value (B, L, v_hidden) or BNSH
  // (B, heads, L, v_head) -> output (B, S, v_hidden).
  const TensorFact& q = ctx.in(0);
  const TensorFact& k = ctx.in(1);
  const TensorFact& v = ctx.in(2);
  for (size_t i = 0; i < ctx.num_outputs(); ++i) ctx.out(i).elem_type = q.elem_type;
  const auto heads = ctx.AttrInt("num_heads");
  if (!q.shape || !heads || *heads < 1) return;
  const Dims& sq = *q.shape;
  MaybeExpr v_hidden;
  if (q.rank() == 5) {
    if (ctx.has_input(1) || ctx.has_input(2)) return;
    // Packed QKV: heads * head per projection.
    v_hidden = sym::Mul(sq[2], sq[4]);
  } else if (q.rank() == 3) {
    if (k.shape && k.rank() == 5 && !ctx.has_input(2)) {
      v_hidden = sym::Mul((*k.shape)[2], (*k.shape)[4]);  // packed KV
    } else if (v.shape && v.rank() == 3) {
      v_hidden = (*v.shape)[2];
    } else if (v.shape && v.rank() == 4) {
      v_hidden = sym::Mul((*v.shape)[1], (*v.shape)[3]);  // BNSH value
    }
  } else {
    return;
  }
  ctx.out(0).shape = Dims{sq[0], sq[1], v_hidden};
}

void InferMsGroupQueryAttention(OpContext& ctx) {
  // query (B, S, heads * head) with key and value, or packed QKV
  // (B, S, (heads + 2 * kv_heads) * head) without them -> output (B, S, heads * head).
  // present_key / present_value depend on buffer sharing and the value of
  // total_sequence_length: unknown.
  const TensorFact& q = ctx.in(0);
  for (size_t i = 0; i < ctx.num_outputs(); ++i) ctx.out(i).elem_type = q.elem_type;
  if (ctx.num_outputs() > 1) ctx.out(1).elem_type = ctx.in(3).elem_type;
  if (ctx.num_outputs() > 2) ctx.out(2).elem_type = ctx.in(4).elem_type;
  if (ctx.num_outputs() > 1 && ctx.out(1).elem_type == 0) ctx.out(1).elem_type = q.elem_type;
  if (ctx.num_outputs() > 2 && ctx.out(2).elem_type == 0) ctx.out(2).elem_type = q.elem_type;
  const auto heads = ctx.AttrInt("num_heads");
  const auto kv_heads = ctx.AttrInt("kv_num_heads");
  if (!q.shape || q.rank() != 3 || !heads || !kv_heads || *heads < 1 || *kv_heads < 1) return;
  const Dims& sq = *q.shape;
  MaybeExpr hidden = sq[2];
  if (!ctx.has_input(1) && !ctx.has_input(2)) {
    const MaybeExpr head = nn::SplitHeads(ctx, sq[2], *heads + 2 * *kv_heads,
                                          "GroupQueryAttention packed QKV vs total heads");
    hidden = sym::Mul(head, C(*heads));
  }
  ctx.out(0).shape = Dims{sq[0], sq[1], hidden};
}

void InferMsMatMulNBits(OpContext& ctx) {
  // A (..., K), B packed (N, k_blocks, blob_size) with attributes K and N -> Y (..., N).
  const TensorFact& a = ctx.in(0);
  TensorFact& y = ctx.out(0);
  y.elem_type = a.elem_type;
  const auto k = ctx.AttrInt("K"), n = ctx.AttrInt("N");
  if (!a.shape || a.rank() < 1 || !k || !n || *k < 1 || *n < 1) return;
  ctx.Require(RequirementKind::kInnerDim, Relation::kEqual, a.shape->back(), C(*k),
              absl::StrCat("MatMulNBits inner dimension: A axis ", a.rank() - 1, " vs K"),
              kNoOrigin, a.rank() - 1);
  Dims out = *a.shape;
  out.back() = C(*n);
  y.shape = std::move(out);
}

void InferMsGatherBlockQuantized(OpContext& ctx) {
  // Gather of data on gather_axis: data.shape[:axis] + indices.shape + data.shape[axis+1:], of
  // rank q + r - 1; uint8 data packs 8 / bits values along the last axis (bits < 8), which the
  // dequantised output unpacks.
  const TensorFact& data = ctx.in(0);
  const TensorFact& idx = ctx.in(1);
  TensorFact& y = ctx.out(0);
  y.elem_type = ctx.in(2).elem_type;
  if (!data.shape || !idx.shape || data.rank() < 1) return;
  auto axis = NormalizeAxis(ctx.AttrInt("gather_axis", 0), data.rank());
  if (!axis) return;
  int64_t unpack = 1;
  if (data.elem_type == TensorProto::UINT8) {
    const int64_t bits = ctx.AttrInt("bits", 4);
    if (bits != 2 && bits != 4 && bits != 8) return;
    unpack = 8 / bits;
    if (*axis == data.rank() - 1 && unpack != 1) return;
  } else if (data.elem_type == 0) {
    return;  // packing depends on the type
  }
  Dims out(data.shape->begin(), data.shape->begin() + *axis);
  out.insert(out.end(), idx.shape->begin(), idx.shape->end());
  out.insert(out.end(), data.shape->begin() + *axis + 1, data.shape->end());
  if (unpack != 1) out.back() = sym::Mul(out.back(), C(unpack));
  y.shape = std::move(out);
}

}  // namespace shapelint::infer
