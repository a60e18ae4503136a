// Printing expressions in the canonical syntax that Parse reads back.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "shapelint/sym/expr.h"
#include "sym/expr_internal.h"
#include "sym/expr_node.h"

namespace shapelint::sym {
namespace {

void AppendPoly(const ExprNode* p, size_t limit, std::string* out);

void AppendName(std::string_view name, std::string* out) {
  if (IsIdentifier(name)) {
    out->append(name);
    return;
  }
  out->push_back('"');
  for (char c : name) {
    unsigned char u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out->push_back('\\');
      out->push_back(c);
    } else if (u < 0x20 || u == 0x7f) {
      absl::StrAppendFormat(out, "\\x%02x", u);
    } else {
      out->push_back(c);
    }
  }
  out->push_back('"');
}

void AppendAtom(const ExprNode* a, size_t limit, std::string* out) {
  // Past the limit the text is cut anyway: stop, so that a deeply shared DAG costs no more.
  if (out->size() > limit) return;
  switch (a->kind) {
    case NodeKind::kSymbol:
      AppendName(a->name, out);
      return;
    case NodeKind::kFloorDiv: {
      // A lone monomial needs no parentheses: "floor(s / 2)", "floor(2*s / 3)".
      bool parens = a->numerator->terms.size() + (a->numerator->constant != 0 ? 1 : 0) > 1;
      out->append(parens ? "floor((" : "floor(");
      AppendPoly(a->numerator, limit, out);
      absl::StrAppend(out, parens ? ") / " : " / ", a->divisor, ")");
      return;
    }
    case NodeKind::kFloorDivExpr: {
      // The divisor is bracketed unless it is one atom (a power binds tighter than '/'), so
      // "floor(k0*k2 / (8*q0))" and "floor(n / q)" read back as the same division.
      const ExprNode* d = a->divisor_expr;
      bool numerator_parens =
          a->numerator->terms.size() + (a->numerator->constant != 0 ? 1 : 0) > 1;
      bool divisor_parens = d->constant != 0 || d->terms.size() != 1 || d->terms[0].coeff != 1 ||
                            d->terms[0].monomial.size() != 1;
      out->append(numerator_parens ? "floor((" : "floor(");
      AppendPoly(a->numerator, limit, out);
      out->append(numerator_parens ? ") / " : " / ");
      if (divisor_parens) out->push_back('(');
      AppendPoly(d, limit, out);
      out->append(divisor_parens ? "))" : ")");
      return;
    }
    case NodeKind::kMin:
    case NodeKind::kMax: {
      out->append(a->kind == NodeKind::kMin ? "min(" : "max(");
      for (size_t i = 0; i < a->args.size(); ++i) {
        if (i > 0) out->append(", ");
        AppendPoly(a->args[i], limit, out);
      }
      out->push_back(')');
      return;
    }
    case NodeKind::kPoly:
      break;
  }
}

void AppendMonomial(const Monomial& m, size_t limit, std::string* out) {
  for (size_t i = 0; i < m.size(); ++i) {
    if (i > 0) out->push_back('*');
    AppendAtom(m[i].atom, limit, out);
    if (m[i].exponent > 1) absl::StrAppend(out, "^", m[i].exponent);
  }
}

// Appends one summand. `first` decides between a leading "-" and a separating " + " / " - ".
// `monomial` is null for the constant term.
void AppendSummand(int64_t coeff, const Monomial* monomial, bool first, size_t limit,
                   std::string* out) {
  bool negative = coeff < 0;
  if (first) {
    if (negative) out->push_back('-');
  } else {
    out->append(negative ? " - " : " + ");
  }
  uint64_t magnitude = negative ? 0 - static_cast<uint64_t>(coeff) : static_cast<uint64_t>(coeff);
  if (coeff == kInt64Min) {
    // 2^63 is not an int64 literal, so it is written as 9223372036854775807 + 1, the way C
    // spells INT64_MIN; Parse reads it back without an out-of-range literal.
    if (monomial == nullptr) {
      out->append("9223372036854775807 - 1");
    } else {
      out->append("9223372036854775807*");
      AppendMonomial(*monomial, limit, out);
      out->append(" - ");
      AppendMonomial(*monomial, limit, out);
    }
    return;
  }
  if (monomial == nullptr) {
    absl::StrAppend(out, magnitude);
    return;
  }
  if (magnitude != 1) absl::StrAppend(out, magnitude, "*");
  AppendMonomial(*monomial, limit, out);
}

void AppendPoly(const ExprNode* p, size_t limit, std::string* out) {
  bool first = true;
  for (const Term& t : p->terms) {
    if (out->size() > limit) return;
    AppendSummand(t.coeff, &t.monomial, first, limit, out);
    first = false;
  }
  if (p->constant != 0 || first) AppendSummand(p->constant, nullptr, first, limit, out);
}

}  // namespace

bool IsIdentifier(std::string_view name) {
  if (name.empty()) return false;
  auto is_alpha = [](char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
  };
  if (!is_alpha(name[0])) return false;
  for (char c : name.substr(1)) {
    if (!is_alpha(c) && !(c >= '0' && c <= '9') && c != '.' && c != ':') return false;
  }
  return true;
}

std::string Expr::ToString() const {
  std::string out;
  AppendPoly(node_, SIZE_MAX, &out);
  return out;
}

std::string Expr::ToString(size_t max_chars) const {
  std::string out;
  AppendPoly(node_, max_chars, &out);
  if (out.size() > max_chars) {
    out.resize(max_chars);
    out.append("...");
  }
  return out;
}

}  // namespace shapelint::sym
