#include "lint/analysis.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <deque>
#include <numeric>
#include <tuple>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace shapelint::lint {
namespace {

using infer::Relation;
using infer::Requirement;
using infer::RequirementKind;

// Sizes are searched up to this bound: export sizes beyond it are rare, and every scan
// step is one evaluation of a few small expressions.
constexpr int64_t kScanLimit = 8192;
// The fallback search moves one symbol at a time over this smaller range: it runs only when
// the diagonal fails, and its cost multiplies with the group's size.
constexpr int64_t kCoordinateScanLimit = 512;
// Upstream nodes visited when looking for the cause of a failure.
constexpr int kMaxBlameVisits = 100000;
// Nodes followed back from a failing node to the literal that sized its operand.
constexpr int kMaxSourceDepth = 64;

std::vector<std::string> SymbolsOf(const Requirement& r) {
  std::vector<std::string> s = r.lhs.Symbols();
  for (auto& x : r.rhs.Symbols()) s.push_back(std::move(x));
  std::sort(s.begin(), s.end());
  s.erase(std::unique(s.begin(), s.end()), s.end());
  return s;
}

std::optional<bool> HoldsUnder(const Requirement& r, sym::Evaluator& evaluate) {
  auto l = evaluate(r.lhs);
  auto rr = evaluate(r.rhs);
  if (!l || !rr) return std::nullopt;
  return infer::Holds(r.relation, *l, *rr);
}

std::optional<bool> HoldsUnder(const Requirement& r, const sym::Binding& b) {
  sym::Evaluator evaluate(b);
  return HoldsUnder(r, evaluate);
}

// The sizes t >= 1 at which `e` is zero when every symbol of `members` is t, if `e` is a linear
// polynomial in them (c_1*m_1 + ... + c_k*m_k + b): none, or the one root of
// (c_1 + ... + c_k)*t + b. nullopt when `e` is not such a polynomial or is zero at every t.
// Expressions have canonical forms, so comparing `e` with the polynomial rebuilt from its values
// at unit bindings proves it linear.
std::optional<std::vector<int64_t>> DiagonalRoots(const sym::MaybeExpr& e,
                                                  const std::vector<std::string>& members) {
  // Small coefficients keep every value the diagonal scan computes inside int64, where the scan
  // itself sees no overflow either.
  constexpr int64_t kMaxCoefficient = int64_t{1} << 32;
  if (!e) return std::nullopt;
  sym::Binding zero;
  for (const std::string& m : members) zero.Set(m, 0);
  const std::optional<int64_t> b = e->Evaluate(zero);
  if (!b || std::abs(*b) > kMaxCoefficient) return std::nullopt;
  sym::MaybeExpr rebuilt = sym::Expr::Constant(*b);
  int64_t slope = 0;
  for (const std::string& m : members) {
    sym::Binding unit = zero;
    unit.Set(m, 1);
    const std::optional<int64_t> at_one = e->Evaluate(unit);
    if (!at_one || std::abs(*at_one - *b) > kMaxCoefficient) return std::nullopt;
    const int64_t c = *at_one - *b;
    slope += c;
    rebuilt = sym::Add(rebuilt, sym::Mul(sym::Expr::Constant(c), sym::Expr::Symbol(m)));
  }
  if (rebuilt != e) return std::nullopt;
  if (slope == 0) {
    if (*b == 0) return std::nullopt;
    return std::vector<int64_t>{};
  }
  if (*b % slope != 0 || -*b / slope < 1) return std::vector<int64_t>{};
  return std::vector<int64_t>{-*b / slope};
}

// The only sizes at which `r` can hold when every symbol of `members` is that size, when `r`
// says so through linear expressions; nullopt when it may hold anywhere.
std::optional<std::vector<int64_t>> DiagonalCandidates(const Requirement& r,
                                                       const std::vector<std::string>& members) {
  std::vector<sym::MaybeExpr> zero_when_holds = {sym::Sub(r.lhs, r.rhs)};
  if (r.relation == Relation::kBroadcastable) {
    zero_when_holds.push_back(sym::Sub(r.lhs, sym::Expr::Constant(1)));
    zero_when_holds.push_back(sym::Sub(r.rhs, sym::Expr::Constant(1)));
  } else if (r.relation != Relation::kEqual) {
    return std::nullopt;
  }
  std::vector<int64_t> candidates;
  for (const sym::MaybeExpr& e : zero_when_holds) {
    auto roots = DiagonalRoots(e, members);
    if (!roots) return std::nullopt;
    candidates.insert(candidates.end(), roots->begin(), roots->end());
  }
  return candidates;
}

// A module parameter's name as torch.onnx writes it ("pos_embedding", "encoder.pos_embedding",
// "layers.0.norm.weight"), as opposed to the names it gives what it folds or generates
// ("onnx::Add_8", "/Constant_output_0", "_val_3"). A literal that is a trained parameter fixes
// a size by design: PyTorch rejects other sizes too.
bool IsParameterName(const std::string& name) {
  if (name.empty() || !(std::isalpha(static_cast<unsigned char>(name[0])))) return false;
  bool after_dot = false;
  for (char c : name) {
    const bool word = std::isalnum(static_cast<unsigned char>(c)) || c == '_';
    if (c == '.') {
      if (after_dot) return false;
      after_dot = true;
    } else if (!word) {
      return false;
    } else {
      after_dot = false;
    }
  }
  return !after_dot && name.find("Constant") == std::string::npos;
}

// A literal that sizes an op through its values (Expand's target, Tile's repeats, Split's
// sizes): where `origin` says it came from, with the values of `operand` when known.
LiteralSource ShapeOperandSource(const infer::Origin& origin, const infer::TensorFact* operand) {
  LiteralSource src;
  src.kind = LiteralSource::Kind::kConstant;
  src.graph = origin.graph;
  const bool constant_node = origin.kind == infer::Origin::Kind::kConstantNode;
  src.node = constant_node ? origin.node : -1;
  src.name = constant_node ? origin.graph->node(origin.node).output(0) : origin.name;
  if (operand != nullptr && operand->values) {
    for (const auto& e : *operand->values) {
      auto v = e.value ? e.value->AsConstant() : std::nullopt;
      src.values.push_back(v ? *v : -1);
    }
  }
  return src;
}

bool IsPool(const std::string& op) {
  return op == "AveragePool" || op == "MaxPool" || op == "LpPool";
}

std::string RangeText(const SymbolRange& r) {
  if (r.min && r.max && *r.min == *r.max) return absl::StrCat(r.symbol, " = ", *r.min);
  if (r.min && r.max) return absl::StrCat(r.symbol, " in [", *r.min, ", ", *r.max, "]");
  if (r.max) return absl::StrCat(r.symbol, " <= ", *r.max);
  if (r.min && *r.min > 1) return absl::StrCat(r.symbol, " >= ", *r.min);
  return absl::StrCat(r.symbol, " at any size");
}

// True when a Reshape keeps every dynamic dim of its input as an entry of the target and only
// regroups the static ones: [B, S, 512] to [B, S, 8, 64], the head split of attention. Its
// literals are right at every size.
bool RegroupsStaticDims(const infer::TensorFact& input, const infer::TensorFact& target) {
  std::vector<sym::Expr> dynamic;
  int64_t static_product = 1;
  for (const auto& d : *input.shape) {
    if (!d) return false;
    if (auto c = d->AsConstant()) {
      if (*c <= 0 || static_product > (int64_t{1} << 40)) return false;
      static_product *= *c;
    } else {
      dynamic.push_back(*d);
    }
  }
  int64_t literal_product = 1;
  bool infer_one = false;
  for (const auto& e : *target.values) {
    if (!e.value) return false;
    if (auto c = e.value->AsConstant()) {
      if (*c == -1 && !infer_one) {
        infer_one = true;
        continue;
      }
      if (*c <= 0 || literal_product > (int64_t{1} << 40)) return false;  // 0 copies a dim
      literal_product *= *c;
      continue;
    }
    auto it = std::find(dynamic.begin(), dynamic.end(), *e.value);
    if (it == dynamic.end()) return false;
    dynamic.erase(it);
  }
  if (!dynamic.empty()) return false;
  return infer_one ? static_product % literal_product == 0 : static_product == literal_product;
}

// True when `r` is an input contract (Pin::contract).
bool IsUnitRelation(const Requirement& r) {
  if (r.relation != Relation::kEqual && r.relation != Relation::kBroadcastable) return false;
  const sym::MaybeExpr d = sym::Sub(r.lhs, r.rhs);
  if (!d || !d->IsPolynomial()) return false;
  const std::vector<std::string> symbols = d->Symbols();
  if (symbols.size() < 2) return false;
  // Coefficients read off at unit points, then the linear form checked at two more points (a
  // product of symbols would not match it).
  sym::Binding zero;
  for (const std::string& s : symbols) zero.Set(s, 0);
  if (d->Evaluate(zero) != 0) return false;
  std::vector<int64_t> coefficients;
  for (const std::string& s : symbols) {
    sym::Binding unit = zero;
    unit.Set(s, 1);
    const std::optional<int64_t> c = d->Evaluate(unit);
    if (c != 1 && c != -1) return false;
    coefficients.push_back(*c);
  }
  for (int64_t base : {3, 7}) {
    sym::Binding at;
    int64_t expected = 0;
    for (size_t i = 0; i < symbols.size(); ++i) {
      const int64_t v = base + 2 * static_cast<int64_t>(i);
      at.Set(symbols[i], v);
      expected += coefficients[i] * v;
    }
    if (d->Evaluate(at) != expected) return false;
  }
  return true;
}

}  // namespace

std::string FormatDims(const std::vector<int64_t>& dims) {
  return absl::StrCat("[", absl::StrJoin(dims, ", "), "]");
}

std::string DescribeFailure(const Requirement& r, int64_t lhs, int64_t rhs) {
  if (r.kind == RequirementKind::kDeclaredShape) {
    return absl::StrCat("'", r.value, "' axis ", r.axis, " is ", lhs, " but is declared ", rhs);
  }
  switch (r.relation) {
    case Relation::kEqual:
      return absl::StrCat(r.what, ": ", lhs, " vs ", rhs);
    case Relation::kBroadcastable:
      return absl::StrCat(r.what, ": ", lhs, " and ", rhs, " do not broadcast");
    case Relation::kDivisible:
      return absl::StrCat(r.what, ": ", lhs, " is not divisible by ", rhs);
    case Relation::kAtLeast:
      return absl::StrCat(r.what, ": the dim is ", lhs, ", it must be at least ", rhs);
  }
  return r.what;
}

Analysis::Analysis(const ir::Model& model) : model_(model), inference_(infer::Infer(model)) {
  symbols_ = inference_.InputSymbols();
  FindPins();
  SolveWitness();
  AssignCauses();
}

NodeRef Analysis::Ref(const ir::Graph& graph, int node) const {
  NodeRef ref;
  ref.graph = graph.path();
  if (node < 0) return ref;
  ref.name = graph.node(node).name();
  ref.op_type = graph.node(node).op_type();
  ref.index = node;
  ref.label = graph.NodeLabel(node);
  return ref;
}

std::optional<std::vector<int64_t>> Analysis::ShapeAt(std::string_view value,
                                                      const sym::Binding& binding) const {
  const infer::TensorFact* f = inference_.Find(value);
  if (f == nullptr || !f->shape) return std::nullopt;
  std::vector<int64_t> dims;
  for (const auto& d : *f->shape) {
    auto v = d ? d->Evaluate(binding) : std::nullopt;
    if (!v) return std::nullopt;
    dims.push_back(*v);
  }
  return dims;
}

void Analysis::SetSample(int k, sym::Binding& binding) const {
  static constexpr int64_t kValues[] = {1, 2, 3, 4, 5, 7, 8, 16, 31, 64, 100, 224, 257, 1000};
  static_assert(std::size(kValues) * 3 == kNumSamples);
  const int64_t v = kValues[k / 3];
  for (size_t i = 0; i < symbols_.size(); ++i) {
    const auto n = static_cast<int64_t>(i);
    switch (k % 3) {
      case 0:  // the same
        binding.Set(symbols_[i], v);
        break;
      case 1:  // staggered
        binding.Set(symbols_[i], v + n);
        break;
      default:  // scaled
        binding.Set(symbols_[i], v * (n + 1) + 1);
    }
  }
}

void Analysis::FindPins() {
  absl::flat_hash_set<std::string> known(symbols_.begin(), symbols_.end());
  // A model states the same requirement in every layer: it is classified once. Expressions
  // are interned, so equal requirements have equal sides.
  struct Distinct {
    const Requirement* first;  // in topological order; it stands for its copies
    std::vector<std::string> syms;
    int holds = 0, fails = 0;
    Verdict verdict = Verdict::kHolds;
  };
  std::vector<Distinct> distinct;
  absl::flat_hash_map<std::tuple<Relation, sym::Expr, sym::Expr>, int> index;
  std::vector<int> of_requirement(inference_.requirements.size(), -1);
  for (size_t i = 0; i < inference_.requirements.size(); ++i) {
    const Requirement& r = inference_.requirements[i];
    auto [it, fresh] = index.try_emplace({r.relation, r.lhs, r.rhs}, -1);
    if (fresh) {
      std::vector<std::string> syms = SymbolsOf(r);
      // Symbols that are not input dims (names from intermediate declarations) cannot be
      // evaluated at input sizes; such requirements decide nothing here.
      if (std::all_of(syms.begin(), syms.end(), [&](auto& s) { return known.contains(s); })) {
        it->second = static_cast<int>(distinct.size());
        distinct.push_back({&r, std::move(syms)});
      }
    }
    of_requirement[i] = it->second;
  }
  // One evaluator per sample for all of them: their sides share most of their subexpressions
  // (a CNN's spatial dims, a decoder's sequence lengths), which are then evaluated once.
  sym::Binding b;
  for (int k = 0; k < kNumSamples; ++k) {
    SetSample(k, b);
    sym::Evaluator evaluate(b);
    for (Distinct& d : distinct) {
      const std::optional<bool> h = HoldsUnder(*d.first, evaluate);
      if (h) (*h ? d.holds : d.fails)++;
    }
  }
  for (Distinct& d : distinct) d.verdict = Classify(*d.first, d.syms, d.holds, d.fails);
  for (size_t i = 0; i < inference_.requirements.size(); ++i) {
    if (of_requirement[i] < 0) continue;
    const Requirement& r = inference_.requirements[i];
    const Distinct& d = distinct[of_requirement[i]];
    if (d.verdict == Verdict::kHolds) continue;
    // Copies hold or fail together: the first one stands for them all.
    if (d.first == &r) constraints_.push_back(&r);
    if (d.verdict == Verdict::kConstraint) continue;
    pins_.push_back({&r, d.syms, d.verdict == Verdict::kAlwaysFalse, IsUnitRelation(r)});
  }
  // A declared dim that the graph computes as another sum of input dims (present_key declared
  // [.., total_seq, ..], computed past_seq + seq) keeps its promise wherever the caller keeps
  // the input contract that the graph itself requires (the mask Add): not a pin of its own.
  // Each one a sum of input dims that must be 0; a decoder states the same one in every layer.
  std::vector<sym::Expr> contracts;
  for (const Pin& pin : pins_) {
    const Requirement& r = *pin.requirement;
    if (r.kind == RequirementKind::kDeclaredShape || !pin.contract) continue;
    auto d = sym::Sub(r.lhs, r.rhs);
    if (d && std::find(contracts.begin(), contracts.end(), *d) == contracts.end()) {
      contracts.push_back(*d);
    }
  }
  if (contracts.empty()) return;
  // Each declared output of every layer states the same requirement: decided once.
  absl::flat_hash_map<std::pair<sym::Expr, sym::Expr>, bool> kept;
  pins_.erase(std::remove_if(pins_.begin(), pins_.end(),
                             [&](const Pin& pin) {
                               const Requirement& r = *pin.requirement;
                               if (r.kind != RequirementKind::kDeclaredShape) return false;
                               auto [it, fresh] = kept.try_emplace({r.lhs, r.rhs}, false);
                               if (fresh) it->second = HoldsUnderContracts(r, contracts);
                               return it->second;
                             }),
              pins_.end());
}

bool Analysis::HoldsUnderContracts(const Requirement& r,
                                   const std::vector<sym::Expr>& contracts) const {
  std::vector<std::string> solved_for;  // the symbol each contract gives a value
  for (const sym::Expr& d : contracts) solved_for.push_back(d.Symbols().back());
  int tried = 0;
  sym::Binding b;
  for (int k = 0; k < kNumSamples; ++k) {
    // Every input symbol takes the sample's value again, also those the contracts moved.
    SetSample(k, b);
    // Each contract gives its last symbol the value that makes it hold (its coefficient is 1
    // or -1, so the value is an integer); bindings where that is not a size are skipped.
    bool valid = true;
    for (size_t i = 0; i < contracts.size(); ++i) {
      const sym::Expr& d = contracts[i];
      const std::string& last = solved_for[i];
      b.Set(last, 0);
      const std::optional<int64_t> rest = d.Evaluate(b);
      b.Set(last, 1);
      const std::optional<int64_t> at_one = d.Evaluate(b);
      if (!rest || !at_one) return false;
      const int64_t coefficient = *at_one - *rest;
      const int64_t value = -*rest * coefficient;
      if (value < 1) {
        valid = false;
        break;
      }
      b.Set(last, value);
    }
    if (!valid) continue;
    for (const sym::Expr& d : contracts) {
      if (d.Evaluate(b) != 0) valid = false;  // contracts that share a symbol
    }
    if (!valid) continue;
    auto h = HoldsUnder(r, b);
    if (!h || !*h) return false;
    ++tried;
  }
  return tried >= 3;
}

Analysis::Verdict Analysis::Classify(const Requirement& r, const std::vector<std::string>& syms,
                                     int holds, int fails) const {
  if (fails == 0) return Verdict::kHolds;  // holds at every size tried: not a restriction
  // Divisibility (Reshape with -1) is shared with eager PyTorch: it narrows the witness, but on
  // its own it is not a baked size.
  if (r.relation == Relation::kDivisible) return Verdict::kConstraint;
  // Neither is a congruence in disguise: x.view(b, 2, c // 2, h, w) requires
  // c == 2 * floor(c / 2), which still holds at sizes far beyond every literal. A baked size
  // holds at a bounded set of sizes only.
  if (!syms.empty() && HoldsFarOut(r, syms)) return Verdict::kConstraint;
  return holds == 0 && syms.empty() ? Verdict::kAlwaysFalse : Verdict::kPin;
}

bool Analysis::HoldsFarOut(const Requirement& r, const std::vector<std::string>& syms) const {
  // Every symbol at some size in [4096, 4096 + 64), the others at their smallest: two
  // bindings where the requirement holds mean a periodic solution set, not a fixed size.
  int holds = 0;
  for (int64_t v = 4096; v < 4096 + 64 && holds < 2; ++v) {
    sym::Binding b;
    for (const auto& s : symbols_) b.Set(s, 1);
    for (const auto& s : syms) b.Set(s, v);
    auto h = HoldsUnder(r, b);
    if (h && *h) ++holds;
  }
  return holds >= 2;
}

std::optional<sym::Binding> Analysis::ReshapeHint(const Requirement& r) const {
  if (r.kind != RequirementKind::kReshapeCount || r.relation != Relation::kEqual) return {};
  if (r.graph != &model_.graph() || r.node < 0) return {};
  const auto& node = r.graph->node(r.node);
  const infer::TensorFact* input = inference_.Find(node.input(0));
  const infer::TensorFact* target = inference_.Find(node.input(1));
  if (input == nullptr || !input->shape || target == nullptr || !target->values) return {};
  std::vector<int64_t> sizes;
  for (const auto& e : *target->values) {
    auto c = e.value ? e.value->AsConstant() : std::nullopt;
    if (!c) return {};
    if (*c != 1) sizes.push_back(*c);
  }
  std::vector<std::string> symbols;
  for (const auto& d : *input->shape) {
    if (!d) return {};
    if (auto c = d->AsConstant()) {
      // A static dim accounts for one equal entry of the target.
      auto it = std::find(sizes.begin(), sizes.end(), *c);
      if (*c != 1 && it == sizes.end()) return {};
      if (*c != 1) sizes.erase(it);
      continue;
    }
    auto name = d->AsSymbol();
    if (!name) return {};
    symbols.emplace_back(*name);
  }
  if (symbols.empty() || symbols.size() != sizes.size()) return {};
  sym::Binding hint;
  for (size_t i = 0; i < symbols.size(); ++i) hint.Set(symbols[i], sizes[i]);
  return hint;
}

bool Analysis::HoldsAt(const std::vector<const Requirement*>& constraints,
                       const sym::Binding& binding) const {
  sym::Evaluator evaluate(binding);
  for (const Requirement* r : constraints) {
    if (HoldsUnder(*r, evaluate) == false) return false;
  }
  return true;
}

void Analysis::SolveWitness() {
  // Group symbols that appear together in a constraint (union-find over symbol indices).
  absl::flat_hash_map<std::string, int> index;
  for (size_t i = 0; i < symbols_.size(); ++i) index[symbols_[i]] = static_cast<int>(i);
  std::vector<int> parent(symbols_.size());
  std::iota(parent.begin(), parent.end(), 0);
  auto find = [&](int x) {
    while (parent[x] != x) x = parent[x] = parent[parent[x]];
    return x;
  };
  std::vector<const Requirement*> live;
  // A model states the same requirement once per layer; solving needs it once. Expressions are
  // interned, so equal requirements have equal sides.
  absl::flat_hash_set<std::tuple<Relation, sym::Expr, sym::Expr>> seen;
  for (const Requirement* r : constraints_) {
    if (!seen.insert({r->relation, r->lhs, r->rhs}).second) continue;
    auto syms = SymbolsOf(*r);
    if (syms.empty()) continue;  // fails at every size: no witness can fix it
    live.push_back(r);
    for (size_t k = 1; k < syms.size(); ++k) parent[find(index[syms[k]])] = find(index[syms[0]]);
  }
  absl::flat_hash_map<int, std::vector<const Requirement*>> group_constraints;
  for (const Requirement* r : live) group_constraints[find(index[SymbolsOf(*r)[0]])].push_back(r);

  // Free symbols get distinct small sizes so that no accidental equality hides a failure.
  int64_t next_free = 2;
  for (size_t i = 0; i < symbols_.size(); ++i) {
    if (!group_constraints.contains(find(static_cast<int>(i)))) {
      witness_.Set(symbols_[i], next_free++);
    }
  }
  for (const auto& group : group_constraints) {
    // Not a structured binding: Clang 14 does not let lambdas capture those.
    const int root = group.first;
    const std::vector<const Requirement*>& cons = group.second;
    std::vector<std::string> members;
    for (size_t i = 0; i < symbols_.size(); ++i) {
      if (find(static_cast<int>(i)) == root) members.push_back(symbols_[i]);
    }
    auto failures = [&](const sym::Binding& b) {
      int n = 0;
      sym::Evaluator evaluate(b);
      for (const Requirement* r : cons) n += HoldsUnder(*r, evaluate) == false;
      return n;
    };
    // Whether all hold, checking first the constraint that failed last: a scan meets the same
    // obstacle at size after size (total = past + seq never holds on the diagonal), so most
    // sizes cost one evaluation instead of one per constraint.
    std::vector<const Requirement*> order = cons;
    auto all_hold = [&](const sym::Binding& b) {
      sym::Evaluator evaluate(b);
      for (size_t i = 0; i < order.size(); ++i) {
        if (HoldsUnder(*order[i], evaluate) == false) {
          std::rotate(order.begin(), order.begin() + i, order.begin() + i + 1);
          return false;
        }
      }
      return true;
    };
    // A literal Reshape target often spells out the example sizes in the input's order
    // (a traced view: [2, 1, 3, 1] for an input [s0, s1] seen at 2x3): try those first.
    bool solved = false;
    for (const Requirement* r : cons) {
      auto hint = ReshapeHint(*r);
      if (!hint) continue;
      sym::Binding b = witness_;
      for (auto& m : members) b.Set(m, 2);
      for (const auto& [name, value] : hint->values()) b.Set(name, value);
      if (all_hold(b)) {
        for (auto& m : members) witness_.Set(m, *b.Get(m));
        solved = true;
        break;
      }
    }
    if (solved) continue;
    // Exports usually use one size for all dynamic axes of a group (224x224): try the diagonal,
    // with 1 last because size 1 satisfies broadcasts vacuously. A linear equality limits it to
    // its roots (total = past + seq holds at no size, its broadcast only at 1): the scan skips
    // the sizes where it fails anyway.
    std::optional<std::vector<int64_t>> candidates;  // nullopt: any size may do
    auto allowed = [&](int64_t t) {
      return !candidates ||
             std::find(candidates->begin(), candidates->end(), t) != candidates->end();
    };
    for (const Requirement* r : cons) {
      std::optional<std::vector<int64_t>> only = DiagonalCandidates(*r, members);
      if (!only) continue;
      std::erase_if(*only, [&](int64_t t) { return !allowed(t); });
      candidates = std::move(only);
    }
    sym::Binding b = witness_;
    for (int64_t t = 2; t <= kScanLimit + 1 && !solved; ++t) {
      int64_t v = t > kScanLimit ? 1 : t;
      if (!allowed(v)) continue;
      for (auto& m : members) b.Set(m, v);
      if (all_hold(b)) {
        for (auto& m : members) witness_.Set(m, v);
        solved = true;
      }
    }
    if (solved) continue;
    // Otherwise move one symbol at a time to where the fewest constraints fail.
    for (auto& m : members) witness_.Set(m, 2);
    for (int round = 0; round < 4 && !solved; ++round) {
      for (auto& m : members) {
        sym::Binding b = witness_;
        int best = failures(b);
        int64_t best_value = *witness_.Get(m);
        for (int64_t t = 1; t <= kCoordinateScanLimit && best > 0; ++t) {
          b.Set(m, t);
          int f = failures(b);
          if (f < best) best = f, best_value = t;
        }
        witness_.Set(m, best_value);
        if (best == 0) {
          solved = true;
          break;
        }
      }
    }
    if (!solved) {
      // No sizes satisfy every requirement of this group: ranges around a non-solution would
      // be wrong, so these symbols get none.
      witness_found_ = false;
      for (auto& m : members) unsolved_.insert(m);
    }
  }
}

std::optional<std::pair<int64_t, int64_t>> Analysis::RangeOf(const std::string& symbol) const {
  if (auto cached = range_cache_.find(symbol); cached != range_cache_.end()) {
    return cached->second;
  }
  auto range = ScanRange(symbol);
  range_cache_[symbol] = range;
  return range;
}

std::optional<std::pair<int64_t, int64_t>> Analysis::ScanRange(const std::string& symbol) const {
  auto w = witness_.Get(symbol);
  if (!w || unsolved_.contains(symbol)) return std::nullopt;
  std::vector<const Requirement*> mine;
  for (const Requirement* r : constraints_) {
    auto s = SymbolsOf(*r);
    if (std::find(s.begin(), s.end(), symbol) != s.end()) mine.push_back(r);
  }
  sym::Binding b = witness_;
  int64_t hi = *w, lo = *w;
  auto holds = [&](int64_t t) {
    b.Set(symbol, t);
    return HoldsAt(mine, b);
  };
  // Every size up to kDenseScan above the witness, then samples at growing steps up to the
  // limit, each failure found there pinned down size by size: shape arithmetic fails either
  // periodically (divisibility, a floor), which shows within the first sizes, or past a bound,
  // which a sample finds. Scanning all 8,192 sizes cost seconds on graphs with thousands of
  // nested floor and min expressions.
  constexpr int64_t kDenseScan = 256;
  for (int64_t t = *w + 1; t <= kScanLimit + 1;) {
    if (!holds(t)) {
      for (int64_t u = hi + 1; u < t && holds(u); ++u) hi = u;
      break;
    }
    hi = t;
    t += t - *w <= kDenseScan ? 1 : std::max<int64_t>(1, (t - *w) / 8);
    if (t > kScanLimit + 1 && hi < kScanLimit + 1) t = kScanLimit + 1;
  }
  for (int64_t t = *w - 1; t >= 1; --t) {
    b.Set(symbol, t);
    if (!HoldsAt(mine, b)) break;
    lo = t;
  }
  return std::make_pair(lo, hi);
}

Witness Analysis::WitnessFor(const std::vector<std::string>& symbols) const {
  Witness w;
  std::vector<std::string> parts;
  for (const auto& s : symbols) {
    auto range = RangeOf(s);
    if (!range) continue;
    SymbolRange r;
    r.symbol = s;
    r.value = *witness_.Get(s);
    r.min = range->first;
    if (range->second <= kScanLimit) r.max = range->second;
    parts.push_back(RangeText(r));
    w.ranges.push_back(std::move(r));
  }
  bool related = false;
  for (const Pin& p : pins_) {
    if (p.symbols.size() < 2) continue;
    bool mine = std::any_of(p.symbols.begin(), p.symbols.end(), [&](auto& s) {
      return std::find(symbols.begin(), symbols.end(), s) != symbols.end();
    });
    if (!mine) continue;
    related = true;
    std::string rel = absl::StrCat(p.requirement->lhs.ToString(),
                                   p.requirement->relation == Relation::kEqual ? " == " : " ~ ",
                                   p.requirement->rhs.ToString());
    if (std::find(w.relations.begin(), w.relations.end(), rel) == w.relations.end()) {
      w.relations.push_back(std::move(rel));
    }
  }
  if (parts.empty()) {
    w.summary = "no sizes were found at which every requirement holds";
    return w;
  }
  w.summary = absl::StrCat("works only for ", absl::StrJoin(parts, " and "));
  if (related) {
    std::vector<std::string> at;
    for (const auto& r : w.ranges) at.push_back(absl::StrCat(r.symbol, "=", r.value));
    absl::StrAppend(&w.summary, " (each with the others at ", absl::StrJoin(at, ", "),
                    "; the model requires ", absl::StrJoin(w.relations, " and "), ")");
  }
  return w;
}

std::optional<Analysis::Failure> Analysis::FirstFailure(const sym::Binding& binding) const {
  // Requirements share their sides (every layer of a decoder requires the same) and their
  // parts: each expression is evaluated once, each floor, min and max in them too.
  absl::flat_hash_map<sym::Expr, std::optional<int64_t>> values;
  sym::Evaluator evaluate(binding);
  auto value = [&](const sym::Expr& e) {
    auto [it, fresh] = values.try_emplace(e);
    if (fresh) it->second = evaluate(e);
    return it->second;
  };
  for (const Requirement& r : inference_.requirements) {
    auto l = value(r.lhs);
    auto rr = value(r.rhs);
    if (l && rr && !infer::Holds(r.relation, *l, *rr)) return Failure{&r, *l, *rr};
  }
  return std::nullopt;
}

std::optional<sym::Binding> Analysis::MoveSymbols(const std::vector<std::string>& symbols) const {
  // Candidates, nearest first: just above the working range, just below it, twice the size.
  for (int attempt = 0; attempt < 3; ++attempt) {
    sym::Binding b = witness_;
    bool moved = false;
    for (const auto& s : symbols) {
      auto range = RangeOf(s);
      auto w = witness_.Get(s);
      if (!range || !w) continue;
      std::optional<int64_t> v;
      if (attempt == 0 && range->second < kScanLimit) v = range->second + 1;
      if (attempt == 1 && range->first > 1) v = range->first - 1;
      if (attempt == 2) v = 2 * *w + 1;
      if (!v) continue;
      b.Set(s, *v);
      moved = true;
    }
    if (moved && FirstFailure(b)) return b;
  }
  return std::nullopt;
}

std::optional<Counterexample> Analysis::CounterexampleFor(
    const std::vector<std::string>& symbols) const {
  auto binding = MoveSymbols(symbols);
  if (binding) return CounterexampleAt(*binding);
  // Requirements that no sizes satisfy together: the model breaks wherever it is tried,
  // including at the sizes the search ended on.
  const bool unsolvable = std::any_of(symbols.begin(), symbols.end(),
                                      [&](const std::string& s) { return unsolved_.contains(s); });
  if (unsolvable) return CounterexampleAt(witness_);
  return std::nullopt;
}

bool Analysis::FixedByWeight(const std::string& symbol) const {
  for (const Cause& c : causes_) {
    if (c.pattern != Pattern::kFixedByWeight ||
        !std::binary_search(c.symbols.begin(), c.symbols.end(), symbol)) {
      continue;
    }
    for (const SymbolRange& r : WitnessFor({symbol}).ranges) {
      if (r.symbol == symbol && r.min && r.max && *r.min == *r.max) return true;
    }
  }
  return false;
}

std::optional<Counterexample> Analysis::FailureNearExample(const std::vector<std::string>& symbols,
                                                           const ir::Graph& graph, int node,
                                                           const std::vector<Probe>& exact) const {
  // Nodes the literal's effect can reach: a failure elsewhere has another cause.
  absl::flat_hash_set<int> downstream{node};
  std::deque<int> queue{node};
  while (!queue.empty()) {
    const int n = queue.front();
    queue.pop_front();
    for (const auto& out : graph.node(n).output()) {
      for (int c : graph.Consumers(out)) {
        if (downstream.insert(c).second) queue.push_back(c);
      }
    }
  }
  sym::Binding base = witness_;
  for (const auto& [s, v] : example_.values()) base.Set(s, v);
  auto try_probe = [&](const std::string& symbol, int64_t v,
                       bool exact_probe) -> std::optional<Counterexample> {
    const auto d = example_.Get(symbol);
    if (!d || v < 1 || v == *d) return std::nullopt;
    sym::Binding b = base;
    b.Set(symbol, v);
    auto failure = FirstFailure(b);
    if (!failure || failure->requirement->kind == RequirementKind::kDeclaredShape ||
        failure->requirement->graph != &graph || !downstream.contains(failure->requirement->node)) {
      return std::nullopt;
    }
    // A divisibility failure (Reshape with -1, pixel shuffle) happens in eager PyTorch too,
    // unless the literal itself is what no longer divides, at a size where eager's own value
    // of it would.
    if (failure->requirement->relation == Relation::kDivisible &&
        !(exact_probe && failure->requirement->node == node)) {
      return std::nullopt;
    }
    return CounterexampleAt(b);
  };
  for (const Probe& p : exact) {
    if (std::find(symbols.begin(), symbols.end(), p.symbol) == symbols.end()) continue;
    if (auto c = try_probe(p.symbol, p.value, true)) return c;
  }
  for (const auto& s : symbols) {
    const auto d = example_.Get(s);
    if (!d) continue;
    for (int64_t v : {*d - 1, *d + 1, *d / 2, 2 * *d}) {
      if (auto c = try_probe(s, v, false)) return c;
    }
  }
  return std::nullopt;
}

std::optional<Counterexample> Analysis::CounterexampleAt(const sym::Binding& binding) const {
  Counterexample c = Evaluate(binding);
  if (c.failure.empty()) return std::nullopt;
  return c;
}

Counterexample Analysis::Evaluate(const sym::Binding& bound) const {
  const sym::Binding* binding = &bound;
  auto failure = FirstFailure(*binding);
  Counterexample c;
  for (const auto& s : symbols_) {
    if (auto v = binding->Get(s)) c.binding.emplace_back(s, *v);
  }
  const ir::Graph& g = model_.graph();
  for (const auto& in : g.proto().input()) {
    if (g.Initializer(in.name()) != nullptr) continue;
    const infer::TensorFact* f = inference_.Find(in.name());
    const bool dynamic = f != nullptr && f->shape &&
                         std::any_of(f->shape->begin(), f->shape->end(),
                                     [](const auto& d) { return !d || !d->IsConstant(); });
    if (!dynamic) continue;
    if (auto dims = ShapeAt(in.name(), *binding)) c.inputs.emplace_back(in.name(), *dims);
  }
  if (failure) {
    const Requirement& r = *failure->requirement;
    c.failing_node = Ref(*r.graph, r.node);
    c.failure = DescribeFailure(r, failure->lhs, failure->rhs);
    c.node_fails = r.kind != RequirementKind::kDeclaredShape;
  }
  // Past a node that cannot run there are no outputs to show.
  if (c.node_fails) return c;
  for (const auto& out : g.proto().output()) {
    lint::ShapeAt shape;
    shape.value = out.name();
    auto actual = this->ShapeAt(out.name(), *binding);
    if (!actual) continue;
    shape.actual = *actual;
    if (out.type().tensor_type().has_shape()) {
      const auto& declared = out.type().tensor_type().shape();
      std::vector<int64_t> expected;
      for (const auto& d : declared.dim()) {
        sym::MaybeExpr e;
        if (d.has_dim_value()) e = sym::Expr::Constant(d.dim_value());
        if (d.has_dim_param()) e = sym::FromDimParam(d.dim_param());
        auto v = e ? e->Evaluate(*binding) : std::nullopt;
        if (!v) {
          expected.clear();
          break;
        }
        expected.push_back(*v);
      }
      if (expected.size() == shape.actual.size() &&
          static_cast<int>(expected.size()) == declared.dim_size()) {
        shape.expected = std::move(expected);
      }
    }
    c.outputs.push_back(std::move(shape));
  }
  return c;
}

std::optional<sym::Binding> Analysis::BindInputs(
    const std::vector<std::pair<std::string, std::vector<int64_t>>>& shapes) const {
  sym::Binding b;
  for (const auto& [input, dims] : shapes) {
    int64_t rank = 0;
    for (const infer::InputDim& d : inference_.input_dims) {
      if (d.input != input) continue;
      ++rank;
      if (d.axis >= static_cast<int64_t>(dims.size()) || !d.dim) return std::nullopt;
      const int64_t v = dims[d.axis];
      if (auto c = d.dim->AsConstant()) {
        if (*c != v) return std::nullopt;
      } else if (auto name = d.dim->AsSymbol()) {
        auto bound = b.Get(*name);
        if (bound && *bound != v) return std::nullopt;  // one symbol, two sizes
        b.Set(*name, v);
      }
    }
    if (rank != static_cast<int64_t>(dims.size())) return std::nullopt;
  }
  return b;
}

LiteralSource Analysis::SourceOf(const ir::Graph& g, std::string_view value, int64_t constant,
                                 int depth) const {
  LiteralSource src;
  if (value.empty() || depth > kMaxSourceDepth) return src;
  auto dims_of = [&](std::string_view v) {
    std::vector<int64_t> dims;
    const infer::TensorFact* f = inference_.Find(v);
    if (f == nullptr || !f->shape) return dims;
    for (const auto& d : *f->shape) dims.push_back(d && d->AsConstant() ? *d->AsConstant() : -1);
    return dims;
  };
  if (const auto* t = g.Initializer(value)) {
    const bool floating = t->data_type() == ONNX_NAMESPACE::TensorProto::FLOAT ||
                          t->data_type() == ONNX_NAMESPACE::TensorProto::FLOAT16 ||
                          t->data_type() == ONNX_NAMESPACE::TensorProto::BFLOAT16 ||
                          t->data_type() == ONNX_NAMESPACE::TensorProto::DOUBLE;
    src.kind = floating ? LiteralSource::Kind::kWeight : LiteralSource::Kind::kConstant;
    src.graph = &g;
    src.name = value;
    src.dims.assign(t->dims().begin(), t->dims().end());
    return src;
  }
  const int p = g.Producer(value);
  if (p < 0) return src;
  const auto& node = g.node(p);
  const std::string& op = node.op_type();
  if (op == "Constant") {
    src.kind = LiteralSource::Kind::kConstant;
    src.graph = &g;
    src.node = p;
    src.name = value;
    src.dims = dims_of(value);
    return src;
  }
  // Expand's target and Tile's repeats size the output: a literal there is the source, not the
  // tensor being expanded (cls.expand(int(x.size(0)), -1, -1) on a [1, 1, D] parameter).
  if ((op == "Expand" || op == "Tile") && node.input_size() > 1) {
    const infer::TensorFact* operand = inference_.Find(node.input(1));
    if (operand != nullptr && operand->values) {
      for (const auto& e : *operand->values) {
        const infer::Origin* o = inference_.OriginOf(e.origin);
        auto v = e.value ? e.value->AsConstant() : std::nullopt;
        if (o == nullptr || !o->IsLiteral() || v != constant) continue;
        LiteralSource lit = ShapeOperandSource(*o, operand);
        lit.entry = p;
        return lit;
      }
    }
  }
  // Otherwise the size came through an input that has it as a constant dim (a Transpose, a
  // Relu, a Less against a dynamic length): follow the first such input, however far the
  // literal entered from where it fails.
  for (const auto& in : node.input()) {
    const infer::TensorFact* f = in.empty() ? nullptr : inference_.Find(in);
    if (f == nullptr || !f->shape) continue;
    bool holds = false;
    for (const auto& d : *f->shape) holds = holds || (d && d->AsConstant() == constant);
    if (!holds) continue;
    LiteralSource found = SourceOf(g, in, constant, depth + 1);
    if (found.kind != LiteralSource::Kind::kNone) found.through.push_back(p);
    return found;
  }
  return src;
}

LiteralSource Analysis::LiteralSideOf(const Requirement& r) const {
  LiteralSource none;
  if (r.graph == nullptr || r.node < 0) return none;
  auto c = r.rhs.AsConstant();
  if (!c) c = r.lhs.AsConstant();
  if (!c || *c <= 1) return none;
  const ir::Graph& g = *r.graph;
  const auto& node = g.node(r.node);
  // A literal among a shape operand's values (Expand's target, Tile's repeats, Split's sizes)
  // is recorded as the requirement's origin.
  if (const infer::Origin* o = inference_.OriginOf(r.origin); o != nullptr && o->IsLiteral()) {
    // The operand whose values carry the origin (Expand's target, Split's sizes).
    const infer::TensorFact* operand = nullptr;
    for (const auto& in : node.input()) {
      const infer::TensorFact* f = inference_.Find(in);
      if (f == nullptr || !f->values) continue;
      if (std::any_of(f->values->begin(), f->values->end(),
                      [&](const infer::Element& e) { return e.origin == r.origin; })) {
        operand = f;
        break;
      }
    }
    LiteralSource src = ShapeOperandSource(*o, operand);
    src.consumer = r.node;
    if (o->kind != infer::Origin::Kind::kAttribute) return src;
  }
  for (const auto& in : node.input()) {
    const infer::TensorFact* f = inference_.Find(in);
    if (f == nullptr || !f->shape) continue;
    // An operand with the size as a constant dim may carry a literal (a mask [L, 5, 1] built
    // from a Constant [1, 5] and a dynamic length L); SourceOf decides.
    bool has_value = false;
    for (const auto& d : *f->shape) has_value = has_value || (d && d->AsConstant() == c);
    if (!has_value) continue;
    LiteralSource src = SourceOf(g, in, *c, 0);
    if (src.kind == LiteralSource::Kind::kNone) continue;
    src.consumer = r.node;
    return src;
  }
  return none;
}

Cause Analysis::Blame(const Pin& pin) const {
  Cause cause;
  cause.graph = pin.requirement->graph;
  cause.pins = {&pin};
  cause.symbols = pin.symbols;
  // An input contract has no culprit: no size entered the graph anywhere.
  if (pin.contract) return cause;
  auto moved = MoveSymbols(pin.symbols);
  // Without a witness the model already fails where the search ended: blame from there.
  if (!moved && std::any_of(pin.symbols.begin(), pin.symbols.end(),
                            [&](const std::string& s) { return unsolved_.contains(s); })) {
    moved = witness_;
  }
  if (!moved || pin.requirement->graph != &model_.graph()) return cause;
  auto failure = FirstFailure(*moved);
  const ir::Graph& g = model_.graph();
  int start = failure ? failure->requirement->node : pin.requirement->node;
  if (start < 0) return cause;

  auto changed = [&](int node) {
    for (const auto& out : g.node(node).output()) {
      if (out.empty()) continue;
      if (ShapeAt(out, witness_) != ShapeAt(out, *moved)) return true;
    }
    return false;
  };
  auto spatial_changed = [&](int node) {
    const std::string_view out = g.node(node).output(0);
    auto a = ShapeAt(out, witness_), b = ShapeAt(out, *moved);
    if (!a || !b || a->size() != b->size() || a->size() < 3) return a != b;
    return !std::equal(a->begin() + 2, a->end(), b->begin() + 2);
  };
  auto is_adaptive_pool = [&](int node) {
    const auto& n = g.node(node);
    if (!IsPool(n.op_type()) || !spatial_changed(node)) return false;
    std::vector<int64_t> kernel, strides, pads;
    auto ints = [&](std::string_view name, std::vector<int64_t>& out) {
      if (ir::AttributeRef a = n.FindAttribute(name))
        out.assign(a->ints().begin(), a->ints().end());
    };
    ints("kernel_shape", kernel);
    ints("strides", strides);
    ints("pads", pads);
    if (kernel.empty()) return false;
    if (strides.empty()) strides.assign(kernel.size(), 1);
    // Adaptive pooling decomposed at a divisible size: windows tile the input exactly.
    if (strides != kernel) return false;
    if (std::any_of(pads.begin(), pads.end(), [](int64_t p) { return p != 0; })) return false;
    // A window of 1 with stride 1 does nothing; only the decomposition writes that.
    if (std::all_of(kernel.begin(), kernel.end(), [](int64_t k) { return k == 1; })) return true;
    // Or the model promises a fixed pooled size that the window only gives at one size.
    const std::string_view out = n.output(0);
    for (const auto* vi : {g.Output(out), g.ValueInfo(out)}) {
      if (vi == nullptr || !vi->type().tensor_type().has_shape()) continue;
      const auto& s = vi->type().tensor_type().shape();
      if (s.dim_size() < 3) continue;
      bool fixed = true;
      for (int i = 2; i < s.dim_size(); ++i) fixed = fixed && s.dim(i).has_dim_value();
      if (fixed) return true;
    }
    return false;
  };
  auto is_literal_reshape = [&](int node) {
    const auto& n = g.node(node);
    if (n.op_type() != "Reshape" || n.input_size() < 2) return false;
    if (node != start && !changed(node)) return false;
    const infer::TensorFact* target = inference_.Find(n.input(1));
    const infer::TensorFact* input = inference_.Find(n.input(0));
    if (target == nullptr || !target->values || input == nullptr || !input->shape) return false;
    bool symbolic_input = std::any_of(input->shape->begin(), input->shape->end(),
                                      [](const auto& d) { return d && !d->IsConstant(); });
    if (!symbolic_input) return false;
    if (RegroupsStaticDims(*input, *target)) return false;
    for (const auto& e : *target->values) {
      auto c = e.value ? e.value->AsConstant() : std::nullopt;
      const infer::Origin* o = inference_.OriginOf(e.origin);
      if (c && *c != 0 && *c != -1 && o != nullptr && o->IsLiteral()) return true;
    }
    return false;
  };

  // A literal operand of the failing node itself is the cause, before anything upstream, unless
  // the failing node is a Reshape with a literal target (SL002) or a pool upstream made the
  // size (SL001, found below).
  const Requirement* failing = failure ? failure->requirement : pin.requirement;
  LiteralSource direct = LiteralSideOf(*failing);
  auto weight_like = [](const LiteralSource& src) {
    if (src.node < 0 && IsParameterName(src.name)) return true;
    // Per-channel parameters ([C], [C, 1, 1], [1, C, 1, 1]) and kernels of conv/linear layers:
    // a fixed channel or feature count is the model's design, and PyTorch rejects other sizes
    // too. A literal with two or more sized dims on a broadcast ([1, T, D], [T, T]) is not.
    int sized = 0;
    for (int64_t d : src.dims) sized += d > 1 ? 1 : 0;
    return sized <= 1;
  };

  absl::flat_hash_map<int, int> came_from;  // node -> the downstream node that led to it
  std::deque<int> queue{start};
  came_from[start] = -1;
  int visits = 0;
  while (!queue.empty() && visits++ < kMaxBlameVisits) {
    int node = queue.front();
    queue.pop_front();
    Pattern pattern = is_adaptive_pool(node)     ? Pattern::kAdaptivePool
                      : is_literal_reshape(node) ? Pattern::kLiteralReshape
                                                 : Pattern::kNone;
    // A literal operand of the failing node outranks reshapes further up (GroupNorm's
    // Reshape [0, groups, -1] is not where the channel count was fixed).
    if (pattern == Pattern::kLiteralReshape && node != start &&
        direct.kind != LiteralSource::Kind::kNone) {
      pattern = Pattern::kNone;
    }
    if (pattern != Pattern::kNone) {
      cause.pattern = pattern;
      cause.node = node;
      for (int n = node; n >= 0; n = came_from[n]) cause.chain.push_back(n);
      return cause;
    }
    if (node != start && !changed(node)) continue;
    for (const auto& in : g.node(node).input()) {
      int p = in.empty() ? -1 : g.Producer(in);
      if (p >= 0 && !came_from.contains(p)) {
        came_from[p] = node;
        queue.push_back(p);
      }
    }
  }
  if (direct.kind != LiteralSource::Kind::kNone) {
    const bool weight = direct.kind == LiteralSource::Kind::kWeight &&
                        (failing->kind == RequirementKind::kChannels ||
                         failing->kind == RequirementKind::kInnerDim || weight_like(direct));
    cause.pattern = weight ? Pattern::kFixedByWeight : Pattern::kFoldedConstant;
    // Blame the node the literal sized (an Expand or Tile) when that is not the failing one.
    // The node where the literal entered: the Expand or Tile it sizes, else its first
    // consumer on the way to the failure, else the failing node itself.
    std::vector<int> path = direct.through;
    if (direct.entry >= 0) {
      cause.node = direct.entry;
    } else if (!path.empty()) {
      cause.node = path.front();
      path.erase(path.begin());
    } else {
      cause.node = failing->node;
    }
    cause.literal = direct;
    cause.chain = {cause.node};
    cause.chain.insert(cause.chain.end(), path.begin(), path.end());
    if (cause.node != failing->node) cause.chain.push_back(failing->node);
  }
  return cause;
}

void Analysis::AssignCauses() {
  absl::flat_hash_map<int, size_t> by_node;
  for (const Pin& pin : pins_) {
    Cause c = pin.always_false
                  ? Cause{Pattern::kNone, pin.requirement->graph, -1, {&pin}, pin.symbols, {}, {}}
                  : Blame(pin);
    if (c.node >= 0) {
      auto [it, inserted] = by_node.emplace(c.node, causes_.size());
      if (!inserted) {
        Cause& existing = causes_[it->second];
        existing.pins.push_back(&pin);
        for (auto& s : pin.symbols) {
          if (std::find(existing.symbols.begin(), existing.symbols.end(), s) ==
              existing.symbols.end()) {
            existing.symbols.push_back(s);
          }
        }
        std::sort(existing.symbols.begin(), existing.symbols.end());
        continue;
      }
    }
    causes_.push_back(std::move(c));
  }
}

}  // namespace shapelint::lint
