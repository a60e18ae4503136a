// Short names for building and unwrapping expressions in the sym tests.
#ifndef SHAPELINT_TESTS_SYM_EXPR_TEST_UTIL_H_
#define SHAPELINT_TESTS_SYM_EXPR_TEST_UTIL_H_

#include <catch2/catch.hpp>
#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "shapelint/sym/expr.h"

// Failed comparisons print the expressions instead of "{?}".
namespace Catch {
template <>
struct StringMaker<shapelint::sym::Expr> {
  static std::string convert(const shapelint::sym::Expr& e) { return e.ToString(); }
};
}  // namespace Catch

namespace shapelint::sym::testing {

inline Expr S(std::string_view name) { return Expr::Symbol(name); }
inline Expr C(int64_t v) { return Expr::Constant(v); }

// Unwraps a result that the test expects to be known.
inline Expr Get(const MaybeExpr& e) {
  REQUIRE(e.has_value());
  return *e;
}

// Parses `text`, which the test expects to be valid.
inline Expr P(std::string_view text) {
  absl::StatusOr<Expr> e = Parse(text);
  INFO("parsing " << text << ": " << e.status().ToString());
  REQUIRE(e.ok());
  return *e;
}

}  // namespace shapelint::sym::testing

#endif  // SHAPELINT_TESTS_SYM_EXPR_TEST_UTIL_H_
