// SL002: how a Reshape target's entries stand to its input's dims (baked_reshape_target.h):
// literals that only pass static dims through hold no size of the example, whatever the other
// entries do; a literal first entry before entries that follow a merged axis' other factors
// takes the place of the factor left.
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "baked_reshape_target.h"

namespace shapelint::lint::baked_reshape_target {
namespace {

// Products of static dims past this are left alone: they would overflow before they matter.
constexpr int64_t kMaxStaticProduct = int64_t{1} << 40;

// True when `whole` / `rest` is `symbol` at `at` and as `symbol`, then each symbol of `rest`,
// is doubled in turn.
bool FactorAt(const sym::Expr& whole, const sym::Expr& rest, const std::string& symbol,
              const sym::Binding& at) {
  std::vector<std::string> moves = {symbol};
  for (std::string& s : rest.Symbols()) {
    if (s != symbol) moves.push_back(std::move(s));
  }
  sym::Binding moved = at;
  for (size_t step = 0; step <= moves.size(); ++step) {
    const std::optional<int64_t> s = moved.Get(symbol);
    const std::optional<int64_t> w = whole.Evaluate(moved);
    const std::optional<int64_t> r = rest.Evaluate(moved);
    if (!s || !w || !r || *r <= 0 || *s < 1 || *s > std::numeric_limits<int64_t>::max() / *r ||
        *w != *s * *r) {
      return false;
    }
    if (step == moves.size()) break;
    // The factor first, then each of rest's symbols on top of the moves before it.
    const std::optional<int64_t> m = moved.Get(moves[step]);
    if (!m || *m > std::numeric_limits<int64_t>::max() / 4) return false;
    moved.Set(moves[step], *m * 2);
  }
  return true;
}

}  // namespace

std::optional<MergedFactor> FactorBeforeFollowingEntries(const sym::Expr& dim,
                                                         const std::vector<infer::Element>& target,
                                                         const sym::Binding& witness) {
  sym::MaybeExpr rest = sym::Expr::Constant(1);
  for (size_t k = 1; k < target.size() && rest; ++k) {
    const sym::MaybeExpr& v = target[k].value;
    if (!v || v->AsConstant()) break;
    rest = sym::Mul(rest, v);
  }
  if (!rest || rest->AsConstant()) return std::nullopt;
  for (const std::string& s : dim.Symbols()) {
    if (FactorAt(dim, *rest, s, witness)) return MergedFactor{s, rest->ToString()};
  }
  return std::nullopt;
}

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
