// Text ops: StringNormalizer-10, TfIdfVectorizer-9, StringSplit-20, and ImageDecoder-20 (bytes
// in, a decoded image out).
#include <algorithm>

#include "infer/nn_util.h"
#include "infer/op_context.h"
#include "infer/ops.h"

namespace shapelint::infer {

using nn::C;
using ONNX_NAMESPACE::TensorProto;
using sym::MaybeExpr;

void InferStringNormalizer(OpContext& ctx) {
  // "This operator only accepts [C]- and [1, C]-tensor." Without stopwords nothing is removed
  // and the shape is kept; with them the count is known only at run time ("If all elements in
  // X are dropped, the output will be ... shape [1]" or [1, 1]).
  const TensorFact& x = ctx.in(0);
  TensorFact& y = ctx.out(0);
  y.elem_type = TensorProto::STRING;
  if (!x.shape || (x.rank() != 1 && x.rank() != 2)) return;
  if (x.rank() == 2 && nn::ConstOf((*x.shape)[0]) != 1) return;
  const MaybeExpr& c = (*x.shape)[x.rank() - 1];
  const auto* stopwords = ctx.Attr("stopwords");
  MaybeExpr kept;
  if (stopwords == nullptr || stopwords->strings_size() == 0) {
    // An empty input still gives one (empty) string; symbols stand for sizes >= 1.
    if (c && c->AsConstant() != 0) kept = c;
  } else {
    kept = ctx.FreshSymbol("kept");
  }
  y.shape = x.rank() == 1 ? Dims{kept} : Dims{C(1), kept};
}

void InferTfIdfVectorizer(OpContext& ctx) {
  // [C] -> [max(ngram_indexes) + 1]; [N, C] -> [N, max(ngram_indexes) + 1]; float.
  const TensorFact& x = ctx.in(0);
  TensorFact& y = ctx.out(0);
  y.elem_type = TensorProto::FLOAT;
  auto indexes = ctx.AttrInts("ngram_indexes");
  if (!indexes || indexes->empty() || !x.shape || (x.rank() != 1 && x.rank() != 2)) return;
  int64_t max = -1;
  for (int64_t i : *indexes) max = std::max(max, i);
  if (max < 0) return;
  y.shape = x.rank() == 1 ? Dims{C(max + 1)} : Dims{(*x.shape)[0], C(max + 1)};
}

void InferStringSplit(OpContext& ctx) {
  // StringSplit-20: X -> Y [*X.shape, max substrings] (string), Z [*X.shape] (int64). How many
  // substrings the longest string has is in the data (maxsplit only bounds it).
  const TensorFact& x = ctx.in(0);
  ctx.out(0).elem_type = TensorProto::STRING;
  if (ctx.num_outputs() > 1) ctx.out(1).elem_type = TensorProto::INT64;
  if (!x.shape) return;
  Dims y = *x.shape;
  y.push_back(ctx.FreshSymbol("substrings"));
  ctx.out(0).shape = std::move(y);
  if (ctx.num_outputs() > 1) ctx.out(1).shape = x.shape;
}

void InferImageDecoder(OpContext& ctx) {
  // ImageDecoder-20: encoded bytes [n] -> uint8 [H, W, C], C = 1 for "Grayscale", else 3
  // ("RGB", the default, or "BGR"); H and W are in the data.
  TensorFact& y = ctx.out(0);
  y.elem_type = TensorProto::UINT8;
  const std::string format = ctx.AttrString("pixel_format").value_or("RGB");
  y.shape =
      Dims{ctx.FreshSymbol("height"), ctx.FreshSymbol("width"), C(format == "Grayscale" ? 1 : 3)};
}

}  // namespace shapelint::infer
