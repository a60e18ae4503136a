// SL017 baked-size-offset: size arithmetic adds a literal where an input's size belongs.
//
// forward computes a length from two inputs' sizes, one of them read as a Python number
// (P = int(past.size(1)); torch.arange(T)[:, None] + P; torch.arange(P + T)). The trace keeps
// T, which it reads from the tensor, and writes P as the number it was at the example: the
// graph builds a mask of T + 5 columns where the scores it meets have P + T. The two agree at
// P = 5 only, and at any other P ONNX Runtime fails (or computes with the wrong length) where
// eager PyTorch reads P again.
//
// The evidence is the engine's: a requirement whose two sides differ by exactly P - 5 says that
// the graph computes 5 where the other side computes P, so the graph runs at P = 5 only, and
// the export size, where the graph runs, was 5. The side that holds 5 never reads P; on it, an
// Add or Sub with a literal operand computes that side's size. A number the module writes
// itself (a fixed prefix of 5 entries) leaves the same graph, and then eager PyTorch accepts
// only P = 5 too: the finding says so.
//
// Claims: on the side of a failure that kept its size and never read the moved one
// (Matcher::ClaimsKeptNode), an Add or Sub of a size and a literal whose result is that side's
// dim, where a requirement of the graph's ops (not a declaration) holds exactly at one size of
// one symbol (2 or more), the witness's.
#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "lint/fix_builder.h"
#include "lint/requirements.h"
#include "lint/rule.h"
#include "shapelint/sym/expr.h"

namespace shapelint::lint {
namespace {

// What a requirement says when its sides differ by exactly (symbol - size): the side that
// computes `size` where the other computes `symbol`.
struct StandIn {
  std::string symbol;
  int64_t size = 0;
  sym::Expr kept;   // the side without the symbol
  sym::Expr moved;  // the side with it
};

std::optional<StandIn> StandInOf(const infer::Requirement& r) {
  // A declared output holds what some tool wrote, not what the graph computes (SL003's).
  if (r.kind == infer::RequirementKind::kDeclaredShape) return std::nullopt;
  const sym::MaybeExpr d = sym::Sub(r.lhs, r.rhs);
  if (!d) return std::nullopt;
  const std::optional<sym::LinearForm> form = sym::AsLinear(*d);
  if (!form || form->terms.size() != 1) return std::nullopt;
  const std::string symbol = form->terms.front().first;
  const int64_t coefficient = form->terms.front().second;
  if (coefficient != 1 && coefficient != -1) return std::nullopt;
  // coefficient * symbol + constant == 0.
  const int64_t size = -form->constant * coefficient;
  // A size of 1 broadcasts, and 0 is no size a literal stands for.
  if (size < 2) return std::nullopt;
  const std::vector<std::string> lhs_symbols = r.lhs.Symbols();
  const bool in_lhs =
      std::find(lhs_symbols.begin(), lhs_symbols.end(), symbol) != lhs_symbols.end();
  return StandIn{symbol, size, in_lhs ? r.rhs : r.lhs, in_lhs ? r.lhs : r.rhs};
}

// The literal operand of an Add or Sub `n`, when it has one.
struct Operand {
  int input = -1;
  int64_t value = 0;
  const infer::TensorFact* fact = nullptr;
};

std::optional<Operand> LiteralOperand(const infer::Inference& inference, ir::Node n) {
  for (int i = 0; i < 2 && i < n.input_size(); ++i) {
    const infer::TensorFact* f = inference.Find(n.input(i));
    if (f == nullptr || !f->values || f->values->size() != 1) continue;
    const infer::Element& e = f->values->front();
    const infer::Origin* origin = inference.OriginOf(e.origin);
    if (origin == nullptr || !origin->IsLiteral() || !e.value) continue;
    if (std::optional<int64_t> v = e.value->AsConstant()) return Operand{i, *v, f};
  }
  return std::nullopt;
}

// The repair: the literal becomes the input's size it stands for, read from the input's shape,
// as a scalar or a list of one as the literal was. Only where the literal is that size at the
// example and is added (T + 5 for P + T): another offset or a Sub would need arithmetic the
// finding does not state. Unsafe: the same number may stand for the size elsewhere, in values
// rather than sizes (positions offset by P: arange(T) + 5), where no requirement shows it and
// the repair leaves it.
absl::StatusOr<FixIt> Repair(const Analysis& analysis, const Cause& cause, const StandIn& stand,
                             const Operand& literal) {
  const ir::Node n = cause.graph->node(cause.node);
  if (cause.graph != &analysis.model().graph()) {
    return absl::FailedPreconditionError("the node is inside a subgraph");
  }
  if (n.op_type() != "Add" || literal.value != stand.size) {
    return absl::FailedPreconditionError(
        absl::StrCat("the literal ", literal.value, " is not ", stand.symbol,
                     "'s size added: the offset would need arithmetic the graph does not show"));
  }
  if (literal.fact->elem_type != ONNX_NAMESPACE::TensorProto::INT64 || !literal.fact->shape ||
      literal.fact->rank() > 1) {
    return absl::FailedPreconditionError("the literal is not an int64 scalar or list of one");
  }
  FixBuilder b(analysis, cause.node, Applicability::kUnsafe,
               absl::StrCat("compute the literal ", literal.value, " as ", stand.symbol,
                            " from the input's shape (other places that hold ", literal.value,
                            " for it, such as positions offset by it, are left)"));
  const std::optional<std::string> size = b.Compute(sym::Expr::Symbol(stand.symbol));
  if (!size) {
    return absl::FailedPreconditionError(
        absl::StrCat(stand.symbol, " is not a dim of a graph input"));
  }
  const std::string operand = b.Vector({*size}, /*scalar=*/literal.fact->rank() == 0);
  b.Rewire(cause.node, literal.input, operand);
  b.DropComputationIfUnread(n.input(literal.input));
  return std::move(b).Take();
}

// The value `n` computes, when it is one number the engine follows.
sym::MaybeExpr ScalarOf(const infer::Inference& inference, ir::Node n) {
  if (n.output_size() == 0) return std::nullopt;
  const infer::TensorFact* f = inference.Find(n.output(0));
  if (f == nullptr || !f->values || f->values->size() != 1) return std::nullopt;
  return f->values->front().value;
}

class BakedSizeOffset : public Rule {
 public:
  using Rule::Rule;

  bool ClaimsKeptNode(const BlameSite& site, int node) const override {
    const ir::Node n = site.graph().node(node);
    if (n.op_type() != "Add" && n.op_type() != "Sub") return false;
    const std::optional<StandIn> stand = StandInOf(*site.pin().requirement);
    if (!stand || site.witness().Get(stand->symbol) != stand->size) return false;
    // A size plus a literal: two literals folded (unflatten's 1 + 1) compute no size.
    const sym::MaybeExpr value = ScalarOf(site.inference(), n);
    return value && !value->IsConstant() && *value == stand->kept &&
           LiteralOperand(site.inference(), n).has_value();
  }

  void Check(const Analysis& analysis, std::vector<Finding>& out) const override {
    for (const Cause& cause : analysis.causes()) {
      if (!Owns(cause)) continue;
      const infer::Requirement& r = *cause.pins.front()->requirement;
      const std::optional<StandIn> stand = StandInOf(r);
      const ir::Node n = cause.graph->node(cause.node);
      const std::optional<Operand> literal = LiteralOperand(analysis.inference(), n);
      if (!stand || !literal) continue;
      const std::string& s = stand->symbol;
      const ir::Node meets = r.graph->node(r.node);
      Finding f = FindingFor(
          analysis, cause, cause.node,
          absl::StrCat(n.op_type(), " '", cause.graph->NodeLabel(cause.node), "' computes ",
                       stand->kept.ToString(kMaxExprText), " with the literal ", literal->value,
                       " where ", meets.op_type(), " '", r.graph->NodeLabel(r.node), "' meets ",
                       stand->moved.ToString(kMaxExprText), " (", r.what, "): the literal holds ",
                       s, " at ", stand->size, ", the only size where the two agree"));
      f.symbols = {s};
      f.notes.push_back(
          {absl::StrCat("this side never reads ", s,
                        ": forward read that size as a Python number (int(x.size(...))), and the "
                        "trace wrote it as it was at the example. If the module holds the number "
                        "itself (a fixed length), eager PyTorch accepts only ",
                        s, " = ", stand->size, " too"),
           std::nullopt});
      f.fix = absl::StrCat(
          "compute the length from the tensor's shape (x.shape[1], not int(x.size(1))) so that "
          "the exporter keeps it dynamic; or declare ",
          s, " static at ", stand->size, " if the model takes only that size");
      if (analysis.fixes_wanted()) {
        absl::StatusOr<FixIt> fix = Repair(analysis, cause, *stand, *literal);
        if (fix.ok()) {
          f.fix_it = *std::move(fix);
        } else {
          f.unfixable = std::string(fix.status().message());
        }
      }
      out.push_back(std::move(f));
    }
  }
};

}  // namespace

std::unique_ptr<Rule> MakeBakedSizeOffset(const RuleInfo& info) {
  return std::make_unique<BakedSizeOffset>(info);
}

}  // namespace shapelint::lint
