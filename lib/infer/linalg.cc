// Matrix products: MatMul (numpy semantics, batch dims broadcast) and Gemm.
#include "absl/strings/str_cat.h"
#include "infer/op_context.h"
#include "infer/ops.h"

namespace shapelint::infer {

void InferMatMul(OpContext& ctx) {
  const TensorFact& a = ctx.in(0);
  const TensorFact& b = ctx.in(1);
  TensorFact& y = ctx.out(0);
  y.elem_type = a.elem_type ? a.elem_type : b.elem_type;
  if (!a.shape || !b.shape || a.rank() == 0 || b.rank() == 0) return;
  // 1-D operands are promoted to matrices and the added axis is removed afterwards.
  Dims sa = *a.shape, sb = *b.shape;
  const bool a_vec = sa.size() == 1, b_vec = sb.size() == 1;
  if (a_vec) sa.insert(sa.begin(), sym::Expr::Constant(1));
  if (b_vec) sb.push_back(sym::Expr::Constant(1));
  const size_t ra = sa.size(), rb = sb.size();
  ctx.Require(RequirementKind::kInnerDim, Relation::kEqual, sa[ra - 1], sb[rb - 2],
              absl::StrCat("MatMul inner dimension: input 0 axis ", a.rank() - 1,
                           " vs input 1 axis ", b_vec ? 0 : b.rank() - 2),
              kNoOrigin, static_cast<int64_t>(ra - 1));
  // Batch dims broadcast like an elementwise op.
  const size_t batch = std::max(ra, rb) - 2;
  Dims out;
  for (size_t i = 0; i < batch; ++i) {
    // Batch dims are right-aligned; a missing one counts as 1.
    sym::MaybeExpr da = (i + ra - 2 >= batch) ? sa[i + ra - 2 - batch] : sym::Expr::Constant(1);
    sym::MaybeExpr db = (i + rb - 2 >= batch) ? sb[i + rb - 2 - batch] : sym::Expr::Constant(1);
    if (!da || !db) {
      out.push_back(std::nullopt);
      continue;
    }
    if (da->AsConstant() == 1) {
      out.push_back(db);
    } else if (db->AsConstant() == 1 || *da == *db) {
      out.push_back(da);
    } else {
      ctx.Require(RequirementKind::kBroadcast, Relation::kBroadcastable, da, db,
                  absl::StrCat("MatMul batch dims broadcast at output axis ", i), kNoOrigin,
                  static_cast<int64_t>(i));
      out.push_back(da->IsConstant() ? da : db->IsConstant() ? db : sym::Max(da, db));
    }
  }
  if (!a_vec) out.push_back(sa[ra - 2]);
  if (!b_vec) out.push_back(sb[rb - 1]);
  y.shape = std::move(out);
}

void InferGemm(OpContext& ctx) {
  const TensorFact& a = ctx.in(0);
  const TensorFact& b = ctx.in(1);
  TensorFact& y = ctx.out(0);
  y.elem_type = a.elem_type ? a.elem_type : b.elem_type;
  if (!a.shape || !b.shape || a.rank() != 2 || b.rank() != 2) return;
  const bool ta = ctx.AttrInt("transA", 0) != 0, tb = ctx.AttrInt("transB", 0) != 0;
  const sym::MaybeExpr& m = (*a.shape)[ta ? 1 : 0];
  const sym::MaybeExpr& ka = (*a.shape)[ta ? 0 : 1];
  const sym::MaybeExpr& kb = (*b.shape)[tb ? 1 : 0];
  const sym::MaybeExpr& n = (*b.shape)[tb ? 0 : 1];
  ctx.Require(RequirementKind::kInnerDim, Relation::kEqual, ka, kb,
              absl::StrCat("Gemm inner dimension: A axis ", ta ? 0 : 1, " vs B axis ", tb ? 1 : 0),
              kNoOrigin, 1);
  y.shape = Dims{m, n};
  // C broadcasts unidirectionally to [M, N].
  const TensorFact& c = ctx.in(2);
  if (c.shape && c.rank() <= 2) {
    const Dims& sc = *c.shape;
    for (size_t k = 0; k < sc.size(); ++k) {
      const sym::MaybeExpr& target = (*y.shape)[2 - sc.size() + k];
      ctx.Require(RequirementKind::kBroadcast, Relation::kBroadcastable, sc[k], target,
                  absl::StrCat("Gemm bias C broadcasts to the output at axis ", 2 - sc.size() + k),
                  kNoOrigin, static_cast<int64_t>(2 - sc.size() + k));
    }
  }
}

}  // namespace shapelint::infer
