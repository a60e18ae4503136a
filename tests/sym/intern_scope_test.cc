// sym::InternScope: expressions built inside a scope are interned in its table and freed with
// it, and pointer equality stays exact across scope boundaries.
#include <catch2/catch.hpp>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "shapelint/sym/expr.h"
#include "sym/expr_test_util.h"

namespace shapelint::sym {
namespace {

using testing::C;
using testing::Get;
using testing::P;
using testing::S;

// floor((name - 3) / 2) + 1, min(name, 7) * name: a few nodes of every kind.
Expr Pooled(std::string_view name) {
  Expr pooled = Get(Add(FloorDiv(Sub(S(name), C(3)), C(2)), C(1)));
  return Get(Add(pooled, Mul(Min(S(name), C(7)), S(name))));
}

TEST_CASE("a scope frees what it interned", "[sym][intern]") {
  const size_t before = InternedNodeCount();
  {
    InternScope scope;
    CHECK(scope.size() == 0);
    for (int i = 0; i < 1000; ++i) Get(Add(S("scope_only_sym"), C(1000 + i)));
    CHECK(scope.size() > 1000);
    CHECK(InternedNodeCount() == before + scope.size());
  }
  CHECK(InternedNodeCount() == before);
}

TEST_CASE("a scope finds the nodes built outside it", "[sym][intern]") {
  // Built outside any scope: process-wide, like a static.
  const Expr outside = Pooled("intern_outside");
  const Expr symbol = S("intern_outside");
  const size_t before = InternedNodeCount();
  std::string twice_text;
  {
    InternScope scope;
    const Expr inside = Pooled("intern_outside");
    CHECK(inside == outside);
    CHECK(inside.node() == outside.node());
    CHECK(S("intern_outside").node() == symbol.node());
    CHECK(scope.size() == 0);  // nothing new
    CHECK(InternedNodeCount() == before);

    // New nodes over old children; the old ones stay usable after the scope.
    const Expr twice = Get(Mul(outside, C(2)));
    CHECK(scope.size() > 0);
    twice_text = twice.ToString();
  }
  CHECK(InternedNodeCount() == before);
  CHECK(Pooled("intern_outside") == outside);
  CHECK(twice_text == Get(Mul(outside, C(2))).ToString());
}

TEST_CASE("the default Expr is the process-wide zero, in a scope too", "[sym][intern]") {
  const Expr zero_outside;
  {
    InternScope scope;
    const Expr zero;
    CHECK(zero.node() == zero_outside.node());
    CHECK(C(0) == zero);
    CHECK(Get(Sub(S("intern_zero"), S("intern_zero"))) == zero);
    CHECK(Get(Mul(S("intern_zero"), C(0))) == Expr());
    CHECK(P("intern_zero - intern_zero") == Expr());
    CHECK(zero.AsConstant() == 0);
  }
  CHECK(Expr() == zero_outside);
  CHECK(C(0) == zero_outside);
}

TEST_CASE("scopes nest: inner first, then outer ones, then the process-wide table",
          "[sym][intern]") {
  const Expr global = Get(Add(S("intern_nest"), C(1)));
  const size_t before = InternedNodeCount();
  InternScope outer;
  const Expr in_outer = Get(Mul(S("intern_nest"), S("intern_nest")));
  const size_t outer_size = outer.size();
  CHECK(outer_size > 0);
  {
    InternScope inner;
    // Equal to what the outer scope and the process-wide table hold: those very nodes.
    CHECK(Get(Mul(S("intern_nest"), S("intern_nest"))).node() == in_outer.node());
    CHECK(Get(Add(S("intern_nest"), C(1))).node() == global.node());
    CHECK(inner.size() == 0);
    // New nodes go to the inner scope only.
    const Expr in_inner = Get(Add(in_outer, global));
    CHECK(inner.size() > 0);
    CHECK(outer.size() == outer_size);
    CHECK(InternedNodeCount() == before + outer.size() + inner.size());
    CHECK(in_inner.ToString() == P("intern_nest * intern_nest + intern_nest + 1").ToString());
    CHECK(P(in_inner.ToString()) == in_inner);
    {
      InternScope innermost;
      CHECK(Get(Add(global, in_outer)).node() == in_inner.node());
      CHECK(innermost.size() == 0);
    }
  }
  CHECK(outer.size() == outer_size);
  CHECK(InternedNodeCount() == before + outer_size);
  // Built again in the outer scope after the inner one is gone: a node of the outer scope.
  const Expr again = Get(Add(in_outer, global));
  CHECK(again == P("intern_nest * intern_nest + intern_nest + 1"));
  CHECK(outer.size() > outer_size);
  CHECK(Get(Sub(again, global)) == in_outer);
}

TEST_CASE("expressions in a scope evaluate and print like any other", "[sym][intern]") {
  Binding at;
  at.Set("intern_eval", 11);
  std::string text;
  std::optional<int64_t> value;
  {
    InternScope scope;
    const Expr e = Pooled("intern_eval");
    text = e.ToString();
    value = e.Evaluate(at);
    Evaluator evaluate(at);
    CHECK(evaluate(e) == value);
    CHECK(e.Symbols() == std::vector<std::string>{"intern_eval"});
    CHECK(KnownNonNegative(Get(Mul(S("intern_eval"), S("intern_eval")))));
    CHECK(P(text) == e);
    CHECK(FromDimParam(text) == e);
  }
  CHECK(value == 5 + 7 * 11);
  CHECK(text == Pooled("intern_eval").ToString());
}

TEST_CASE("threads intern in their own scopes concurrently", "[sym][intern]") {
  // Some shared nodes exist before the threads start, others are built by every thread.
  const Expr shared = Pooled("intern_thread_0");
  const size_t before = InternedNodeCount();
  auto work = [](std::vector<std::string>* out, size_t* owned, size_t* global) {
    InternScope scope;
    for (int round = 0; round < 20; ++round) {
      for (int i = 0; i < 50; ++i) {
        const std::string name = absl::StrCat("intern_thread_", i);
        const Expr e = Get(Add(Pooled(name), Mul(C(round), S(name))));
        // Built twice in the same scope: the same node.
        if (e != Get(Add(Pooled(name), Mul(C(round), S(name))))) out->push_back("unequal");
        out->push_back(e.ToString());
      }
    }
    *owned = scope.size();
    *global = InternedNodeCount() - scope.size();
  };
  std::vector<std::string> first, second, alone;
  size_t first_owned = 0, second_owned = 0, alone_owned = 0;
  size_t first_global = 0, second_global = 0, alone_global = 0;
  std::thread a(work, &first, &first_owned, &first_global);
  std::thread b(work, &second, &second_owned, &second_global);
  a.join();
  b.join();
  work(&alone, &alone_owned, &alone_global);
  // Nothing of the threads' went to the process-wide table.
  CHECK(first_global == before);
  CHECK(second_global == before);
  CHECK(alone_global == before);
  CHECK(first == alone);
  CHECK(second == alone);
  CHECK(first_owned > 0);
  CHECK(first_owned == alone_owned);
  CHECK(second_owned == alone_owned);
  CHECK(InternedNodeCount() == before);
  CHECK(Pooled("intern_thread_0") == shared);
}

}  // namespace
}  // namespace shapelint::sym
