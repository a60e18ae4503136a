#include "shapelint/sym/expr.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "sym/expr_node.h"
#include "sym/expr_test_util.h"

namespace shapelint::sym {
namespace {

constexpr int64_t kMax64 = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin64 = std::numeric_limits<int64_t>::min();

using testing::C;
using testing::Get;
using testing::P;
using testing::S;

std::string ParseError(std::string_view text) {
  absl::StatusOr<Expr> e = Parse(text);
  INFO("parsing " << text);
  REQUIRE_FALSE(e.ok());
  CHECK(e.status().code() == absl::StatusCode::kInvalidArgument);
  return std::string(e.status().message());
}

std::optional<int64_t> Eval(const Expr& e,
                            std::initializer_list<std::pair<const char*, int64_t>> values) {
  Binding b;
  for (const auto& [name, value] : values) b.Set(name, value);
  return e.Evaluate(b);
}

// Reference floor division written differently from the implementation: via 128-bit negation.
__int128 RefFloorDiv(__int128 a, __int128 b) {
  if (b < 0) return RefFloorDiv(-a, -b);
  if (a >= 0) return a / b;
  return -((-a + b - 1) / b);
}

TEST_CASE("constants and symbols", "[sym]") {
  CHECK(Expr() == C(0));
  CHECK(C(5).AsConstant() == 5);
  CHECK(C(5).IsConstant());
  CHECK_FALSE(S("n").IsConstant());
  CHECK(S("n").AsSymbol() == std::optional<std::string_view>("n"));
  CHECK_FALSE(Get(Add(S("n"), C(1))).AsSymbol().has_value());
  CHECK_FALSE(Get(Mul(S("n"), C(2))).AsSymbol().has_value());
  CHECK_FALSE(C(3).AsSymbol().has_value());
  CHECK(S("n") == S("n"));
  CHECK(S("n") != S("m"));
  CHECK(C(7) == C(7));
  CHECK(S("n").Hash() == S("n").Hash());
  CHECK(Get(Add(S("n"), C(1))).Hash() == Get(Add(C(1), S("n"))).Hash());
  CHECK(Get(Sub(S("n"), S("n"))) == C(0));
  CHECK(Get(Mul(S("n"), C(0))) == C(0));
  CHECK(Get(Mul(S("n"), C(1))) == S("n"));
  CHECK(Get(Neg(Neg(S("n")))) == S("n"));
  CHECK(Get(Add(S("n"), C(0))) == S("n"));
  // Adding 0 and multiplying by 1 give the other operand back, on either side; subtracting from
  // 0 negates.
  CHECK(Get(Mul(C(1), S("n"))) == S("n"));
  CHECK(Get(Add(C(0), S("n"))) == S("n"));
  CHECK(Get(Sub(S("n"), C(0))) == S("n"));
  CHECK(Get(Sub(C(0), S("n"))) == Get(Neg(S("n"))));
  CHECK(Get(Sub(C(0), S("n"))) != S("n"));
  CHECK(Get(Mul(C(1), C(1))) == C(1));
  CHECK(Get(Add(C(0), C(0))) == C(0));
}

TEST_CASE("unknown operands stay unknown", "[sym]") {
  MaybeExpr unknown;
  MaybeExpr s = S("s");
  CHECK_FALSE(Add(unknown, s));
  CHECK_FALSE(Add(s, unknown));
  CHECK_FALSE(Sub(unknown, s));
  CHECK_FALSE(Mul(s, unknown));
  CHECK_FALSE(Neg(unknown));
  CHECK_FALSE(FloorDiv(unknown, C(2)));
  CHECK_FALSE(FloorDiv(s, unknown));
  CHECK_FALSE(CeilDiv(unknown, C(2)));
  CHECK_FALSE(Mod(unknown, C(2)));
  CHECK_FALSE(Min(unknown, s));
  CHECK_FALSE(Max(s, unknown));
}

TEST_CASE("canonical equalities", "[sym]") {
  Expr a = S("a"), b = S("b"), s = S("s");
  // (a+b)*2 == 2*b + a*2
  CHECK(Get(Mul(Add(a, b), C(2))) == Get(Add(Mul(C(2), b), Mul(a, C(2)))));
  // Distribution and commutativity of products.
  CHECK(Get(Mul(Add(a, b), Add(a, b))) ==
        Get(Add(Add(Mul(a, a), Mul(C(2), Mul(a, b))), Mul(b, b))));
  CHECK(Get(Mul(Mul(a, b), s)) == Get(Mul(s, Mul(b, a))));
  // floor((2*s)/2) == s
  CHECK(Get(FloorDiv(Mul(C(2), s), C(2))) == s);
  // ceil(s/3) == floor((s+2)/3)
  CHECK(Get(CeilDiv(s, C(3))) == Get(FloorDiv(Add(s, C(2)), C(3))));
  // s mod 3 == s - 3*floor(s/3)
  CHECK(Get(Mod(s, C(3))) == Get(Sub(s, Mul(C(3), FloorDiv(s, C(3))))));
  // Splitting off the multiple of the divisor.
  CHECK(Get(FloorDiv(Add(Mul(C(6), a), Add(s, C(7))), C(3))) ==
        Get(Add(Add(Mul(C(2), a), C(2)), FloorDiv(Add(s, C(1)), C(3)))));
  // Common factor with the divisor: floor(2s/4) == floor(s/2).
  CHECK(Get(FloorDiv(Mul(C(2), s), C(4))) == Get(FloorDiv(s, C(2))));
  CHECK(Get(FloorDiv(Add(Mul(C(4), s), C(2)), C(6))) ==
        Get(FloorDiv(Add(Mul(C(2), s), C(1)), C(3))));
  // Nested floors collapse: floor(floor(s/2)/3) == floor(s/6), and with a constant in between.
  CHECK(Get(FloorDiv(FloorDiv(s, C(2)), C(3))) == Get(FloorDiv(s, C(6))));
  CHECK(Get(FloorDiv(Add(FloorDiv(Add(s, C(1)), C(3)), C(1)), C(2))) ==
        Get(FloorDiv(Add(s, C(4)), C(6))));
  // A conv/pool chain stays one floor deep.
  MaybeExpr conv = Add(FloorDiv(Sub(s, C(3)), C(2)), C(1));
  MaybeExpr conv2 = Add(FloorDiv(Sub(conv, C(3)), C(2)), C(1));
  CHECK(Get(conv2) == Get(Sub(FloorDiv(Add(s, C(1)), C(4)), C(1))));
  // Division by one and of constants.
  CHECK(Get(FloorDiv(s, C(1))) == s);
  CHECK(Get(FloorDiv(C(7), C(2))) == C(3));
  // Min/max: commutative, associative, idempotent, constant offsets resolved.
  CHECK(Get(Min(a, b)) == Get(Min(b, a)));
  CHECK(Get(Min(Min(a, b), s)) == Get(Min(a, Min(s, b))));
  CHECK(Get(Max(Max(a, C(3)), Max(b, C(5)))) == Get(Max(Max(b, a), C(5))));
  CHECK(Get(Min(a, a)) == a);
  CHECK(Get(Min(a, Add(a, C(1)))) == a);
  CHECK(Get(Max(a, Add(a, C(1)))) == Get(Add(a, C(1))));
  CHECK(Get(Min(Min(a, C(4)), C(2))) == Get(Min(a, C(2))));
  CHECK(Get(Max(C(4), C(9))) == C(9));
  CHECK(Get(Min(Add(a, C(2)), Min(b, Add(a, C(-1))))) == Get(Min(b, Sub(a, C(1)))));
  // min and max do not absorb each other.
  CHECK(Get(Min(a, b)) != Get(Max(a, b)));
  // Floor of a floor atom expression reuses the same node.
  CHECK(Get(FloorDiv(s, C(2))) == Get(FloorDiv(s, C(2))));
}

TEST_CASE("ToString canonical format", "[sym]") {
  Expr s0 = S("s0"), s1 = S("s1"), s2 = S("s2");
  CHECK(s0.ToString() == "s0");
  CHECK(C(0).ToString() == "0");
  CHECK(C(-5).ToString() == "-5");
  CHECK(Get(Add(Mul(C(2), s0), C(1))).ToString() == "2*s0 + 1");
  CHECK(Get(Add(S("seq"), S("past_seq"))).ToString() == "past_seq + seq");
  CHECK(Get(Mul(s2, Mul(s1, s0))).ToString() == "s0*s1*s2");
  CHECK(Get(Min(C(4), s0)).ToString() == "min(s0, 4)");
  CHECK(Get(Max(C(4), Add(s0, s1))).ToString() == "max(s0 + s1, 4)");
  CHECK(Get(Sub(C(3), s0)).ToString() == "-s0 + 3");
  CHECK(Get(Sub(s0, Mul(C(2), s1))).ToString() == "s0 - 2*s1");
  CHECK(Get(Sub(Neg(s0), C(1))).ToString() == "-s0 - 1");
  CHECK(Get(Mul(s0, s0)).ToString() == "s0^2");
  CHECK(Get(Add(Mul(Mul(s0, s0), s1), Sub(C(1), s0))).ToString() == "s0^2*s1 - s0 + 1");
  CHECK(Get(FloorDiv(S("height"), C(3))).ToString() == "floor(height / 3)");
  CHECK(Get(Add(FloorDiv(Sub(S("height"), C(2)), C(3)), C(1))).ToString() ==
        "floor((height + 1) / 3)");
  CHECK(Get(FloorDiv(Mul(C(2), s0), C(3))).ToString() == "floor(2*s0 / 3)");
  CHECK(Get(CeilDiv(s0, C(4))).ToString() == "floor((s0 + 3) / 4)");
  CHECK(Get(Mod(s0, C(3))).ToString() == "s0 - 3*floor(s0 / 3)");
  CHECK(Get(Mul(C(-2), FloorDiv(s0, C(2)))).ToString() == "-2*floor(s0 / 2)");
  CHECK(S("batch size").ToString() == "\"batch size\"");
  CHECK(S("a\"b\\c").ToString() == "\"a\\\"b\\\\c\"");
  CHECK(S(std::string("x\ny", 3)).ToString() == "\"x\\x0ay\"");
  CHECK(S("").ToString() == "\"\"");
  CHECK(S("9lives").ToString() == "\"9lives\"");
  CHECK(S("ns::dim.0").ToString() == "ns::dim.0");
  CHECK(C(kMin64).ToString() == "-9223372036854775807 - 1");
  CHECK(Get(Mul(C(kMin64), s0)).ToString() == "-9223372036854775807*s0 - s0");
}

TEST_CASE("ToString order does not depend on creation order", "[sym]") {
  // Created in reverse name order; the output is still sorted by name.
  Expr z = S("zz_order"), y = S("yy_order"), x = S("xx_order");
  CHECK(Get(Add(Add(z, y), x)).ToString() == "xx_order + yy_order + zz_order");
  CHECK(Get(Min(Min(z, y), x)).ToString() == "min(xx_order, yy_order, zz_order)");
  // Higher degree first, constant last.
  CHECK(Get(Add(Add(C(1), z), Mul(x, y))).ToString() == "xx_order*yy_order + zz_order + 1");
}

TEST_CASE("Symbols lists names sorted and unique", "[sym]") {
  Expr e = P("min(b, a + 1) + floor((c + b) / 2) * a");
  CHECK(e.Symbols() == std::vector<std::string>{"a", "b", "c"});
  CHECK(C(3).Symbols().empty());
}

TEST_CASE("floor, ceil and mod of constants follow floor semantics", "[sym]") {
  for (int64_t a = -40; a <= 40; ++a) {
    for (int64_t b = -9; b <= 9; ++b) {
      INFO(a << " / " << b);
      if (b == 0) {
        CHECK_FALSE(FloorDiv(C(a), C(b)));
        CHECK_FALSE(CeilDiv(C(a), C(b)));
        CHECK_FALSE(Mod(C(a), C(b)));
        continue;
      }
      int64_t floor_q = static_cast<int64_t>(RefFloorDiv(a, b));
      int64_t ceil_q = static_cast<int64_t>(-RefFloorDiv(-a, b));
      CHECK(Get(FloorDiv(C(a), C(b))) == C(floor_q));
      CHECK(Get(CeilDiv(C(a), C(b))) == C(ceil_q));
      CHECK(Get(Mod(C(a), C(b))) == C(a - b * floor_q));
    }
  }
  CHECK(Get(FloorDiv(C(-7), C(2))) == C(-4));
  CHECK(Get(FloorDiv(C(7), C(-2))) == C(-4));
  CHECK(Get(Mod(C(7), C(-2))) == C(-1));
  CHECK(Get(Mod(C(-7), C(2))) == C(1));
  CHECK(Get(CeilDiv(C(-7), C(2))) == C(-3));
  CHECK(Get(Mod(C(kMin64), C(-1))) == C(0));
  CHECK(Get(FloorDiv(C(kMin64), C(1))) == C(kMin64));
  CHECK(Get(CeilDiv(C(kMax64), C(2))) == C(kMax64 / 2 + 1));
  CHECK(Get(FloorDiv(C(kMin64), C(2))) == C(kMin64 / 2));
}

TEST_CASE("symbolic floor, ceil and mod agree with integer semantics", "[sym]") {
  Expr s = S("s");
  for (int64_t coeff = -4; coeff <= 4; ++coeff) {
    for (int64_t offset = -7; offset <= 7; ++offset) {
      for (int64_t k = 1; k <= 7; ++k) {
        MaybeExpr num = Add(Mul(C(coeff), s), C(offset));
        Expr f = Get(FloorDiv(num, C(k)));
        Expr c = Get(CeilDiv(num, C(k)));
        Expr m = Get(Mod(num, C(k)));
        for (int64_t v = -25; v <= 25; ++v) {
          INFO("(" << coeff << "*s + " << offset << ") / " << k << " at s=" << v << ": "
                   << f.ToString());
          int64_t n = coeff * v + offset;
          int64_t q = static_cast<int64_t>(RefFloorDiv(n, k));
          REQUIRE(Eval(f, {{"s", v}}) == q);
          REQUIRE(Eval(c, {{"s", v}}) == static_cast<int64_t>(-RefFloorDiv(-n, k)));
          REQUIRE(Eval(m, {{"s", v}}) == n - k * q);
        }
      }
    }
  }
}

TEST_CASE("division by non-positive or symbolic divisors is unknown", "[sym]") {
  Expr s = S("s"), t = S("t");
  CHECK_FALSE(FloorDiv(s, C(0)));
  CHECK_FALSE(FloorDiv(s, C(-2)));
  CHECK_FALSE(FloorDiv(s, t));
  CHECK_FALSE(FloorDiv(C(6), t));
  CHECK_FALSE(CeilDiv(s, C(0)));
  CHECK_FALSE(CeilDiv(s, C(-3)));
  CHECK_FALSE(CeilDiv(s, t));
  CHECK_FALSE(Mod(s, C(0)));
  CHECK_FALSE(Mod(s, C(-3)));
  CHECK_FALSE(Mod(s, t));
  CHECK_FALSE(FloorDiv(C(5), C(0)));
  CHECK_FALSE(Mod(C(5), C(0)));
}

TEST_CASE("overflow is never silent", "[sym]") {
  Expr s = S("s"), t = S("t");
  CHECK_FALSE(Add(C(kMax64), C(1)));
  CHECK_FALSE(Sub(C(kMin64), C(1)));
  CHECK_FALSE(Neg(C(kMin64)));
  CHECK_FALSE(Mul(C(int64_t{1} << 62), C(4)));
  CHECK_FALSE(Mul(C(kMin64), C(-1)));
  CHECK_FALSE(Add(Mul(C(kMax64), s), s));
  CHECK_FALSE(Mul(Mul(C(int64_t{1} << 40), s), Mul(C(int64_t{1} << 40), t)));
  CHECK_FALSE(Mul(Add(Mul(C(int64_t{1} << 62), s), C(1)), Add(Mul(C(4), t), C(1))));
  CHECK_FALSE(FloorDiv(C(kMin64), C(-1)));
  CHECK_FALSE(CeilDiv(C(kMin64), C(-1)));
  CHECK_FALSE(CeilDiv(Add(s, C(kMax64)), C(3)));  // needs s + kMax64 + 2
  CHECK_FALSE(Neg(Mul(C(kMin64), s)));
  // Exactly representable results are kept, including transient wide sums.
  CHECK(Get(Add(C(kMax64), C(kMin64))) == C(-1));
  CHECK(Get(Sub(Mul(C(kMin64), s), Mul(C(kMin64), s))) == C(0));
  CHECK(Get(Mul(Add(s, C(1)), Sub(s, C(1)))) == Get(Sub(Mul(s, s), C(1))));
  CHECK(Get(Mod(Mul(C(kMax64), s), C(2))) == Get(Mod(s, C(2))));

  // Evaluation.
  Expr sum = Get(Add(s, C(1)));
  CHECK(Eval(sum, {{"s", kMax64 - 1}}) == kMax64);
  CHECK_FALSE(Eval(sum, {{"s", kMax64}}));
  CHECK_FALSE(Eval(Get(Mul(s, t)), {{"s", int64_t{1} << 32}, {"t", int64_t{1} << 32}}));
  CHECK(Eval(Get(Mul(s, t)), {{"s", int64_t{1} << 31}, {"t", int64_t{1} << 31}}) == int64_t{1}
                                                                                        << 62);
  CHECK_FALSE(Eval(Get(Mul(s, s)), {{"s", int64_t{1} << 32}}));
  CHECK_FALSE(Eval(Get(Neg(s)), {{"s", kMin64}}));
  CHECK_FALSE(Eval(Get(Mul(C(3), s)), {{"s", kMax64 / 2}}));
  // Intermediates may exceed int64 when the final value does not.
  CHECK(Eval(Get(FloorDiv(Add(s, C(1)), C(2))), {{"s", kMax64}}) == (int64_t{1} << 62));
  CHECK(Eval(Get(Sub(Add(s, C(5)), t)), {{"s", kMax64}, {"t", 10}}) == kMax64 - 5);
}

TEST_CASE("Evaluate needs every symbol bound", "[sym]") {
  Expr e = P("min(a, b) + floor(c / 2)");
  CHECK(Eval(e, {{"a", 1}, {"b", 2}, {"c", 5}}) == 3);
  CHECK_FALSE(Eval(e, {{"a", 1}, {"b", 2}}));
  CHECK_FALSE(Eval(e, {{"a", 1}, {"c", 2}}));
  CHECK(Eval(C(4), {}) == 4);
  CHECK(Eval(P("s^3 - 2*s"), {{"s", -3}}) == -21);
  CHECK(Eval(P("max(a, -a)"), {{"a", 9}}) == 9);
}

TEST_CASE("min and max drop arguments that sizes never let decide", "[sym]") {
  // Symbols are sizes, never negative (sym/expr.h): what that implies is canonical.
  CHECK(P("min(-L, L)") == P("-L"));
  CHECK(P("max(2*L, L, 0)") == P("2*L"));
  CHECK(P("max(L - min(-L, L), L, 0)") == P("2*L"));
  CHECK(P("max(floor((W + 1) / 4), floor((W + 3) / 4))") == P("floor((W + 3) / 4)"));
  CHECK(P("min(floor((W + 1) / 4), floor((W + 3) / 4))") == P("floor((W + 1) / 4)"));
  // Neither decides everywhere: both stay.
  CHECK(P("max(a, b)").ToString() == "max(a, b)");
  CHECK(P("min(L, 4)").ToString() == "min(L, 4)");
  CHECK(P("max(2*L - 8, L)").ToString() == "max(L, 2*L - 8)");
  // The result does not depend on the order the arguments come in.
  CHECK(P("max(0, L, 2*L)") == P("max(2*L, L, 0)"));
  // Absorption: a min is at most each argument, a max at least each (a length sliced from a
  // table of 8 rows, broadcast against the length itself).
  CHECK(P("max(T, min(T, 8))") == P("T"));
  CHECK(P("min(T, max(T, 8))") == P("T"));
  CHECK(P("max(T + 1, min(T, 8))") == P("T + 1"));
  // Where no argument decides, both stay.
  CHECK(P("max(S, min(T, 8))").ToString() == "max(S, min(T, 8))");
}

TEST_CASE("a floor bounded by its numerator decides a min or max", "[sym]") {
  // k*floor(n / k) lies in [n - (k - 1), n]. The pad that TF-style "same" padding adds to reach
  // a multiple of the stride is never negative: max(pad, 0) is the pad.
  CHECK(P("max(-h + 2*floor((h + 1) / 2) + 5, 0)") == P("-h + 2*floor((h + 1) / 2) + 5"));
  CHECK(KnownNonNegative(P("-h + 2*floor((h + 1) / 2)")));
  // 2*floor(h / 2) - h is 0 or -1: never above 0.
  CHECK(P("max(2*floor(h / 2) - h, 0)") == C(0));
  CHECK(NeverPositive(P("2*floor(h / 2) - h")));
  // h - 2*floor((h + 1) / 2) is -1 at every even h: not shown non-negative.
  CHECK_FALSE(KnownNonNegative(P("h - 2*floor((h + 1) / 2)")));
  // h mod 4 - 2 is -2 to 1: neither argument decides, both stay.
  CHECK(P("max(h - 4*floor(h / 4) - 2, 0)").ToString() == "max(h - 4*floor(h / 4) - 2, 0)");
  // What is dropped is dropped only where it never decides: the values agree with the unsimplified
  // definition at every size.
  const Expr pad = P("max(-h + 2*floor((h + 1) / 2) + 5, 0)");
  const Expr both = P("max(h - 4*floor(h / 4) - 2, 0)");
  for (int64_t h = 0; h <= 40; ++h) {
    const int64_t raw = -h + 2 * ((h + 1) / 2) + 5;
    CHECK(Eval(pad, {{"h", h}}) == std::max<int64_t>(raw, 0));
    CHECK(Eval(both, {{"h", h}}) == std::max<int64_t>(h % 4 - 2, 0));
  }
}

TEST_CASE("ExactDiv divides by a single term", "[sym]") {
  Expr b = S("batch"), s = S("seq"), h = S("heads");
  Expr total = P("batch*seq*768");
  CHECK(Get(ExactDiv(total, P("batch*12*64"))) == s);
  CHECK(Get(ExactDiv(total, C(768))) == Get(Mul(b, s)));
  CHECK(Get(ExactDiv(total, P("seq"))) == P("768*batch"));
  CHECK(Get(ExactDiv(P("6*seq + 3"), C(3))) == P("2*seq + 1"));
  CHECK(Get(ExactDiv(P("6*seq + 3"), C(-3))) == P("-2*seq - 1"));
  CHECK(Get(ExactDiv(P("4*batch^2*heads + 2*batch*seq"), P("2*batch"))) ==
        P("2*batch*heads + seq"));
  CHECK(Get(ExactDiv(P("2*floor(seq / 2)*batch"), P("floor(seq / 2)"))) == P("2*batch"));
  CHECK(Get(ExactDiv(C(0), P("7*batch"))) == C(0));
  CHECK(Get(ExactDiv(C(12), C(4))) == C(3));
  CHECK(Get(ExactDiv(b, b)) == C(1));
  CHECK(Get(ExactDiv(C(kMin64), C(1))) == C(kMin64));
  // Not exact, or not a single-term divisor: unknown.
  CHECK_FALSE(ExactDiv(C(7), C(2)));
  CHECK_FALSE(ExactDiv(P("6*seq + 4"), C(3)));
  CHECK_FALSE(ExactDiv(P("batch*seq + 1"), b));
  CHECK_FALSE(ExactDiv(P("batch*seq"), h));
  CHECK_FALSE(ExactDiv(P("batch*seq + heads"), b));
  CHECK_FALSE(ExactDiv(b, P("batch^2")));
  CHECK_FALSE(ExactDiv(P("2*batch + 2"), P("batch + 1")));
  CHECK_FALSE(ExactDiv(b, C(0)));
  CHECK_FALSE(ExactDiv(b, MaybeExpr()));
  CHECK_FALSE(ExactDiv(MaybeExpr(), b));
  CHECK_FALSE(ExactDiv(C(kMin64), C(-1)));
  CHECK_FALSE(ExactDiv(Mul(C(kMin64), b), Mul(C(-1), b)));
}

TEST_CASE("term cap and structural limits give unknown", "[sym]") {
  MaybeExpr sum = C(0);
  for (size_t i = 0; i < kMaxTerms; ++i) sum = Add(sum, S("cap_s" + std::to_string(i)));
  REQUIRE(sum.has_value());
  CHECK_FALSE(Add(sum, S("cap_extra")));
  CHECK(Add(sum, C(1)).has_value());  // The constant is not a term.

  MaybeExpr left = C(0), right = C(0);
  for (int i = 0; i < 9; ++i) {
    left = Add(left, S("cap_a" + std::to_string(i)));
    right = Add(right, S("cap_b" + std::to_string(i)));
  }
  CHECK_FALSE(Mul(left, right));  // 81 terms.
  CHECK(Mul(left, S("cap_b0")).has_value());

  MaybeExpr many = S("cap_m0");
  for (size_t i = 1; i < kMaxTerms; ++i) many = Min(many, S("cap_m" + std::to_string(i)));
  REQUIRE(many.has_value());
  CHECK_FALSE(Min(many, S("cap_m_extra")));

  MaybeExpr power = S("cap_p");
  for (int i = 1; i < kMaxDegree; ++i) power = Mul(power, S("cap_p"));
  REQUIRE(power.has_value());
  CHECK(power->ToString() == "cap_p^" + std::to_string(kMaxDegree));
  CHECK(P(power->ToString()) == *power);
  CHECK_FALSE(Mul(power, S("cap_q")));

  // Nesting depth: min(x + 1, c) repeated cannot be flattened.
  MaybeExpr nested = S("cap_d");
  int levels = 0;
  while (nested.has_value() && levels < 1000) {
    MaybeExpr next = Min(Add(nested, C(1)), S("cap_e" + std::to_string(levels % 2)));
    if (!next) break;
    nested = next;
    ++levels;
  }
  CHECK(levels == kMaxDepth - 1);
  // The deepest expression still prints and parses back.
  CHECK(P(nested->ToString()) == *nested);
}

TEST_CASE("Parse accepts exporter dim_params and the ToString syntax", "[sym]") {
  Expr past = S("past_sequence_length");
  CHECK(P("past_sequence_length + 1") == Get(Add(past, C(1))));
  CHECK(P("2*seq") == Get(Mul(C(2), S("seq"))));
  CHECK(P("batch_size") == S("batch_size"));
  CHECK(P("unk__3") == S("unk__3"));
  CHECK(P("Addy_dim_2") == S("Addy_dim_2"));
  CHECK(P("s0*s1") == Get(Mul(S("s0"), S("s1"))));
  CHECK(P("  s0 *s1+ 3 ") == Get(Add(Mul(S("s0"), S("s1")), C(3))));
  CHECK(P("42") == C(42));
  CHECK(P("-42") == C(-42));
  CHECK(P("--4") == C(4));
  CHECK(P("+s") == S("s"));
  CHECK(P("9223372036854775807") == C(kMax64));
  CHECK(P("-9223372036854775808") == C(kMin64));
  CHECK(P("-9223372036854775807 - 1") == C(kMin64));
  CHECK(P("1 + 2 * 3") == C(7));
  CHECK(P("(1 + 2) * 3") == C(9));
  CHECK(P("10 - 4 - 3") == C(3));
  CHECK(P("-7 / 2") == C(-4));  // unary minus binds tighter: (-7) / 2
  CHECK(P("-(7 / 2)") == C(-3));
  CHECK(P("7 // -2") == C(-4));
  CHECK(P("7 % -2") == C(-1));
  CHECK(P("s / 2") == Get(FloorDiv(S("s"), C(2))));
  CHECK(P("s // 2") == Get(FloorDiv(S("s"), C(2))));
  CHECK(P("s % 3") == Get(Mod(S("s"), C(3))));
  CHECK(P("mod(s, 3)") == Get(Mod(S("s"), C(3))));
  CHECK(P("Mod(s, 3)") == Get(Mod(S("s"), C(3))));
  CHECK(P("s / (1 + 1)") == Get(FloorDiv(S("s"), C(2))));
  CHECK(P("floor(s / 2)") == Get(FloorDiv(S("s"), C(2))));
  CHECK(P("floor((s - 3) / 2) + 1") == Get(Add(FloorDiv(Sub(S("s"), C(3)), C(2)), C(1))));
  CHECK(P("floor(s)") == S("s"));
  CHECK(P("ceil(s / 2)") == Get(CeilDiv(S("s"), C(2))));
  CHECK(P("ceiling(s/2)") == Get(CeilDiv(S("s"), C(2))));
  CHECK(P("ceil((s / 2))") == Get(CeilDiv(S("s"), C(2))));
  CHECK(P("ceil(s // 2)") == Get(FloorDiv(S("s"), C(2))));
  CHECK(P("ceil(floor(s / 3) / 2)") == Get(CeilDiv(FloorDiv(S("s"), C(3)), C(2))));
  CHECK(P("ceil(-7 / 2)") == C(-3));
  CHECK(P("min(a, b, 3)") == Get(Min(Min(S("a"), S("b")), C(3))));
  CHECK(P("Max(a, 2)") == Get(Max(S("a"), C(2))));
  CHECK(P("min(a)") == S("a"));
  CHECK(P("s^2") == Get(Mul(S("s"), S("s"))));
  CHECK(P("s**2") == Get(Mul(S("s"), S("s"))));
  CHECK(P("-s^2") == Get(Neg(Mul(S("s"), S("s")))));
  CHECK(P("2^3^2") == C(512));
  CHECK(P("s^0") == C(1));
  CHECK(P("\"batch size\" + 1") == Get(Add(S("batch size"), C(1))));
  CHECK(P("\"a\\\"b\\\\c\\x41\"") == S("a\"b\\cA"));
  CHECK(P("\"\"") == S(""));
  CHECK(P("min") == S("min"));  // Only a call when followed by '('.
  CHECK(P("ns::dim.0 * 2") == Get(Mul(S("ns::dim.0"), C(2))));
}

TEST_CASE("Parse reads the sympy torch.export writes into dim_param", "[sym]") {
  // As the dynamo exporter of torch 2.15 prints them (tests/corpus/torch2).
  CHECK(P("s77") == S("s77"));
  CHECK(P("(s77//2)") == Get(FloorDiv(S("s77"), C(2))));
  CHECK(P("2*((s77//2))") == Get(Mul(C(2), FloorDiv(S("s77"), C(2)))));
  CHECK(P("s0 + 1") == Get(Add(S("s0"), C(1))));
  CHECK(P("-s0 + s1") == Get(Sub(S("s1"), S("s0"))));
  CHECK(P("Max(1, s0)") == Get(Max(C(1), S("s0"))));
  CHECK(P("Min(16, s0)") == Get(Min(C(16), S("s0"))));
  CHECK(P("Mod(s0, 2)") == Get(Mod(S("s0"), C(2))));
  CHECK(P("((s0 - 1)//2) + 1") == Get(Add(FloorDiv(Sub(S("s0"), C(1)), C(2)), C(1))));
  // torch.utils._sympy.functions.
  CHECK(P("FloorDiv(s0, 4)") == Get(FloorDiv(S("s0"), C(4))));
  CHECK(P("CleanDiv(s0, 4)") == Get(FloorDiv(S("s0"), C(4))));
  CHECK(P("PythonMod(s0, 3)") == Get(Mod(S("s0"), C(3))));
  CHECK(P("CeilToInt(s0/2)") == Get(CeilDiv(S("s0"), C(2))));
  CHECK(P("FloorToInt(s0/3)") == Get(FloorDiv(S("s0"), C(3))));
  CHECK(P("TruncToInt(s0/2)") == Get(FloorDiv(S("s0"), C(2))));
  // What has no integer meaning here stays unread: a name, never a wrong fact.
  CHECK(!Parse("Piecewise((1, Eq(s0, 1)), (s0, True))").ok());
  CHECK(!Parse("IntTrueDiv(s0, 2)").ok());
  CHECK(FromDimParam("IntTrueDiv(s0, 2)") == S("IntTrueDiv(s0, 2)"));
}

TEST_CASE("Parse reports bad input with a position", "[sym]") {
  std::string m = ParseError("s0 +");
  CHECK_THAT(m, Catch::Contains("position 4"));
  CHECK_THAT(m, Catch::Contains("end of input"));
  m = ParseError("s0 % s1");  // floor division takes a symbolic divisor, modulo does not
  CHECK_THAT(m, Catch::Contains("position 5"));
  CHECK_THAT(m, Catch::Contains("constant"));
  m = ParseError("(");
  CHECK_THAT(m, Catch::Contains("position 1"));
  m = ParseError("1 / 0");
  CHECK_THAT(m, Catch::Contains("division by zero"));
  CHECK_THAT(m, Catch::Contains("position 2"));
  CHECK_THAT(ParseError("s % 0"), Catch::Contains("division by zero"));
  CHECK_THAT(ParseError("mod(s, t)"), Catch::Contains("constant"));
  CHECK_THAT(ParseError("s / -2"), Catch::Contains("positive"));
  CHECK_THAT(ParseError("(s + 1"), Catch::Contains("expected ')'"));
  CHECK_THAT(ParseError("s t"), Catch::Contains("position 2"));
  CHECK_THAT(ParseError("batch size"), Catch::Contains("expected an operator"));
  CHECK_THAT(ParseError("9223372036854775808"), Catch::Contains("out of range"));
  CHECK_THAT(ParseError("99999999999999999999"), Catch::Contains("out of range"));
  CHECK_THAT(ParseError("9223372036854775807 + 1"), Catch::Contains("overflows"));
  CHECK_THAT(ParseError("sqrt(s)"), Catch::Contains("unknown function 'sqrt'"));
  CHECK_THAT(ParseError("floor(s / 2 + t / 2)"), Catch::Contains("floor() takes"));
  CHECK_THAT(ParseError("ceil(s / 2 / 2)"), Catch::Contains("ceil() takes"));
  CHECK_THAT(ParseError("ceil(s / 2 * 3)"), Catch::Contains("ceil() takes"));
  CHECK_THAT(ParseError("floor(a, b)"), Catch::Contains("one argument"));
  CHECK_THAT(ParseError("mod(a)"), Catch::Contains("two arguments"));
  CHECK_THAT(ParseError("s^t"), Catch::Contains("exponent"));
  CHECK_THAT(ParseError("s^-1"), Catch::Contains("exponent"));
  CHECK_THAT(ParseError("s^65"), Catch::Contains("exponent"));
  CHECK_THAT(ParseError("\"abc"), Catch::Contains("unterminated"));
  CHECK_THAT(ParseError("\"a\\qb\""), Catch::Contains("escape"));
  CHECK_THAT(ParseError("3abc"), Catch::Contains("position 1"));
  CHECK_THAT(ParseError(""), Catch::Contains("position 0"));
  CHECK_THAT(ParseError("1.5"), Catch::Contains("position 1"));
  CHECK_THAT(ParseError("min()"), Catch::Contains("position 4"));
  CHECK_THAT(ParseError(std::string(10000, '(') + "s" + std::string(10000, ')')),
             Catch::Contains("nested too deeply"));
  CHECK_THAT(ParseError(std::string(10000, '-') + "s"), Catch::Contains("nested too deeply"));
}

TEST_CASE("FromDimParam", "[sym]") {
  CHECK(FromDimParam("batch_size") == S("batch_size"));
  CHECK(FromDimParam("past_sequence_length + 1") == Get(Add(S("past_sequence_length"), C(1))));
  CHECK(FromDimParam("2*seq") == Get(Mul(C(2), S("seq"))));
  CHECK(FromDimParam("batch size") == S("batch size"));
  CHECK(FromDimParam("N/A") == S("N/A"));
  CHECK(FromDimParam("floor(s0 / s1)") == Get(FloorDivExpr(S("s0"), S("s1"))));
  CHECK(FromDimParam("") == S(""));
  CHECK(FromDimParam("?") == S("?"));
  CHECK(FromDimParam("8") == C(8));
  // The fallback symbol prints quoted and reads back as itself.
  CHECK(P(FromDimParam("batch size").ToString()) == S("batch size"));
}

// ------------------------------------------------------------------------------------------------
// Property test: random expression trees against a direct reference evaluation.

struct Tree {
  enum class Op { kConst, kSym, kAdd, kSub, kMul, kNeg, kFloorDiv, kCeilDiv, kMod, kMin, kMax };
  Op op = Op::kConst;
  int64_t value = 0;
  std::string name;
  std::unique_ptr<Tree> lhs, rhs;
};

class Rng {
 public:
  explicit Rng(uint64_t seed) : engine_(seed) {}
  // Not std::uniform_int_distribution: its output differs between standard libraries.
  int64_t Uniform(int64_t lo, int64_t hi) {
    return lo + static_cast<int64_t>(engine_() % static_cast<uint64_t>(hi - lo + 1));
  }

 private:
  std::mt19937_64 engine_;
};

const std::vector<std::string>& TreeSymbols() {
  static const std::vector<std::string> names = {"a", "b", "c", "x.y", "odd name"};
  return names;
}

std::unique_ptr<Tree> RandomTree(Rng& rng, int depth) {
  auto t = std::make_unique<Tree>();
  if (depth == 0 || rng.Uniform(0, 9) < 2) {
    if (rng.Uniform(0, 2) == 0) {
      t->op = Tree::Op::kConst;
      t->value = rng.Uniform(-4, 4);
    } else {
      t->op = Tree::Op::kSym;
      t->name = TreeSymbols()[rng.Uniform(0, TreeSymbols().size() - 1)];
    }
    return t;
  }
  t->op = static_cast<Tree::Op>(
      rng.Uniform(static_cast<int>(Tree::Op::kAdd), static_cast<int>(Tree::Op::kMax)));
  t->lhs = RandomTree(rng, depth - 1);
  if (t->op == Tree::Op::kNeg) return t;
  bool division =
      t->op == Tree::Op::kFloorDiv || t->op == Tree::Op::kCeilDiv || t->op == Tree::Op::kMod;
  if (division && rng.Uniform(0, 9) < 8) {
    // Mostly the positive constant divisors the algebra handles, sometimes the others.
    t->rhs = std::make_unique<Tree>();
    t->rhs->value = rng.Uniform(0, 9) < 8 ? rng.Uniform(1, 6) : rng.Uniform(-3, 0);
  } else {
    t->rhs = RandomTree(rng, depth - 1);
  }
  return t;
}

MaybeExpr BuildExpr(const Tree& t) {
  switch (t.op) {
    case Tree::Op::kConst:
      return C(t.value);
    case Tree::Op::kSym:
      return S(t.name);
    case Tree::Op::kNeg:
      return Neg(BuildExpr(*t.lhs));
    default:
      break;
  }
  MaybeExpr l = BuildExpr(*t.lhs), r = BuildExpr(*t.rhs);
  switch (t.op) {
    case Tree::Op::kAdd:
      return Add(l, r);
    case Tree::Op::kSub:
      return Sub(l, r);
    case Tree::Op::kMul:
      return Mul(l, r);
    case Tree::Op::kFloorDiv:
      return FloorDiv(l, r);
    case Tree::Op::kCeilDiv:
      return CeilDiv(l, r);
    case Tree::Op::kMod:
      return Mod(l, r);
    case Tree::Op::kMin:
      return Min(l, r);
    case Tree::Op::kMax:
      return Max(l, r);
    default:
      return std::nullopt;
  }
}

std::optional<int64_t> Fit(__int128 v) {
  if (v < kMin64 || v > kMax64) return std::nullopt;
  return static_cast<int64_t>(v);
}

// Evaluates the tree as written, every intermediate in int64.
std::optional<int64_t> RefEval(const Tree& t, const Binding& binding) {
  switch (t.op) {
    case Tree::Op::kConst:
      return t.value;
    case Tree::Op::kSym:
      return binding.Get(t.name);
    case Tree::Op::kNeg: {
      std::optional<int64_t> v = RefEval(*t.lhs, binding);
      if (!v) return std::nullopt;
      return Fit(-static_cast<__int128>(*v));
    }
    default:
      break;
  }
  std::optional<int64_t> l = RefEval(*t.lhs, binding), r = RefEval(*t.rhs, binding);
  if (!l || !r) return std::nullopt;
  __int128 a = *l, b = *r;
  switch (t.op) {
    case Tree::Op::kAdd:
      return Fit(a + b);
    case Tree::Op::kSub:
      return Fit(a - b);
    case Tree::Op::kMul:
      return Fit(a * b);
    case Tree::Op::kFloorDiv:
      if (b == 0) return std::nullopt;
      return Fit(RefFloorDiv(a, b));
    case Tree::Op::kCeilDiv:
      if (b == 0) return std::nullopt;
      return Fit(-RefFloorDiv(-a, b));
    case Tree::Op::kMod:
      if (b == 0) return std::nullopt;
      return Fit(a - b * RefFloorDiv(a, b));
    case Tree::Op::kMin:
      return std::min(*l, *r);
    case Tree::Op::kMax:
      return std::max(*l, *r);
    default:
      return std::nullopt;
  }
}

TEST_CASE("random expressions: evaluation matches the tree, printing round-trips", "[sym]") {
  Rng rng(0x5eed2024);
  constexpr int kExpressions = 2000;
  constexpr int kBindingsPerExpression = 8;
  int built = 0, compared = 0, non_constant = 0;
  std::vector<Expr> exprs;
  for (int i = 0; i < kExpressions; ++i) {
    std::unique_ptr<Tree> tree = RandomTree(rng, static_cast<int>(rng.Uniform(1, 4)));
    MaybeExpr e = BuildExpr(*tree);
    if (!e) continue;
    ++built;
    if (!e->IsConstant()) ++non_constant;
    exprs.push_back(*e);

    std::string text = e->ToString();
    INFO("expression " << i << ": " << text);
    absl::StatusOr<Expr> reparsed = Parse(text);
    INFO("parse status: " << reparsed.status().ToString());
    REQUIRE(reparsed.ok());
    REQUIRE(*reparsed == *e);
    REQUIRE(reparsed->ToString() == text);
    REQUIRE(FromDimParam(text) == *e);

    for (int j = 0; j < kBindingsPerExpression; ++j) {
      Binding binding;
      for (const std::string& name : TreeSymbols()) {
        // Symbols stand for sizes, never negative; the expressions over them still go negative.
        int64_t v = rng.Uniform(0, 19) == 0 ? rng.Uniform(0, 2000000000) : rng.Uniform(0, 30);
        binding.Set(name, v);
      }
      std::optional<int64_t> want = RefEval(*tree, binding);
      std::optional<int64_t> got = e->Evaluate(binding);
      if (!want || !got) continue;
      ++compared;
      INFO("a=" << *binding.Get("a") << " b=" << *binding.Get("b") << " c=" << *binding.Get("c")
                << " x.y=" << *binding.Get("x.y") << " odd=" << *binding.Get("odd name"));
      REQUIRE(*got == *want);
    }
  }
  // Guard against a generator that degenerates into trivial or always-unknown cases.
  CHECK(built > kExpressions * 3 / 4);
  CHECK(non_constant > kExpressions / 2);
  CHECK(compared > kExpressions * kBindingsPerExpression / 2);

  // Algebraic laws on pairs of the canonical results, whenever both sides are known.
  int laws_checked = 0;
  for (size_t i = 0; i + 2 < exprs.size(); i += 3) {
    const Expr &x = exprs[i], &y = exprs[i + 1], &z = exprs[i + 2];
    INFO(x.ToString() << " | " << y.ToString() << " | " << z.ToString());
    auto same_if_known = [&](const MaybeExpr& p, const MaybeExpr& q) {
      if (p && q) {
        ++laws_checked;
        CHECK(p->ToString() == q->ToString());
        CHECK(*p == *q);
      }
    };
    same_if_known(Add(x, y), Add(y, x));
    same_if_known(Mul(x, y), Mul(y, x));
    same_if_known(Min(x, y), Min(y, x));
    same_if_known(Max(x, y), Max(y, x));
    same_if_known(Add(Add(x, y), z), Add(x, Add(y, z)));
    same_if_known(Mul(Mul(x, y), z), Mul(x, Mul(y, z)));
    same_if_known(Min(Min(x, y), z), Min(x, Min(y, z)));
    same_if_known(Mul(x, Add(y, z)), Add(Mul(x, y), Mul(x, z)));
    same_if_known(Sub(Add(x, y), y), x);
    same_if_known(FloorDiv(Mul(x, C(3)), C(3)), x);
    same_if_known(Add(Mul(C(4), FloorDiv(x, C(4))), Mod(x, C(4))), x);
    // Nested floors have a unique form only when x itself has no floor terms: e.g. with
    // F = floor((c + 3) / 4), floor(floor(-F / 2) / 3) and floor(-F / 6) are equal functions with
    // different canonical forms. That incompleteness is accepted (see expr.h).
    auto floor_free = [](const Expr& e) {
      return e.ToString().find("floor(") == std::string::npos;
    };
    if (floor_free(x)) same_if_known(FloorDiv(FloorDiv(x, C(2)), C(3)), FloorDiv(x, C(6)));
    if (floor_free(x) && floor_free(y)) {
      same_if_known(FloorDiv(Add(FloorDiv(x, C(3)), y), C(2)),
                    FloorDiv(Add(x, Mul(C(3), y)), C(6)));
    }
    same_if_known(CeilDiv(x, C(5)), FloorDiv(Add(x, C(4)), C(5)));
  }
  CHECK(laws_checked > 1000);
}

TEST_CASE("interning is consistent across threads", "[sym]") {
  constexpr int kThreads = 4;
  std::vector<std::string> texts;
  for (int i = 0; i < 200; ++i) {
    texts.push_back("min(t" + std::to_string(i % 17) + " * " + std::to_string(i) + ", floor((u + " +
                    std::to_string(i) + ") / 7)) + thread_sym" + std::to_string(i));
  }
  std::vector<std::vector<Expr>> results(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&texts, &results, t] {
      for (const std::string& text : texts) results[t].push_back(FromDimParam(text));
    });
  }
  for (std::thread& th : threads) th.join();
  for (int t = 1; t < kThreads; ++t) {
    REQUIRE(results[t].size() == texts.size());
    for (size_t i = 0; i < texts.size(); ++i) CHECK(results[t][i] == results[0][i]);
  }
  CHECK(results[0][5] == P(texts[5]));
}

TEST_CASE("small constants made on several threads at once are one node each", "[sym]") {
  // Small constants are made on first use; threads asking for the same ones at the same time
  // must end with the same node for each value, or equal Exprs would compare unequal.
  constexpr int kThreads = 4;
  std::vector<std::vector<const ExprNode*>> nodes(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&nodes, t] {
      for (int64_t v = -8; v <= 1024; ++v) nodes[t].push_back(Expr::Constant(v).node());
    });
  }
  for (std::thread& th : threads) th.join();
  for (int t = 1; t < kThreads; ++t) CHECK(nodes[t] == nodes[0]);
  // And the same node as any later request, and as a constant an expression folds to.
  CHECK(Expr::Constant(1024).node() == nodes[0].back());
  CHECK(Get(Sub(Add(S("n"), C(700)), S("n"))).node() == Expr::Constant(700).node());
}

}  // namespace
}  // namespace shapelint::sym

namespace shapelint::sym {
namespace {

TEST_CASE("ToString with a limit cuts long expressions, at bounded cost", "[sym]") {
  Expr s = Expr::Symbol("s");
  CHECK(Get(Add(Mul(Expr::Constant(2), s), Expr::Constant(1))).ToString(40) == "2*s + 1");
  // min(floor(e / 2), e - 1) nested 30 times shares every level (neither argument decides
  // everywhere: e - 1 is below at 0, above from 4): the full text doubles with each level (over
  // 2^30 characters), but the limited print stops after the limit.
  MaybeExpr e = s;
  for (int i = 0; i < 30 && e; ++i) {
    e = Min(FloorDiv(e, Expr::Constant(2)), Sub(e, Expr::Constant(1)));
  }
  REQUIRE(e.has_value());
  const std::string text = e->ToString(100);
  CHECK(text.size() == 103);
  CHECK(text.substr(100) == "...");
  CHECK(text.substr(0, 4) == "min(");
}

TEST_CASE("IsPolynomial tells input-dim polynomials from floor, min and max", "[sym]") {
  Expr h = Expr::Symbol("h"), w = Expr::Symbol("w");
  CHECK(h.IsPolynomial());
  CHECK(Expr::Constant(3).IsPolynomial());
  CHECK(Get(Add(Mul(h, w), Expr::Constant(-1))).IsPolynomial());
  CHECK_FALSE(Get(FloorDiv(h, Expr::Constant(2))).IsPolynomial());
  CHECK_FALSE(Get(Add(Min(h, w), Expr::Constant(1))).IsPolynomial());
  CHECK_FALSE(Get(Mul(h, Max(w, Expr::Constant(4)))).IsPolynomial());
}

}  // namespace
}  // namespace shapelint::sym
