// Ops that introduce or pass on values unchanged: Constant, Identity, Cast.
#include "absl/strings/str_cat.h"
#include "infer/op_context.h"
#include "infer/ops.h"
#include "infer/tensor_util.h"

namespace shapelint::infer {
namespace {

using ONNX_NAMESPACE::AttributeProto;
using ONNX_NAMESPACE::TensorProto;

TensorFact IntList(const std::vector<int64_t>& values, bool scalar, OriginId origin) {
  TensorFact f;
  f.elem_type = TensorProto::INT64;
  f.shape = scalar ? Dims{} : Dims{sym::Expr::Constant(static_cast<int64_t>(values.size()))};
  if (static_cast<int64_t>(values.size()) <= kMaxTrackedElements) {
    std::vector<Element> elems;
    elems.reserve(values.size());
    for (int64_t v : values) elems.push_back({sym::Expr::Constant(v), origin});
    f.values = std::move(elems);
  }
  return f;
}

}  // namespace

void InferConstant(OpContext& ctx) {
  const ir::Node node = ctx.node();
  for (int k = 0; k < node.attribute_size(); ++k) {
    const AttributeProto* parsed = ctx.AttrAt(k);
    if (parsed == nullptr) continue;
    const AttributeProto& a = *parsed;
    OriginId origin =
        ctx.AddOrigin({Origin::Kind::kConstantNode, &ctx.graph(), ctx.node_index(), a.name()});
    if (a.name() == "value" && a.type() == AttributeProto::TENSOR) {
      if (auto defect = TensorDefect(a.t())) {
        ctx.Note(absl::StrCat("the Constant's value ", *defect,
                              "; what it holds is treated as unknown"));
      }
      ctx.out(0) = FactFromTensor(a.t(), origin);
    } else if (a.name() == "value_int" && a.type() == AttributeProto::INT) {
      ctx.out(0) = IntList({a.i()}, /*scalar=*/true, origin);
    } else if (a.name() == "value_ints" && a.type() == AttributeProto::INTS) {
      ctx.out(0) = IntList({a.ints().begin(), a.ints().end()}, /*scalar=*/false, origin);
    } else if (a.name() == "value_float" && a.type() == AttributeProto::FLOAT) {
      ctx.out(0).elem_type = TensorProto::FLOAT;
      ctx.out(0).shape = Dims{};
    } else if (a.name() == "value_floats" && a.type() == AttributeProto::FLOATS) {
      ctx.out(0).elem_type = TensorProto::FLOAT;
      ctx.out(0).shape = Dims{sym::Expr::Constant(a.floats_size())};
    } else if (a.name() == "sparse_value" && a.type() == AttributeProto::SPARSE_TENSOR) {
      TensorFact f;
      f.elem_type = a.sparse_tensor().values().data_type();
      Dims dims;
      for (int64_t d : a.sparse_tensor().dims()) {
        dims.push_back(d < 0 ? sym::MaybeExpr() : sym::Expr::Constant(d));
      }
      f.shape = std::move(dims);
      ctx.out(0) = std::move(f);
    } else {
      continue;
    }
    return;
  }
  ctx.Note("a Constant without a value attribute; its output is unknown");
}

void InferIdentity(OpContext& ctx) { ctx.out(0) = ctx.in(0); }

void InferCast(OpContext& ctx) {
  const TensorFact& x = ctx.in(0);
  TensorFact& y = ctx.out(0);
  y.elem_type = static_cast<int32_t>(ctx.AttrInt("to", 0));
  y.shape = x.shape;
  y.forms = x.forms;  // indices cast between integer and float types keep their largest
  if (!x.values) return;
  if (y.elem_type == TensorProto::BOOL) {
    std::vector<Element> vals;
    for (const Element& e : *x.values) {
      auto c = e.value ? e.value->AsConstant() : std::nullopt;
      vals.push_back({c ? sym::MaybeExpr(sym::Expr::Constant(*c != 0)) : std::nullopt, e.origin});
    }
    y.values = std::move(vals);
    return;
  }
  // Integer values survive a round trip through float (shape arithmetic in exported graphs
  // often does exactly that), so keep them whatever the target type; only integer consumers
  // read them.
  y.values = x.values;
  if (IsIntegerType(y.elem_type)) TruncateQuotients(x, y);
}

}  // namespace shapelint::infer
