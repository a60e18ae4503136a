// Floor division by a symbolic divisor (FloorDivExpr): its canonical form, evaluation, printing
// and parsing, and the caps.
#include <catch2/catch.hpp>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "shapelint/sym/expr.h"
#include "sym/expr_test_util.h"

namespace shapelint::sym {
namespace {

constexpr int64_t kMax64 = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin64 = std::numeric_limits<int64_t>::min();

using testing::C;
using testing::Get;
using testing::P;
using testing::S;

std::optional<int64_t> Eval(const Expr& e,
                            std::initializer_list<std::pair<const char*, int64_t>> values) {
  Binding b;
  for (const auto& [name, value] : values) b.Set(name, value);
  return e.Evaluate(b);
}

// The one atom of `e` (which must be that atom alone), taken apart.
AtomParts OnlyAtom(const Expr& e) {
  PolynomialParts parts = Decompose(e);
  REQUIRE(parts.constant == 0);
  REQUIRE(parts.terms.size() == 1);
  REQUIRE(parts.terms[0].coeff == 1);
  REQUIRE(parts.terms[0].factors.size() == 1);
  REQUIRE(parts.terms[0].factors[0].second == 1);
  return parts.terms[0].factors[0].first;
}

TEST_CASE("FloorDivExpr cancels common factors before making an atom", "[sym]") {
  // Reshape's -1 in Attention's expansion: K [k0, k1, k2] to [Shape(Q)[0], k1, 8, -1].
  Expr e = Get(FloorDivExpr(P("k0*k1*k2"), P("8*q0*k1")));
  CHECK(e.ToString() == "floor(k0*k2 / (8*q0))");
  AtomParts atom = OnlyAtom(e);
  CHECK(atom.kind == AtomParts::Kind::kFloorDivExpr);
  REQUIRE(atom.args.size() == 2);
  CHECK(atom.args[0] == P("k0*k2"));
  CHECK(atom.args[1] == P("8*q0"));
  // An integer common to every coefficient goes too, and the divisor leads with a positive
  // coefficient: floor(x / -y) == floor(-x / y).
  CHECK(Get(FloorDivExpr(P("6*a"), P("4*b"))).ToString() == "floor(3*a / (2*b))");
  CHECK(Get(FloorDivExpr(S("a"), P("-b"))).ToString() == "floor(-a / b)");
  CHECK(Get(FloorDivExpr(P("2*a + 2"), P("-2*b + 4"))).ToString() == "floor((-a - 1) / (b - 2))");
  CHECK(Get(FloorDivExpr(P("a^2*b"), P("a*c^2"))).ToString() == "floor(a*b / c^2)");
  CHECK(Get(FloorDivExpr(C(6), P("2*q"))).ToString() == "floor(3 / q)");
  CHECK(Get(FloorDivExpr(P("a*b + 1"), S("b"))).ToString() == "floor((a*b + 1) / b)");
  // Equal quotients written differently are one node.
  CHECK(Get(FloorDivExpr(P("2*a*c"), P("2*b*c"))) == Get(FloorDivExpr(S("a"), S("b"))));
  CHECK(Get(FloorDivExpr(S("a"), S("b"))) != Get(FloorDivExpr(S("b"), S("a"))));
  // Building from an atom's own parts gives the atom back (Parse relies on it).
  CHECK(Get(FloorDivExpr(atom.args[0], atom.args[1])) == e);
}

TEST_CASE("FloorDivExpr gives the exact quotient when the divisor divides", "[sym]") {
  CHECK(Get(FloorDivExpr(P("2*a*b"), P("2*b"))) == S("a"));
  CHECK(Get(FloorDivExpr(P("a*b + b"), P("a + 1"))) == S("b"));
  CHECK(Get(FloorDivExpr(P("a^2 - b^2"), P("a - b"))) == P("a + b"));
  CHECK(Get(FloorDivExpr(P("a^2 + 2*a*b + b^2"), P("a + b"))) == P("a + b"));
  CHECK(Get(FloorDivExpr(P("6*a*c + 3*b*c"), P("2*a + b"))) == P("3*c"));
  CHECK(Get(FloorDivExpr(P("a + b"), P("a + b"))) == C(1));
  CHECK(Get(FloorDivExpr(C(0), S("q"))) == C(0));
  // A single-term divisor: what FloorDivByTerm gives.
  CHECK(Get(FloorDivExpr(P("H*N*W"), P("2*H"))) == Get(FloorDivByTerm(P("H*N*W"), P("2*H"))));
  CHECK(Get(FloorDivExpr(P("6*h*n + 2*h"), P("4*h"))) ==
        Get(FloorDivByTerm(P("6*h*n + 2*h"), P("4*h"))));
  // Dividing is tried, not assumed: these are atoms.
  CHECK(OnlyAtom(Get(FloorDivExpr(P("a^2 + b^2"), P("a + b")))).kind ==
        AtomParts::Kind::kFloorDivExpr);
  CHECK(OnlyAtom(Get(FloorDivExpr(P("a*b + 1"), P("a + 1")))).kind ==
        AtomParts::Kind::kFloorDivExpr);
}

TEST_CASE("FloorDivExpr by a constant is FloorDiv, the atoms it makes unchanged", "[sym]") {
  for (const char* numerator : {"s", "s - 3", "2*s + 1", "6*a*b + 4", "floor(s / 2) + 1"}) {
    INFO(numerator);
    for (int64_t k : {1, 2, 3, 7, 64}) {
      CHECK(Get(FloorDivExpr(P(numerator), C(k))) == Get(FloorDiv(P(numerator), C(k))));
    }
    // A negative constant divisor: floor(x / -k) == floor(-x / k).
    CHECK(Get(FloorDivExpr(P(numerator), C(-3))) == Get(FloorDiv(Neg(P(numerator)), C(3))));
    CHECK_FALSE(FloorDivExpr(P(numerator), C(0)));
  }
  CHECK(OnlyAtom(Get(FloorDivExpr(S("s"), C(2)))).kind == AtomParts::Kind::kFloorDiv);
  CHECK(Get(FloorDivExpr(C(-7), C(2))) == C(-4));
  CHECK_FALSE(FloorDivExpr(C(7), C(0)));
  CHECK_FALSE(FloorDivExpr(S("s"), MaybeExpr()));
  CHECK_FALSE(FloorDivExpr(MaybeExpr(), S("s")));
  // FloorDiv itself still knows nothing of symbolic divisors.
  CHECK_FALSE(FloorDiv(S("a"), S("b")));
}

TEST_CASE("FloorDivExpr atoms: symbols, signs and kinds", "[sym]") {
  Expr e = Get(FloorDivExpr(P("k0*k2"), P("8*q0")));
  CHECK(e.Symbols() == std::vector<std::string>{"k0", "k2", "q0"});
  CHECK_FALSE(e.IsPolynomial());
  CHECK_FALSE(AsLinear(e));
  CHECK(KnownNonNegative(e));
  CHECK(KnownNonNegative(Get(Add(e, C(1)))));
  CHECK_FALSE(KnownNonNegative(Get(FloorDivExpr(P("a - 1"), S("b")))));
  CHECK_FALSE(KnownNonNegative(Get(FloorDivExpr(S("a"), P("b - 1")))));
  // Sums and products over it print and order like any other atom.
  Expr sum = Get(Add(Add(e, S("a")), FloorDiv(S("a"), C(2))));
  CHECK(sum.ToString() == "a + floor(a / 2) + floor(k0*k2 / (8*q0))");
  CHECK(Get(Mul(e, e)).ToString() == "floor(k0*k2 / (8*q0))^2");
}

TEST_CASE("FloorDivExpr evaluates with floor semantics, and not where the divisor is 0", "[sym]") {
  Expr e = Get(FloorDivExpr(P("k0*k1*k2"), P("8*q0*k1")));
  CHECK(Eval(e, {{"k0", 2}, {"k2", 16}, {"q0", 2}}) == 2);
  CHECK(Eval(e, {{"k0", 3}, {"k2", 5}, {"q0", 1}}) == 1);  // 15 / 8
  CHECK(Eval(e, {{"k0", 2}, {"k2", 16}, {"q0", 0}}) == std::nullopt);
  CHECK(Eval(e, {{"k0", 2}, {"q0", 1}}) == std::nullopt);  // k2 unbound
  Expr neg = Get(FloorDivExpr(P("a - 7"), P("b - c")));
  CHECK(Eval(neg, {{"a", 0}, {"b", 2}, {"c", 0}}) == -4);   // -7 / 2
  CHECK(Eval(neg, {{"a", 0}, {"b", 0}, {"c", 2}}) == 3);    // -7 / -2
  CHECK(Eval(neg, {{"a", 10}, {"b", 0}, {"c", 3}}) == -1);  // 3 / -3
  CHECK(Eval(neg, {{"a", 11}, {"b", 0}, {"c", 3}}) == -2);  // 4 / -3
  CHECK(Eval(neg, {{"a", 11}, {"b", 3}, {"c", 3}}) == std::nullopt);
  // The minimum over -1 does not fit.
  Expr min_over = Get(FloorDivExpr(P("a - 9223372036854775807 - 1"), P("b - 1")));
  CHECK(Eval(min_over, {{"a", 0}, {"b", 0}}) == std::nullopt);
  CHECK(Eval(min_over, {{"a", 1}, {"b", 0}}) == kMax64);
  // An Evaluator shares the atom's value between expressions, and agrees.
  Binding b;
  b.Set("a", 0);
  b.Set("b", 0);
  b.Set("c", 2);
  Evaluator eval(b);
  CHECK(eval(neg) == 3);
  CHECK(eval(Get(Add(neg, neg))) == 6);
  b.Set("b", 2);
  CHECK(Evaluator(b)(neg) == std::nullopt);
}

TEST_CASE("FloorDivExpr prints what Parse reads back", "[sym]") {
  std::vector<Expr> exprs = {
      Get(FloorDivExpr(P("k0*k2"), P("8*q0"))),
      Get(FloorDivExpr(S("a"), S("b"))),
      Get(FloorDivExpr(S("a"), P("-b"))),
      Get(FloorDivExpr(S("a"), P("b^2"))),
      Get(FloorDivExpr(S("a"), P("b*c"))),
      Get(FloorDivExpr(S("a"), P("min(b, c)"))),
      Get(FloorDivExpr(S("a"), P("floor(b / 2)"))),
      Get(FloorDivExpr(P("a - 7"), P("b - c"))),
      Get(FloorDivExpr(C(-6), P("q + 1"))),
      Get(FloorDivExpr(P("\"odd name\""), P("\"x y\" + 3"))),
      Get(FloorDivExpr(P("-9223372036854775807*a - a + 1"), P("b"))),
      Get(Sub(C(3), Mul(C(2), FloorDivExpr(S("a"), FloorDivExpr(S("b"), S("c")))))),
  };
  for (const Expr& e : exprs) {
    std::string text = e.ToString();
    INFO(text);
    CHECK(P(text) == e);
    CHECK(FromDimParam(text) == e);
  }
  // The spellings of floor division by a symbol that exporters write.
  Expr q = Get(FloorDivExpr(S("s0"), S("s1")));
  CHECK(P("s0 // s1") == q);
  CHECK(P("(s0//s1)") == q);
  CHECK(P("FloorDiv(s0, s1)") == q);
  CHECK(P("CleanDiv(s0, s1)") == q);
  CHECK(P("floor(s0 / s1)") == q);
  CHECK(P("FloorToInt(s0/s1)") == q);
  CHECK(P("ceil(s0 / s1)") == Get(Neg(FloorDivExpr(Neg(S("s0")), S("s1")))));
  CHECK(P("2*(s0 // (s1 + 1)) + 1") ==
        Get(Add(Mul(C(2), FloorDivExpr(S("s0"), P("s1 + 1"))), C(1))));
  CHECK(P("FloorDiv(s0*s1, s1)") == S("s0"));
  // A bare '/' by a symbol is not read as a division: "N/A" is a name, not floor(N / A).
  CHECK_FALSE(Parse("N/A").ok());
  CHECK(FromDimParam("N/A") == S("N/A"));
  CHECK(FromDimParam("a / b + 1") == S("a / b + 1"));
  CHECK(FromDimParam("min(a / b, 2)") == S("min(a / b, 2)"));
  CHECK_FALSE(Parse("(a / b)").ok());
  CHECK_FALSE(Parse("floor(a / b / c)").ok());
  CHECK_FALSE(Parse("floor(a / b + 1)").ok());
  CHECK_FALSE(Parse("mod(a, b)").ok());
  CHECK_FALSE(Parse("a % b").ok());
  CHECK_FALSE(Parse("a // (b - b)").ok());
  CHECK(Parse("N/A").status().message().find("floor(a / b) or a // b") != std::string::npos);
}

TEST_CASE("FloorDivExpr gives unknown past int64 and the caps, and counts only that", "[sym]") {
  // Every coefficient is the minimum: their common factor 2^63 is no int64.
  CapHits before = CapHitsSoFar();
  CHECK_FALSE(FloorDivExpr(Mul(C(kMin64), S("a")), Mul(C(kMin64), S("b"))));
  CHECK(CapHitsSoFar().overflow == before.overflow + 1);
  // Making the divisor's sign positive negates the numerator's minimum.
  CHECK_FALSE(FloorDivExpr(Mul(C(kMin64), S("a")), P("-b")));
  // Arithmetic on the atom overflows as on any other.
  Expr e = Get(FloorDivExpr(S("a"), S("b")));
  CHECK_FALSE(Add(Mul(C(kMax64), e), e));
  // A division that is tried and does not come out is no cap hit.
  before = CapHitsSoFar();
  CHECK(FloorDivExpr(P("a*b + 1"), P("a + 1")));
  CHECK(FloorDivExpr(P("9223372036854775807*a^2 + b"), P("a - 2")));  // a trial step overflows
  CHECK(CapHitsSoFar() == before);
  // Nesting is capped like floor, min and max.
  MaybeExpr nested = S("x");
  Expr deepest = S("x");
  int depth = 0;
  for (; depth < 100 && nested; ++depth) {
    deepest = *nested;
    nested = FloorDivExpr(S("y"), Add(nested, C(1)));
  }
  CHECK_FALSE(nested);
  CHECK(depth < 100);
  CHECK(CapHitsSoFar().too_large > before.too_large);
  // The deepest that is made still prints within what Parse reads back.
  CHECK(P(deepest.ToString()) == deepest);
}

// Random expressions mixing floor division by symbols with the rest of the algebra: where every
// division in the tree is defined, the canonical form has the tree's value, and it prints what
// parses back.
struct Node {
  enum class Op { kConst, kSym, kAdd, kSub, kMul, kFloorDivExpr, kFloorDivConst, kMin } op;
  int64_t value = 0;
  std::string name;
  std::unique_ptr<Node> lhs, rhs;
};

std::unique_ptr<Node> RandomNode(std::mt19937_64& rng, int depth) {
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<uint64_t>(n)); };
  auto n = std::make_unique<Node>();
  if (depth == 0 || pick(5) == 0) {
    if (pick(3) == 0) {
      n->op = Node::Op::kConst;
      n->value = pick(9) - 4;
    } else {
      n->op = Node::Op::kSym;
      n->name = std::string(1, static_cast<char>('a' + pick(3)));
    }
    return n;
  }
  n->op = static_cast<Node::Op>(2 + pick(6));
  n->lhs = RandomNode(rng, depth - 1);
  if (n->op == Node::Op::kFloorDivConst) {
    n->rhs = std::make_unique<Node>();
    n->rhs->op = Node::Op::kConst;
    n->rhs->value = 1 + pick(4);
  } else {
    n->rhs = RandomNode(rng, depth - 1);
  }
  return n;
}

MaybeExpr Build(const Node& n) {
  switch (n.op) {
    case Node::Op::kConst:
      return C(n.value);
    case Node::Op::kSym:
      return S(n.name);
    case Node::Op::kAdd:
      return Add(Build(*n.lhs), Build(*n.rhs));
    case Node::Op::kSub:
      return Sub(Build(*n.lhs), Build(*n.rhs));
    case Node::Op::kMul:
      return Mul(Build(*n.lhs), Build(*n.rhs));
    case Node::Op::kFloorDivExpr:
      return FloorDivExpr(Build(*n.lhs), Build(*n.rhs));
    case Node::Op::kFloorDivConst:
      return FloorDiv(Build(*n.lhs), Build(*n.rhs));
    case Node::Op::kMin:
      return Min(Build(*n.lhs), Build(*n.rhs));
  }
  return std::nullopt;
}

bool HasSymbolicDivisor(const Expr& e) {
  for (const TermParts& term : Decompose(e).terms) {
    for (const auto& [atom, exponent] : term.factors) {
      if (atom.kind == AtomParts::Kind::kFloorDivExpr) return true;
      for (const Expr& arg : atom.args) {
        if (HasSymbolicDivisor(arg)) return true;
      }
    }
  }
  return false;
}

// Python's //, written without the implementation's helpers.
int64_t RefFloorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

// Small operands keep every intermediate far from int64's range.
std::optional<int64_t> RefEval(const Node& n, const Binding& binding) {
  if (n.op == Node::Op::kConst) return n.value;
  if (n.op == Node::Op::kSym) return binding.Get(n.name);
  std::optional<int64_t> l = RefEval(*n.lhs, binding);
  std::optional<int64_t> r = RefEval(*n.rhs, binding);
  if (!l || !r) return std::nullopt;
  switch (n.op) {
    case Node::Op::kAdd:
      return *l + *r;
    case Node::Op::kSub:
      return *l - *r;
    case Node::Op::kMul:
      return *l * *r;
    case Node::Op::kFloorDivExpr:
    case Node::Op::kFloorDivConst:
      if (*r == 0) return std::nullopt;
      return RefFloorDiv(*l, *r);
    case Node::Op::kMin:
      return std::min(*l, *r);
    default:
      return std::nullopt;
  }
}

TEST_CASE("random expressions with symbolic divisors: values and round trips", "[sym]") {
  std::mt19937_64 rng(0xd1de);
  int compared = 0, atoms = 0;
  for (int i = 0; i < 1500; ++i) {
    std::unique_ptr<Node> tree = RandomNode(rng, 3);
    MaybeExpr e = Build(*tree);
    if (!e) continue;
    std::string text = e->ToString();
    INFO("expression " << i << ": " << text);
    if (HasSymbolicDivisor(*e)) ++atoms;
    absl::StatusOr<Expr> reparsed = Parse(text);
    INFO(reparsed.status().ToString());
    REQUIRE(reparsed.ok());
    REQUIRE(*reparsed == *e);
    for (int j = 0; j < 6; ++j) {
      Binding binding;
      for (const char* name : {"a", "b", "c"}) {
        binding.Set(name, static_cast<int64_t>(rng() % 7));
      }
      std::optional<int64_t> want = RefEval(*tree, binding);
      if (!want) continue;
      ++compared;
      INFO("a=" << *binding.Get("a") << " b=" << *binding.Get("b") << " c=" << *binding.Get("c"));
      CHECK(e->Evaluate(binding) == want);
    }
  }
  CHECK(compared > 3000);
  CHECK(atoms > 300);
}

}  // namespace
}  // namespace shapelint::sym
