// sym::Decompose: the public view of an expression's canonical form.
#include "sym/expr_node.h"

namespace shapelint::sym {
namespace {

AtomParts PartsOf(const ExprNode* atom) {
  AtomParts parts;
  switch (atom->kind) {
    case NodeKind::kSymbol:
      parts.kind = AtomParts::Kind::kSymbol;
      parts.symbol = atom->name;
      break;
    case NodeKind::kFloorDiv:
      parts.kind = AtomParts::Kind::kFloorDiv;
      parts.args.push_back(ExprBuilder::FromNode(atom->numerator));
      parts.divisor = atom->divisor;
      break;
    case NodeKind::kFloorDivExpr:
      parts.kind = AtomParts::Kind::kFloorDivExpr;
      parts.args.push_back(ExprBuilder::FromNode(atom->numerator));
      parts.args.push_back(ExprBuilder::FromNode(atom->divisor_expr));
      break;
    case NodeKind::kMin:
    case NodeKind::kMax:
      parts.kind = atom->kind == NodeKind::kMin ? AtomParts::Kind::kMin : AtomParts::Kind::kMax;
      for (const ExprNode* arg : atom->args) parts.args.push_back(ExprBuilder::FromNode(arg));
      break;
    case NodeKind::kPoly:
      break;  // never an atom
  }
  return parts;
}

}  // namespace

PolynomialParts Decompose(const Expr& e) {
  const ExprNode* poly = e.node();
  PolynomialParts parts;
  parts.constant = poly->constant;
  for (const Term& term : poly->terms) {
    TermParts t;
    t.coeff = term.coeff;
    for (const Factor& f : term.monomial) t.factors.emplace_back(PartsOf(f.atom), f.exponent);
    parts.terms.push_back(std::move(t));
  }
  return parts;
}

}  // namespace shapelint::sym
