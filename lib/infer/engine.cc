#include "shapelint/infer/engine.h"

#include <algorithm>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "infer/op_context.h"

namespace shapelint::infer {
namespace {

using ONNX_NAMESPACE::TensorShapeProto;
using ONNX_NAMESPACE::ValueInfoProto;

// The dim a declaration states, or nullopt when it states none ("?" or no shape).
// True for a dim_param expression that is at most 0 wherever its symbols are sizes, and not 0
// itself (s0 - s0 - 1, 0*s0 - 5, -s0): no size is negative, so it declares none.
bool NeverASize(const sym::Expr& e) {
  if (e.AsConstant() == 0) return false;
  const sym::MaybeExpr negated = sym::Neg(e);
  return negated && sym::KnownNonNegative(*negated);
}

// A dim_param written as a number ("1", " 16 "): a name all the same (DeclaredDim). An
// expression that happens to fold to a number ("s0-s0") is the writer's arithmetic and stays.
bool IsNumericName(const TensorShapeProto::Dimension& d) {
  if (!d.has_dim_param()) return false;
  absl::string_view text = absl::StripAsciiWhitespace(d.dim_param());
  if (!text.empty() && (text.front() == '-' || text.front() == '+')) text.remove_prefix(1);
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
    return absl::ascii_isdigit(static_cast<unsigned char>(c));
  });
}

sym::MaybeExpr DeclaredDim(const TensorShapeProto::Dimension& d) {
  if (d.has_dim_value()) {
    if (d.dim_value() < 0) return std::nullopt;
    return sym::Expr::Constant(d.dim_value());
  }
  if (d.has_dim_param() && !d.dim_param().empty()) {
    // A dim_param is a name, whatever it reads like: optimum names a decoder's logits axis "1"
    // on purpose, as a dim that may take any size. A number written as a name promises
    // nothing, and neither does an expression that is never a size (-s0).
    if (IsNumericName(d)) return std::nullopt;
    const sym::Expr e = sym::FromDimParam(d.dim_param());
    return NeverASize(e) ? std::nullopt : sym::MaybeExpr(e);
  }
  return std::nullopt;
}

// A dim_param that reads like an expression but is none the parser knows (sympy's Piecewise,
// torch's IntTrueDiv): it is taken as a name, which promises nothing, so the relation the
// exporter meant goes unchecked.
bool IsUnreadExpression(const TensorShapeProto::Dimension& d) {
  if (!d.has_dim_param()) return false;
  const std::string& text = d.dim_param();
  return text.find_first_of("()+*/%") != std::string::npos && !sym::Parse(text).ok();
}

const TensorShapeProto* DeclaredShape(const ValueInfoProto* vi) {
  if (vi == nullptr || !vi->type().has_tensor_type()) return nullptr;
  if (!vi->type().tensor_type().has_shape()) return nullptr;
  return &vi->type().tensor_type().shape();
}

// The values visible while inferring one graph: its own, then its enclosing graphs'.
struct Scope {
  const ir::Graph* graph;
  FactTable* facts;
  const Scope* parent;
  bool record_requirements;

  const TensorFact* Find(ir::ValueId id) const {
    const Scope* s = this;
    while (s->graph->OuterId(id) != ir::kNoValue && s->parent != nullptr) {
      id = s->graph->OuterId(id);
      s = s->parent;
    }
    return s->graph->Defines(id) ? &(*s->facts)[id] : nullptr;
  }
};

class Propagator : public SubgraphRunner {
 public:
  Propagator(const ir::Model& model, Inference& out,
             const std::vector<ElementOverride>* overrides = nullptr)
      : model_(model), out_(out) {
    if (overrides == nullptr) return;
    for (const ElementOverride& o : *overrides) overrides_[o.node].push_back(&o);
  }

  void Run() {
    const ir::Graph& g = model_.graph();
    if (const int64_t opset = model_.OpsetVersion(""); opset > kNewestModelledOpset) {
      AddEngineNote(out_, {&g, -1,
                           absl::StrCat("the model imports opset ", opset,
                                        " of the default domain; its ops are read as in opset ",
                                        kNewestModelledOpset, ", the newest modelled")});
    }
    out_.graph = &g;
    out_.facts.assign(g.num_values(), TensorFact{});
    adopted_.assign(g.num_values(), false);
    Scope scope{&g, &out_.facts, nullptr, true};
    scopes_[&g] = &scope;
    SeedInputs(g);
    for (int i : g.topological_order()) InferNode(scope, i);
    CheckDeclarations(g);
  }

  std::vector<TensorFact> RunSubgraph(const OpContext& ctx, const ir::Graph& body,
                                      std::vector<TensorFact> inputs,
                                      bool record_requirements) override {
    if (depth_ >= kMaxNesting) {
      if (!nesting_noted_) {
        nesting_noted_ = true;
        AddEngineNote(out_, {&ctx.graph(), ctx.node_index(),
                             absl::StrCat("subgraphs nest deeper than ", kMaxNesting,
                                          " levels; what they compute is treated as unknown")});
      }
      return std::vector<TensorFact>(body.proto().output_size());
    }
    // A Loop or Scan infers its body twice where an iteration changes a shape, so each level of
    // such nesting doubles the work: past the budget, a body is not inferred at all.
    const int64_t work = 1 + body.num_nodes();
    if (subgraph_budget_ < 0) {  // counted at the first run: a model without subgraphs pays nothing
      subgraph_budget_ = kSubgraphWorkBase + kSubgraphRunsPerNode * SubgraphNodes(*out_.graph);
    }
    if (subgraph_work_ + work > subgraph_budget_) {
      if (!budget_noted_) {
        budget_noted_ = true;
        AddEngineNote(out_, {&ctx.graph(), ctx.node_index(),
                             absl::StrCat("inferring the subgraphs nested here would take more "
                                          "than ",
                                          subgraph_budget_,
                                          " node visits (each nested Loop or Scan infers its body "
                                          "again); what they compute is treated as unknown")});
      }
      return std::vector<TensorFact>(body.proto().output_size());
    }
    subgraph_work_ += work;
    FactTable& facts = out_.subgraph_facts[&body];
    facts.assign(body.num_values(), TensorFact{});
    for (const auto& t : body.proto().initializer()) {
      out_.origins.push_back({Origin::Kind::kInitializer, &body, -1, t.name()});
      facts[body.FindValue(t.name())] =
          FactFromTensor(t, static_cast<OriginId>(out_.origins.size() - 1));
    }
    for (int i = 0; i < body.proto().input_size(); ++i) {
      TensorFact f = i < static_cast<int>(inputs.size()) ? std::move(inputs[i]) : TensorFact{};
      const ir::ValueId id = body.FindValue(body.proto().input(i).name());
      AdoptDeclaration(body, id, f);
      facts[id] = std::move(f);
    }
    const Scope* outer = scopes_.at(&ctx.graph());
    Scope scope{&body, &facts, outer, outer->record_requirements && record_requirements};
    scopes_[&body] = &scope;
    ++depth_;
    for (int i : body.topological_order()) InferNode(scope, i);
    --depth_;
    std::vector<TensorFact> results;
    for (const auto& out : body.proto().output()) {
      const TensorFact* f = scope.Find(body.FindValue(out.name()));
      results.push_back(f != nullptr ? *f : TensorFact{});
    }
    return results;
  }

 private:
  // Subgraphs nested deeper than this stay unknown (the loader caps nesting as well).
  static constexpr int kMaxNesting = 64;
  // The node visits (plus one per run) that inferring subgraphs may take in all: every subgraph
  // inferred this many times over, plus a base for small models. A model that needs more nests
  // Loops whose bodies change shapes, each level doubling the runs (docs/limits.md).
  static constexpr int64_t kSubgraphWorkBase = 1'000'000;
  static constexpr int64_t kSubgraphRunsPerNode = 32;

  // The nodes of every subgraph of `g`, at any depth.
  static int64_t SubgraphNodes(const ir::Graph& g) {
    int64_t n = 0;
    for (int i = 0; i < g.num_nodes(); ++i) {
      for (const ir::Graph* sub : g.Subgraphs(i)) n += sub->num_nodes() + SubgraphNodes(*sub);
    }
    return n;
  }

  void SeedInputs(const ir::Graph& g) {
    const auto& proto = g.proto();
    for (const auto& t : proto.initializer()) {
      if (auto defect = TensorDefect(t)) {
        AddEngineNote(out_, {&g, -1,
                             absl::StrCat("initializer '", t.name(), "' ", *defect,
                                          "; what it holds is treated as unknown")});
      }
      Origin o{Origin::Kind::kInitializer, &g, -1, t.name()};
      out_.origins.push_back(o);
      out_.facts[g.FindValue(t.name())] =
          FactFromTensor(t, static_cast<OriginId>(out_.origins.size() - 1));
    }
    for (const ValueInfoProto& vi : proto.input()) {
      if (g.Initializer(vi.name()) != nullptr) continue;  // an initializer with a default value
      TensorFact f;
      if (vi.type().has_tensor_type()) {
        f.elem_type = vi.type().tensor_type().elem_type();
        if (const TensorShapeProto* s = DeclaredShape(&vi)) {
          std::vector<sym::MaybeExpr> dims;
          for (int axis = 0; axis < s->dim_size(); ++axis) {
            const auto& d = s->dim(axis);
            if (d.has_dim_value() && d.dim_value() < 0) {
              AddEngineNote(out_, {&g, -1,
                                   absl::StrCat("graph input '", vi.name(), "' declares axis ",
                                                axis, " as ", d.dim_value(),
                                                "; a dim is never negative, so it is unknown")});
            } else if (d.has_dim_param() && !d.dim_param().empty() &&
                       NeverASize(sym::FromDimParam(d.dim_param()))) {
              AddEngineNote(out_, {&g, -1,
                                   absl::StrCat("graph input '", vi.name(), "' declares axis ",
                                                axis, " as '", d.dim_param(),
                                                "', which is never a positive size, so it is "
                                                "unknown")});
            }
            NoteUnreadExpression(g, d, absl::StrCat("graph input '", vi.name(), "' axis ", axis));
            sym::MaybeExpr dim = DeclaredDim(d);
            bool symbolic = !d.has_dim_value();
            // An unnamed dynamic dim gets a symbol of its own, named after its place.
            if (!dim && symbolic) dim = sym::Expr::Symbol(absl::StrCat(vi.name(), ":", axis));
            dims.push_back(dim);
            out_.input_dims.push_back({vi.name(), axis, dim, symbolic});
          }
          f.shape = std::move(dims);
        }
      }
      out_.facts[g.FindValue(vi.name())] = std::move(f);
    }
    for (const InputDim& d : out_.input_dims) {
      if (!d.dim) continue;
      for (auto& s : d.dim->Symbols()) input_symbols_.insert(s);
    }
  }

  void InferNode(const Scope& scope, int index) {
    const ir::Graph& g = *scope.graph;
    const auto& node = g.node(index);
    const absl::Span<const ir::ValueId> input_ids = g.InputIds(index);
    OpContext::Inputs inputs;
    inputs.reserve(input_ids.size());
    for (ir::ValueId id : input_ids) {
      inputs.push_back(id == ir::kNoValue ? nullptr : scope.Find(id));
    }
    // Overridden copies live until the node is inferred; reserved, so that the pointers to
    // them stay valid. Empty (and never allocated) outside a counterfactual run.
    std::vector<TensorFact> overridden;
    if (auto it = overrides_.find(index); it != overrides_.end() && scope.graph == out_.graph) {
      overridden.reserve(it->second.size());
      for (const ElementOverride* o : it->second) {
        if (o->input < 0 || o->input >= static_cast<int>(inputs.size()) ||
            inputs[o->input] == nullptr) {
          continue;
        }
        const TensorFact& given = *inputs[o->input];
        if (!given.values || o->element < 0 ||
            o->element >= static_cast<int64_t>(given.values->size())) {
          continue;
        }
        overridden.push_back(given);
        (*overridden.back().values)[o->element] = Element{o->value, kNoOrigin};
        inputs[o->input] = &overridden.back();
      }
    }
    // An output of unknown rank computed from one of ambiguous rank (an If whose branches
    // disagree, torch's squeeze of a dynamic dim) is ambiguous too: a declaration would pick
    // one of the alternatives.
    const bool ambiguous_input = std::any_of(inputs.begin(), inputs.end(), [](const TensorFact* f) {
      return f != nullptr && f->ambiguous_rank;
    });
    absl::InlinedVector<TensorFact, 2> outputs(node.output_size());
    const bool default_domain = node.domain().empty() || node.domain() == "ai.onnx";
    OpInferFn fn = FindOp(node.domain(), node.op_type());
    OpContext ctx(g, index, model_.OpsetVersion(node.domain()), out_, std::move(inputs),
                  absl::MakeSpan(outputs), &attribute_scratch_);
    ctx.set_record_requirements(scope.record_requirements);
    ControlFlowFn control = default_domain ? FindControlFlow(node.op_type()) : nullptr;
    const sym::CapHits caps_before = sym::CapHitsSoFar();
    if (control != nullptr) {
      control(ctx, *this);
    } else if (fn != nullptr) {
      fn(ctx);
    } else {
      ctx.Unsupported(absl::StrCat("op ", node.domain().empty() ? "" : node.domain() + ".",
                                   node.op_type(),
                                   " is not modelled yet; its outputs are treated as unknown"));
    }
    if (control == nullptr) NoteCapHits(g, index, caps_before);
    if (!ctx.bad_attribute().empty()) {
      // An invalid node: whatever the op function made of it rests on a fallback.
      for (TensorFact& f : outputs) f = TensorFact{};
      AddEngineNote(out_, {&g, index,
                           absl::StrCat(ctx.bad_attribute(),
                                        "; the model is invalid there, and the node's outputs "
                                        "are treated as unknown")});
    }
    const absl::Span<const ir::ValueId> output_ids = g.OutputIds(index);
    for (size_t k = 0; k < output_ids.size(); ++k) {
      if (output_ids[k] == ir::kNoValue) continue;
      TensorFact& f = outputs[k];
      f.ambiguous_rank = f.ambiguous_rank || (ambiguous_input && !f.shape);
      AdoptDeclaration(g, output_ids[k], f);
      (*scope.facts)[output_ids[k]] = std::move(f);
    }
  }

  // Says where a dim was left unknown because its expression got too large or overflowed, so
  // that an unknown caused by a cap is not mistaken for one the model's data decides.
  void NoteCapHits(const ir::Graph& g, int index, const sym::CapHits& before) {
    const sym::CapHits after = sym::CapHitsSoFar();
    if (after == before || cap_notes_ >= kMaxCapNotes) return;
    ++cap_notes_;
    const char* why = after.overflow != before.overflow
                          ? "a size or value overflowed int64"
                          : "a size expression grew past the cap (64 terms, degree 64, nesting 64)";
    AddEngineNote(
        out_, {&g, index, absl::StrCat(why, " here; the affected dims are treated as unknown")});
  }

  // Where the engine knows less than the model declares, take the declaration: it keeps
  // what follows an unmodelled op analysable. Requirements still compare both where both exist.
  void AdoptDeclaration(const ir::Graph& g, ir::ValueId value, TensorFact& f) {
    const ValueInfoProto* vi = g.ValueInfo(value);
    if (vi == nullptr) vi = g.Output(value);
    if (vi == nullptr || !vi->type().has_tensor_type()) return;
    if (f.elem_type == 0) f.elem_type = vi->type().tensor_type().elem_type();
    const TensorShapeProto* s = DeclaredShape(vi);
    if (s == nullptr || f.shape || f.ambiguous_rank) return;
    std::vector<sym::MaybeExpr> dims;
    for (const auto& d : s->dim()) dims.push_back(DeclaredDim(d));
    f.shape = std::move(dims);
    if (&g == out_.graph) adopted_[value] = true;
  }

  // A declared dim is a promise when it is a number or an expression over input symbols;
  // names an exporter invents for intermediate dims ("unk__3") promise nothing.
  bool IsPromise(const sym::Expr& declared) const {
    for (const auto& s : declared.Symbols()) {
      if (!input_symbols_.contains(s)) return false;
    }
    return true;
  }

  // One note for each distinct text: a decoder declares the same dim in every layer.
  void NoteUnreadExpression(const ir::Graph& g, const TensorShapeProto::Dimension& d,
                            const std::string& where) {
    const bool numeric = IsNumericName(d);
    if ((!numeric && !IsUnreadExpression(d)) || !unread_dim_params_.insert(d.dim_param()).second) {
      return;
    }
    AddEngineNote(
        out_, {&g, -1,
               numeric ? absl::StrCat(where, " is declared with the dim_param '", d.dim_param(),
                                      "': a name, not a number (a dim_param names a dim that "
                                      "may take any size), so it is not checked against the graph")
                       : absl::StrCat(where, " is declared as '", d.dim_param(),
                                      "', which is no expression the linter reads: taken as a "
                                      "name, it is not checked against the graph")});
  }

  void CheckDeclarations(const ir::Graph& g) {
    auto check = [&](const ValueInfoProto& vi, const char* where, bool interface) {
      const ir::ValueId id = g.FindValue(vi.name());
      if (adopted_[id] || g.Input(id) != nullptr) return;
      const TensorFact* f = g.Defines(id) ? &out_.facts[id] : nullptr;
      const TensorShapeProto* s = DeclaredShape(&vi);
      if (f == nullptr || !f->shape || s == nullptr) return;
      if (static_cast<int>(f->shape->size()) != s->dim_size()) return;
      for (int axis = 0; axis < s->dim_size(); ++axis) {
        NoteUnreadExpression(g, s->dim(axis),
                             absl::StrCat(where, " '", vi.name(), "' axis ", axis));
        sym::MaybeExpr declared = DeclaredDim(s->dim(axis));
        const sym::MaybeExpr& computed = (*f->shape)[axis];
        if (!declared || !computed || *declared == *computed || !IsPromise(*declared)) continue;
        Requirement req;
        req.kind = RequirementKind::kDeclaredShape;
        req.relation = Relation::kEqual;
        req.graph = &g;
        req.node = g.Producer(id);
        req.value = vi.name();
        req.axis = axis;
        req.lhs = *computed;
        req.rhs = *declared;
        req.interface = interface;
        req.what = absl::StrCat(where, " '", vi.name(), "' declares axis ", axis, " as ",
                                declared->ToString());
        out_.requirements.push_back(std::move(req));
      }
    };
    for (const auto& vi : g.proto().value_info()) check(vi, "value_info", false);
    // A subgraph's outputs are its parent's business, not the model's interface.
    for (const auto& vi : g.proto().output()) check(vi, "graph output", g.parent() == nullptr);
  }

  const ir::Model& model_;
  Inference& out_;
  // A counterfactual run's overrides, by the main-graph node that reads them.
  absl::flat_hash_map<int, std::vector<const ElementOverride*>> overrides_;
  AttributeScratch attribute_scratch_;
  int depth_ = 0;
  // The scope each graph is being inferred in, for subgraphs to reach their outer values.
  absl::flat_hash_map<const ir::Graph*, const Scope*> scopes_;
  absl::flat_hash_set<std::string> input_symbols_;
  absl::flat_hash_set<std::string> unread_dim_params_;
  std::vector<bool> adopted_;              // main-graph values that took their declared shape
  static constexpr int kMaxCapNotes = 10;  // one per node, and no flood on a hostile model
  int cap_notes_ = 0;
  bool nesting_noted_ = false;
  int64_t subgraph_budget_ = -1;
  int64_t subgraph_work_ = 0;  // node visits and runs of subgraphs so far
  bool budget_noted_ = false;
};

}  // namespace

const TensorFact* Inference::Find(std::string_view value) const {
  if (graph == nullptr) return nullptr;
  const ir::ValueId id = graph->FindValue(value);
  return id != ir::kNoValue && graph->Defines(id) ? &facts[id] : nullptr;
}

const TensorFact* Inference::FindIn(const ir::Graph& graph, std::string_view value) const {
  for (const ir::Graph* g = &graph; g != nullptr; g = g->parent()) {
    const FactTable* table = &facts;
    if (g->parent() != nullptr) {
      auto it = subgraph_facts.find(g);
      if (it == subgraph_facts.end()) continue;
      table = &it->second;
    }
    const ir::ValueId id = g->FindValue(value);
    if (id != ir::kNoValue && g->Defines(id)) return &(*table)[id];
  }
  return nullptr;
}

std::vector<std::string> Inference::InputSymbols() const {
  absl::flat_hash_set<std::string> seen;
  std::vector<std::string> names;
  for (const InputDim& d : input_dims) {
    if (!d.dim) continue;
    for (auto& s : d.dim->Symbols()) {
      if (seen.insert(s).second) names.push_back(s);
    }
  }
  std::sort(names.begin(), names.end());
  return names;
}

void AddEngineNote(Inference& inference, EngineNote note) {
  if (inference.notes.size() < kMaxEngineNotes) {
    inference.notes.push_back(std::move(note));
  } else if (inference.notes.size() == kMaxEngineNotes) {
    inference.notes.push_back(
        {note.graph, -1,
         absl::StrCat("more than ", kMaxEngineNotes, " notes; the rest are left out")});
  }
}

Inference Infer(const ir::Model& model) {
  Inference result;
  Propagator(model, result).Run();
  return result;
}

Inference Infer(const ir::Model& model, const std::vector<ElementOverride>& overrides) {
  Inference result;
  Propagator(model, result, &overrides).Run();
  return result;
}

}  // namespace shapelint::infer
