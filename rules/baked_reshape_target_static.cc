// SL002: which literals of a Reshape target only pass the input's static dims through
// (baked_reshape_target.h): they hold no size of the example, whatever the other entries do.
#include <cstdint>
#include <optional>
#include <vector>

#include "baked_reshape_target.h"

namespace shapelint::lint::baked_reshape_target {
namespace {

// Products of static dims past this are left alone: they would overflow before they matter.
constexpr int64_t kMaxStaticProduct = int64_t{1} << 40;

}  // namespace

// True when a Reshape's target follows its input's dynamic dims and its literals regroup only
// the static ones: [B, S, 512] to [B, S, 8, 64], the head split of attention; [B*S, 3072] to
// [B, S, 3072], a projection's output view. The entries that are not constants multiply to
// the dynamic dims' product, and the literals to the static dims' (a -1 takes what is left).
// Its literals are right at every size.
bool RegroupsStaticDims(const infer::TensorFact& input, const infer::TensorFact& target) {
  sym::MaybeExpr dynamic_in = sym::Expr::Constant(1), dynamic_out = sym::Expr::Constant(1);
  int64_t static_product = 1;
  for (const auto& d : *input.shape) {
    if (!d) return false;
    if (auto c = d->AsConstant()) {
      if (*c <= 0 || static_product > kMaxStaticProduct) return false;
      static_product *= *c;
    } else {
      dynamic_in = sym::Mul(dynamic_in, *d);
    }
  }
  int64_t literal_product = 1;
  bool infer_one = false;
  for (size_t j = 0; j < target.values->size(); ++j) {
    const infer::Element& e = (*target.values)[j];
    if (!e.value) return false;
    // Reshape's 0 copies the input's dim at its place: [0, 0, 8, 64] keeps B and S.
    sym::MaybeExpr value = e.value;
    if (e.value->AsConstant() == 0 && j < input.shape->size()) value = (*input.shape)[j];
    if (!value) return false;
    if (auto c = value->AsConstant()) {
      if (*c == -1 && !infer_one) {
        infer_one = true;
        continue;
      }
      if (*c <= 0 || literal_product > kMaxStaticProduct) return false;
      literal_product *= *c;
      continue;
    }
    dynamic_out = sym::Mul(dynamic_out, *value);
  }
  if (!dynamic_in || !dynamic_out || *dynamic_in != *dynamic_out) return false;
  return infer_one ? static_product % literal_product == 0 : static_product == literal_product;
}

// The target entries that keep a static input dim at its place at either end, the literal equal
// to it: the coordinate pair of a sampling grid's [b, h * w, 2] viewed as [b, h, w, 2], a
// projection's features. They pass the input's own dim through, and hold no size of the example
// whatever the other entries do.
std::vector<bool> KeptStaticEnds(const infer::TensorFact& input,
                                 const std::vector<infer::Element>& target) {
  std::vector<bool> kept(target.size(), false);
  const size_t rank = input.shape->size();
  auto same = [&](size_t in, size_t out) {
    const sym::MaybeExpr& d = (*input.shape)[in];
    const sym::MaybeExpr& e = target[out].value;
    const std::optional<int64_t> c = d ? d->AsConstant() : std::nullopt;
    return c && *c > 1 && e && e->AsConstant() == c;
  };
  for (size_t i = 0; i < rank && i < target.size() && same(i, i); ++i) kept[i] = true;
  for (size_t i = 1; i <= rank && i <= target.size() && same(rank - i, target.size() - i); ++i) {
    kept[target.size() - i] = true;
  }
  return kept;
}

}  // namespace shapelint::lint::baked_reshape_target
