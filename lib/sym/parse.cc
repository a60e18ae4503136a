// Recursive-descent parser for the ToString() syntax and for what exporters write in dim_param.
//
// Grammar (whitespace is insignificant between tokens):
//   sum     := term (('+' | '-') term)*
//   term    := unary (('*' | '/' | '//' | '%') unary)*
//   unary   := ('-' | '+') unary | power
//   power   := primary (('^' | '**') unary)?         exponent: constant in [0, kMaxDegree]
//   primary := integer | name | "quoted name" | '(' sum ')' | function '(' sum (',' sum)* ')'
// Unary minus binds tighter than * and / (as in Python), so "-a / 2" is floor((-a) / 2).
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "shapelint/sym/expr.h"
#include "sym/expr_node.h"

namespace shapelint::sym {
namespace {

// Bounds recursion on hostile input (dim_param comes from untrusted model files). It is well
// above what ToString() produces for an expression of depth kMaxDepth (about 3 per level).
constexpr int kMaxNesting = 4 * kMaxDepth + 16;

// A parsed subexpression plus what floor() and ceil() need to know about its '/' operators.
// With '/' read as floor division everywhere, floor(a / b) is just a / b, but ceil(a / b) needs
// the operands of the division, and an argument such as "a / 2 + b / 2" would mean something
// else with real division, so it is rejected rather than silently floored piecewise.
struct Value {
  explicit Value(Expr e, bool slash = false) : expr(e), has_slash(slash) {}
  Expr expr;
  // Some '/' occurs outside function-call parentheses.
  bool has_slash = false;
  // The outermost operator is '/' and neither of its operands contains '/'.
  bool is_plain_division = false;
  Expr numerator;
  Expr divisor;
  // Where a '/' by a symbolic divisor occurs outside function-call parentheses, if one does.
  // Only floor() and ceil() may take it (as their whole argument): a bare "N/A" is a name.
  std::optional<size_t> symbolic_slash;
};

// Debian's Abseil has its own string_view type (ABSL_OPTION_USE_STD_STRING_VIEW is 0).
absl::string_view Av(std::string_view s) { return absl::string_view(s.data(), s.size()); }

bool IsIdentStart(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_'; }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsIdentChar(char c) { return IsIdentStart(c) || IsDigit(c) || c == '.' || c == ':'; }

int HexValue(char c) {
  if (IsDigit(c)) return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

class Parser {
 public:
  explicit Parser(std::string_view text) : text_(text) {}

  absl::StatusOr<Expr> Run() {
    absl::StatusOr<Value> v = ParseSum();
    if (!v.ok()) return v.status();
    SkipSpace();
    if (pos_ != text_.size()) return Expected(pos_, "an operator");
    if (absl::Status s = NoBareSymbolicSlash(*v); !s.ok()) return s;
    return v->expr;
  }

 private:
  // Increments the nesting depth for the lifetime of a ParseUnary frame.
  class NestingGuard {
   public:
    explicit NestingGuard(int* depth) : depth_(depth) { ++*depth_; }
    ~NestingGuard() { --*depth_; }
    NestingGuard(const NestingGuard&) = delete;
    NestingGuard& operator=(const NestingGuard&) = delete;

   private:
    int* depth_;
  };

  absl::Status Error(size_t pos, std::string_view what) const {
    return absl::InvalidArgumentError(absl::StrCat("cannot parse expression \"",
                                                   absl::CHexEscape(Av(text_)), "\" at position ",
                                                   pos, ": ", Av(what)));
  }

  // A syntax error: also names what was found at `pos`.
  absl::Status Expected(size_t pos, std::string_view what) const {
    std::string found = pos >= text_.size()
                            ? "end of input"
                            : absl::StrCat("'", absl::CHexEscape(Av(text_.substr(pos, 1))), "'");
    return Error(pos, absl::StrCat("expected ", Av(what), ", found ", found));
  }

  absl::Status NoBareSymbolicSlash(const Value& v) const {
    if (!v.symbolic_slash) return absl::OkStatus();
    return Error(*v.symbolic_slash,
                 "a / b with a symbolic divisor must be written floor(a / b) or a // b");
  }

  // The first of two positions of a bare symbolic '/', for the combination of two values.
  static std::optional<size_t> FirstSlash(const Value& a, const Value& b) {
    return a.symbolic_slash ? a.symbolic_slash : b.symbolic_slash;
  }

  absl::StatusOr<Expr> Known(const MaybeExpr& e, size_t pos) const {
    if (!e) return Error(pos, "result overflows int64 or exceeds the expression size limits");
    return *e;
  }

  void SkipSpace() {
    while (pos_ < text_.size() &&
           (text_[pos_] == ' ' || text_[pos_] == '\t' || text_[pos_] == '\n' ||
            text_[pos_] == '\r' || text_[pos_] == '\f' || text_[pos_] == '\v')) {
      ++pos_;
    }
  }

  bool LookingAt(std::string_view token) {
    SkipSpace();
    return text_.substr(pos_, token.size()) == token;
  }

  bool Consume(std::string_view token) {
    if (!LookingAt(token)) return false;
    pos_ += token.size();
    return true;
  }

  absl::StatusOr<Value> ParseSum() {
    absl::StatusOr<Value> lhs = ParseTerm();
    if (!lhs.ok()) return lhs;
    Value acc = *std::move(lhs);
    while (true) {
      SkipSpace();
      size_t op_pos = pos_;
      bool plus;
      if (Consume("+")) {
        plus = true;
      } else if (Consume("-")) {
        plus = false;
      } else {
        return acc;
      }
      absl::StatusOr<Value> rhs = ParseTerm();
      if (!rhs.ok()) return rhs;
      absl::StatusOr<Expr> e =
          Known(plus ? Add(acc.expr, rhs->expr) : Sub(acc.expr, rhs->expr), op_pos);
      if (!e.ok()) return e.status();
      Value next{*e, acc.has_slash || rhs->has_slash};
      next.symbolic_slash = FirstSlash(acc, *rhs);
      acc = next;
    }
  }

  absl::StatusOr<Value> ParseTerm() {
    absl::StatusOr<Value> lhs = ParseUnary();
    if (!lhs.ok()) return lhs;
    Value acc = *std::move(lhs);
    while (true) {
      SkipSpace();
      size_t op_pos = pos_;
      enum class Op { kMul, kSlash, kFloorDiv, kMod } op;
      // Only reachable after a complete power; let the caller report it.
      if (LookingAt("**")) return acc;
      if (Consume("*")) {
        op = Op::kMul;
      } else if (Consume("//")) {
        op = Op::kFloorDiv;
      } else if (Consume("/")) {
        op = Op::kSlash;
      } else if (Consume("%")) {
        op = Op::kMod;
      } else {
        return acc;
      }
      SkipSpace();
      size_t rhs_pos = pos_;
      absl::StatusOr<Value> rhs = ParseUnary();
      if (!rhs.ok()) return rhs;
      MaybeExpr result;
      if (op == Op::kMul) {
        result = Mul(acc.expr, rhs->expr);
      } else {
        if (absl::Status s =
                CheckDivisor(acc.expr, rhs->expr, /*symbolic_ok=*/op != Op::kMod, op_pos, rhs_pos);
            !s.ok()) {
          return s;
        }
        result = op == Op::kMod ? Mod(acc.expr, rhs->expr) : FloorDivExpr(acc.expr, rhs->expr);
      }
      absl::StatusOr<Expr> e = Known(result, op_pos);
      if (!e.ok()) return e.status();
      Value next{*e, acc.has_slash || rhs->has_slash};
      next.symbolic_slash = FirstSlash(acc, *rhs);
      if (op == Op::kSlash && !rhs->expr.IsConstant() && !next.symbolic_slash) {
        next.symbolic_slash = op_pos;
      }
      if (op == Op::kSlash) {
        next.is_plain_division = !acc.has_slash && !rhs->has_slash;
        next.numerator = acc.expr;
        next.divisor = rhs->expr;
        next.has_slash = true;
      }
      acc = next;
    }
  }

  // Modulo needs a constant divisor, floor division (`symbolic_ok`) any; a negative constant
  // one only when the dividend is constant too, which is what FloorDiv/Mod can represent.
  absl::Status CheckDivisor(const Expr& dividend, const Expr& divisor, bool symbolic_ok,
                            size_t op_pos, size_t divisor_pos) const {
    std::optional<int64_t> k = divisor.AsConstant();
    if (!k && symbolic_ok) return absl::OkStatus();
    if (!k) return Error(divisor_pos, "the divisor must be a constant");
    if (*k == 0) return Error(op_pos, "division by zero");
    if (*k < 0 && !dividend.IsConstant()) {
      return Error(divisor_pos, "the divisor of a non-constant must be positive");
    }
    return absl::OkStatus();
  }

  absl::StatusOr<Value> ParseUnary() {
    NestingGuard guard(&depth_);
    SkipSpace();
    if (depth_ > kMaxNesting) return Error(pos_, "expression nested too deeply");
    size_t op_pos = pos_;
    if (Consume("+")) return ParseUnary();
    if (!Consume("-")) return ParsePower();
    // "-9223372036854775808" is the one negative literal whose magnitude is not an int64.
    SkipSpace();
    size_t literal_pos = pos_;
    if (std::optional<uint64_t> magnitude = ScanDigits(); magnitude) {
      constexpr uint64_t kMinMagnitude = uint64_t{1} << 63;
      if (*magnitude == kMinMagnitude && !LookingAt("^") && !LookingAt("**")) {
        return Value{Expr::Constant(std::numeric_limits<int64_t>::min())};
      }
    }
    pos_ = literal_pos;
    absl::StatusOr<Value> operand = ParseUnary();
    if (!operand.ok()) return operand;
    absl::StatusOr<Expr> e = Known(Neg(operand->expr), op_pos);
    if (!e.ok()) return e.status();
    Value negated{*e, operand->has_slash};
    negated.symbolic_slash = operand->symbolic_slash;
    return negated;
  }

  absl::StatusOr<Value> ParsePower() {
    absl::StatusOr<Value> base = ParsePrimary();
    if (!base.ok()) return base;
    SkipSpace();
    size_t op_pos = pos_;
    if (!Consume("^") && !Consume("**")) return base;
    SkipSpace();
    size_t exponent_pos = pos_;
    // Right-associative and allows a sign, as in Python: 2**3**2 == 2**9.
    absl::StatusOr<Value> exponent = ParseUnary();
    if (!exponent.ok()) return exponent;
    std::optional<int64_t> n = exponent->expr.AsConstant();
    if (!n || *n < 0 || *n > kMaxDegree) {
      return Error(exponent_pos,
                   absl::StrCat("the exponent must be a constant in [0, ", kMaxDegree, "]"));
    }
    MaybeExpr result = Expr::Constant(1);
    for (int64_t i = 0; i < *n; ++i) result = Mul(result, base->expr);
    absl::StatusOr<Expr> e = Known(result, op_pos);
    if (!e.ok()) return e.status();
    Value power{*e, base->has_slash || exponent->has_slash};
    power.symbolic_slash = FirstSlash(*base, *exponent);
    return power;
  }

  // Reads a run of decimal digits at pos_; nullopt (pos_ unchanged) when there is none or when
  // it does not fit in uint64.
  std::optional<uint64_t> ScanDigits() {
    size_t start = pos_;
    uint64_t value = 0;
    while (pos_ < text_.size() && IsDigit(text_[pos_])) {
      if (__builtin_mul_overflow(value, uint64_t{10}, &value) ||
          __builtin_add_overflow(value, static_cast<uint64_t>(text_[pos_] - '0'), &value)) {
        pos_ = start;
        return std::nullopt;
      }
      ++pos_;
    }
    if (pos_ == start) return std::nullopt;
    return value;
  }

  absl::StatusOr<Value> ParsePrimary() {
    SkipSpace();
    size_t start = pos_;
    if (pos_ < text_.size() && IsDigit(text_[pos_])) {
      std::optional<uint64_t> value = ScanDigits();
      if (!value || *value > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
        return Error(start, "integer literal out of range");
      }
      if (pos_ < text_.size() && IsIdentChar(text_[pos_])) {
        return Expected(pos_, "an operator after a number");
      }
      return Value{Expr::Constant(static_cast<int64_t>(*value))};
    }
    if (pos_ < text_.size() && text_[pos_] == '"') {
      absl::StatusOr<std::string> name = ParseQuoted();
      if (!name.ok()) return name.status();
      return Value{Expr::Symbol(*name)};
    }
    if (pos_ < text_.size() && IsIdentStart(text_[pos_])) {
      while (pos_ < text_.size() && IsIdentChar(text_[pos_])) ++pos_;
      std::string_view name = text_.substr(start, pos_ - start);
      if (LookingAt("(")) return ParseCall(name, start);
      return Value{Expr::Symbol(name)};
    }
    if (Consume("(")) {
      absl::StatusOr<Value> inner = ParseSum();
      if (!inner.ok()) return inner;
      if (!Consume(")")) return Expected(pos_, "')'");
      return inner;  // Parentheses keep the '/' information for floor() and ceil().
    }
    return Expected(pos_, "a number, a name, '(' or a function call");
  }

  absl::StatusOr<std::string> ParseQuoted() {
    size_t open = pos_;
    ++pos_;  // '"'
    std::string name;
    while (true) {
      if (pos_ >= text_.size()) return Error(open, "unterminated quoted name");
      char c = text_[pos_];
      if (c == '"') {
        ++pos_;
        return name;
      }
      if (c != '\\') {
        name.push_back(c);
        ++pos_;
        continue;
      }
      if (pos_ + 1 >= text_.size()) return Error(pos_, "unterminated escape");
      char e = text_[pos_ + 1];
      if (e == '"' || e == '\\') {
        name.push_back(e);
        pos_ += 2;
      } else if (e == 'x' && pos_ + 3 < text_.size() && HexValue(text_[pos_ + 2]) >= 0 &&
                 HexValue(text_[pos_ + 3]) >= 0) {
        name.push_back(
            static_cast<char>(HexValue(text_[pos_ + 2]) * 16 + HexValue(text_[pos_ + 3])));
        pos_ += 4;
      } else {
        return Error(pos_, "unknown escape (use \\\", \\\\ or \\xHH)");
      }
    }
  }

  absl::StatusOr<Value> ParseCall(std::string_view name, size_t name_pos) {
    enum class Fn { kFloor, kCeil, kMin, kMax, kMod, kFloorDiv };
    // Lower case is the ToString() spelling; the capitalised ones are how sympy prints, and the
    // rest the functions of torch's symbolic shapes (torch.utils._sympy.functions) that the
    // dynamo exporter writes into dim_param. TruncToInt is floor: a size is never negative.
    // CleanDiv is a division known to be exact, which floor division gives too.
    static constexpr std::pair<std::string_view, Fn> kFunctions[] = {
        {"floor", Fn::kFloor},      {"ceil", Fn::kCeil},         {"ceiling", Fn::kCeil},
        {"min", Fn::kMin},          {"Min", Fn::kMin},           {"max", Fn::kMax},
        {"Max", Fn::kMax},          {"mod", Fn::kMod},           {"Mod", Fn::kMod},
        {"PythonMod", Fn::kMod},    {"FloorToInt", Fn::kFloor},  {"CeilToInt", Fn::kCeil},
        {"TruncToInt", Fn::kFloor}, {"FloorDiv", Fn::kFloorDiv}, {"CleanDiv", Fn::kFloorDiv},
    };
    std::optional<Fn> fn;
    for (const auto& [spelling, f] : kFunctions) {
      if (spelling == name) fn = f;
    }
    if (!fn) return Error(name_pos, absl::StrCat("unknown function '", Av(name), "'"));
    Consume("(");
    std::vector<Value> args;
    std::vector<size_t> arg_pos;
    while (true) {
      SkipSpace();
      arg_pos.push_back(pos_);
      absl::StatusOr<Value> arg = ParseSum();
      if (!arg.ok()) return arg;
      args.push_back(*std::move(arg));
      if (Consume(",")) continue;
      if (Consume(")")) break;
      return Expected(pos_, "',' or ')'");
    }
    auto arity_error = [&](std::string_view expected) {
      return Error(name_pos, absl::StrCat(Av(name), "() takes ", Av(expected)));
    };
    const bool rounds = *fn == Fn::kFloor || *fn == Fn::kCeil;
    for (const Value& arg : args) {
      // floor(a / d) and ceil(a / d) take their argument's division whole; the other calls
      // would take the floor of a part.
      if (!rounds || !arg.is_plain_division) {
        if (absl::Status s = NoBareSymbolicSlash(arg); !s.ok()) return s;
      }
    }
    MaybeExpr result;
    switch (*fn) {
      case Fn::kFloor:
      case Fn::kCeil: {
        if (args.size() != 1) return arity_error("one argument");
        const Value& arg = args[0];
        if (!arg.has_slash) {
          result = arg.expr;  // An integer already.
        } else if (arg.is_plain_division && !arg.divisor.IsConstant()) {
          // ceil(a / d) == -floor(-a / d) for every d != 0.
          result = *fn == Fn::kFloor ? FloorDivExpr(arg.numerator, arg.divisor)
                                     : Neg(FloorDivExpr(Neg(arg.numerator), arg.divisor));
        } else if (arg.is_plain_division) {
          result = *fn == Fn::kFloor ? FloorDiv(arg.numerator, arg.divisor)
                                     : CeilDiv(arg.numerator, arg.divisor);
        } else {
          return Error(arg_pos[0],
                       absl::StrCat(Av(name), "() takes a / b or an expression without '/'"));
        }
        break;
      }
      case Fn::kMin:
      case Fn::kMax:
        result = args[0].expr;
        for (size_t i = 1; i < args.size(); ++i) {
          result = *fn == Fn::kMin ? Min(result, args[i].expr) : Max(result, args[i].expr);
        }
        break;
      case Fn::kMod:
      case Fn::kFloorDiv:
        if (args.size() != 2) return arity_error("two arguments");
        if (absl::Status s =
                CheckDivisor(args[0].expr, args[1].expr,
                             /*symbolic_ok=*/*fn == Fn::kFloorDiv, name_pos, arg_pos[1]);
            !s.ok()) {
          return s;
        }
        result = *fn == Fn::kMod ? Mod(args[0].expr, args[1].expr)
                                 : FloorDivExpr(args[0].expr, args[1].expr);
        break;
    }
    absl::StatusOr<Expr> e = Known(result, name_pos);
    if (!e.ok()) return e.status();
    return Value(*e);  // The call's parentheses hide any '/' inside from an enclosing floor().
  }

  std::string_view text_;
  size_t pos_ = 0;
  int depth_ = 0;
};

}  // namespace

absl::StatusOr<Expr> Parse(std::string_view text) { return Parser(text).Run(); }

}  // namespace shapelint::sym
