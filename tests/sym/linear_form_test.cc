#include <catch2/catch.hpp>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "shapelint/sym/expr.h"
#include "sym/expr_test_util.h"

namespace shapelint::sym {
namespace {

using testing::C;
using testing::Get;
using testing::P;
using testing::S;
using Terms = std::vector<std::pair<std::string, int64_t>>;

constexpr int64_t kMax64 = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin64 = std::numeric_limits<int64_t>::min();

// The form of `e`, which the test expects to be linear.
LinearForm Linear(const Expr& e) {
  std::optional<LinearForm> form = AsLinear(e);
  INFO("expression " << e.ToString());
  REQUIRE(form.has_value());
  return *form;
}

// constant + sum of coefficient * symbol, built with the arithmetic rather than read back.
Expr Rebuild(const LinearForm& form) {
  Expr e = C(form.constant);
  for (const auto& [name, coeff] : form.terms) e = Get(Add(e, Mul(C(coeff), S(name))));
  return e;
}

TEST_CASE("AsLinear: a constant has no terms", "[sym][linear]") {
  for (int64_t v : {int64_t{0}, int64_t{1}, int64_t{-7}, int64_t{4096}, kMax64, kMin64}) {
    LinearForm form = Linear(C(v));
    CHECK(form.constant == v);
    CHECK(form.terms.empty());
  }
  CHECK(Linear(Expr()).constant == 0);
}

TEST_CASE("AsLinear: a single symbol has coefficient 1", "[sym][linear]") {
  LinearForm form = Linear(S("batch"));
  CHECK(form.constant == 0);
  CHECK(form.terms == Terms{{"batch", 1}});
}

TEST_CASE("AsLinear: a sum of scaled symbols and a constant", "[sym][linear]") {
  LinearForm form = Linear(P("2*a - 3*b + 7"));
  CHECK(form.constant == 7);
  CHECK(form.terms == Terms{{"a", 2}, {"b", -3}});
}

TEST_CASE("AsLinear: negative coefficients and constant", "[sym][linear]") {
  LinearForm form = Linear(P("-a - 5*b - 4"));
  CHECK(form.constant == -4);
  CHECK(form.terms == Terms{{"a", -1}, {"b", -5}});

  form = Linear(Get(Add(Mul(C(kMin64), S("n")), C(kMin64))));
  CHECK(form.constant == kMin64);
  CHECK(form.terms == Terms{{"n", kMin64}});
}

TEST_CASE("AsLinear: terms are sorted by name, not by creation order", "[sym][linear]") {
  // Names no other test uses, so that these nodes are made here, in this order: neither sorted
  // nor reverse sorted. Byte order puts upper case first.
  Expr zeta = S("lf_zeta");
  Expr alpha = S("lf_alpha");
  Expr mid = S("lf_mid");
  Expr upper = S("lf_Z");
  Expr dotted = S("lf_alpha.1");
  Expr e = Get(Add(Get(Add(Get(Mul(C(5), zeta)), Get(Sub(mid, alpha)))), Get(Add(upper, dotted))));
  LinearForm form = Linear(e);
  CHECK(form.terms ==
        Terms{{"lf_Z", 1}, {"lf_alpha", -1}, {"lf_alpha.1", 1}, {"lf_mid", 1}, {"lf_zeta", 5}});
}

TEST_CASE("AsLinear: each symbol once, with its coefficients summed", "[sym][linear]") {
  LinearForm form = Linear(P("a + b + 2*a - b + 1"));
  CHECK(form.constant == 1);
  CHECK(form.terms == Terms{{"a", 3}});
  // A product that cancels leaves no trace.
  form = Linear(Get(Sub(Get(Add(P("a*b"), S("c"))), P("a*b"))));
  CHECK(form.terms == Terms{{"c", 1}});
}

TEST_CASE("AsLinear: products and powers of symbols are not linear", "[sym][linear]") {
  CHECK_FALSE(AsLinear(P("a*b")).has_value());
  CHECK_FALSE(AsLinear(Get(Mul(S("a"), S("a")))).has_value());
  CHECK_FALSE(AsLinear(P("a^3")).has_value());
  CHECK_FALSE(AsLinear(P("2*a*b + a + 1")).has_value());
}

TEST_CASE("AsLinear: floor, min and max are not linear", "[sym][linear]") {
  CHECK_FALSE(AsLinear(P("floor(a / 2)")).has_value());
  CHECK_FALSE(AsLinear(P("ceil(a / 4)")).has_value());
  CHECK_FALSE(AsLinear(P("a % 3")).has_value());
  CHECK_FALSE(AsLinear(P("min(a, b)")).has_value());
  CHECK_FALSE(AsLinear(P("max(a, 1)")).has_value());
  // One such term is enough, whatever the others are.
  CHECK_FALSE(AsLinear(P("a + floor(b / 2)")).has_value());
  CHECK_FALSE(AsLinear(P("2*a + 3*min(b, c) - 1")).has_value());
  CHECK_FALSE(AsLinear(P("a*floor(a / 2)")).has_value());
}

TEST_CASE("AsLinear: rebuilding from the form gives the same Expr", "[sym][linear]") {
  for (const char* text :
       {"0", "-3", "n", "-n", "2*a - 3*b + 7", "seq + past_seq - 1",
        "9223372036854775807*x - 9223372036854775807 - 1", "\"weird name\" + 4*\"2nd\" - other"}) {
    INFO("expression " << text);
    Expr e = P(text);
    CHECK(Rebuild(Linear(e)) == e);
  }
}

}  // namespace
}  // namespace shapelint::sym
