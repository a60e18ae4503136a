#include "lint/fix_apply.h"

#include <onnx/onnx_pb.h>

#include <algorithm>
#include <map>
#include <optional>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "shapelint/infer/engine.h"
#include "shapelint/sym/expr.h"

namespace shapelint::lint {
namespace {

namespace onnx = ONNX_NAMESPACE;

// Values of a constant shown in the diff before "...".
constexpr size_t kDiffValues = 8;

std::string Quoted(std::string_view name) { return absl::StrCat("'", std::string(name), "'"); }

std::string ValuesText(const std::vector<int64_t>& values) {
  std::vector<int64_t> shown(values.begin(), values.begin() + std::min(values.size(), kDiffValues));
  return absl::StrCat("[", absl::StrJoin(shown, ", "), values.size() > kDiffValues ? ", ..." : "",
                      "]");
}

// A Constant node holding `c`: Constant works at every IR version, where an initializer would
// have to be a graph input too before IR 4, and it keeps the initializers the model's weights.
onnx::NodeProto ConstantNode(const FixConstant& c) {
  onnx::NodeProto node;
  node.set_op_type("Constant");
  node.set_name(c.name);
  node.add_output(c.name);
  onnx::AttributeProto* value = node.add_attribute();
  value->set_name("value");
  value->set_type(onnx::AttributeProto::TENSOR);
  onnx::TensorProto* t = value->mutable_t();
  t->set_data_type(c.data_type);
  for (int64_t d : c.dims) t->add_dims(d);
  if (c.raw_data.empty()) {
    for (int64_t v : c.values) t->add_int64_data(v);
  } else {
    t->set_raw_data(c.raw_data);
  }
  return node;
}

onnx::NodeProto NodeOf(const FixNode& n) {
  onnx::NodeProto node;
  node.set_op_type(n.op_type);
  node.set_name(n.name);
  for (const std::string& in : n.inputs) node.add_input(in);
  for (const std::string& out : n.outputs) node.add_output(out);
  for (const auto& [name, value] : n.ints) {
    onnx::AttributeProto* a = node.add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::INT);
    a->set_i(value);
  }
  for (const auto& [name, values] : n.int_lists) {
    onnx::AttributeProto* a = node.add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::INTS);
    for (int64_t v : values) a->add_ints(v);
  }
  return node;
}

std::string NodeText(const FixNode& n) {
  return absl::StrCat("+ ", n.op_type, " ", Quoted(n.name), " (", absl::StrJoin(n.inputs, ", "),
                      ") -> ", absl::StrJoin(n.outputs, ", "));
}

// True when something other than the removed nodes and the rewired slots still reads `value`
// after the edit: a node of the graph, a subgraph, a graph output, or an added node.
bool StillRead(const ir::Graph& g, std::string_view value, const absl::flat_hash_set<int>& removed,
               const absl::flat_hash_map<int, std::vector<std::pair<int, std::string>>>& renamed,
               const absl::flat_hash_set<std::string>& added_inputs) {
  if (added_inputs.contains(std::string(value)) || g.Output(value) != nullptr) return true;
  for (int reader : g.Consumers(value)) {
    if (removed.contains(reader)) continue;
    const ir::Node n = g.node(reader);
    auto it = renamed.find(reader);
    bool reads = !g.Subgraphs(reader).empty();  // a subgraph may read it by name
    for (int i = 0; i < n.input_size() && !reads; ++i) {
      if (n.input(i) != value) continue;
      const bool rewired =
          it != renamed.end() && std::any_of(it->second.begin(), it->second.end(),
                                             [i](const auto& r) { return r.first == i; });
      reads = !rewired;
    }
    if (reads) return true;
  }
  return false;
}

// Initializers that only the nodes the edit removes or rewires read: left out, so that the
// fixed model holds no tensor nothing reads (ONNX Runtime warns of each on every load). One that
// is also a graph input stays: it is part of the model's interface.
void RemoveOrphanedInitializers(const ir::Graph& g, const absl::flat_hash_set<std::string>& added,
                                Edits& edits) {
  ir::ModelRewrite& rw = edits.rewrite;
  std::vector<std::string> was_read;
  for (int node : rw.remove) {
    const ir::Node n = g.node(node);
    for (int i = 0; i < n.input_size(); ++i) was_read.emplace_back(n.input(i));
  }
  for (const auto& [node, renames] : rw.rename_inputs) {
    const ir::Node n = g.node(node);
    for (const auto& [slot, value] : renames) {
      if (slot >= 0 && slot < n.input_size()) was_read.emplace_back(n.input(slot));
    }
  }
  std::sort(was_read.begin(), was_read.end());
  was_read.erase(std::unique(was_read.begin(), was_read.end()), was_read.end());
  for (const std::string& value : was_read) {
    if (value.empty() || g.Initializer(value) == nullptr || g.Input(value) != nullptr ||
        StillRead(g, value, rw.remove, rw.rename_inputs, added)) {
      continue;
    }
    rw.remove_initializers.insert(value);
    edits.diff.push_back(absl::StrCat("- initializer ", Quoted(value), " (no longer read)"));
  }
}

absl::Status AddDeclarations(const ir::Model& model, const std::vector<DynamicAxis>& dynamic,
                             absl::Span<const FixIt* const> fixes, Edits& edits) {
  const ir::Graph& g = model.graph();
  for (const DynamicAxis& d : dynamic) {
    const onnx::ValueInfoProto* vi = g.Input(d.input);
    const int rank = vi == nullptr ? 0 : vi->type().tensor_type().shape().dim_size();
    const int64_t axis = d.axis < 0 ? d.axis + rank : d.axis;
    if (axis < 0 || axis >= rank) {
      return absl::InvalidArgumentError(absl::StrCat("no axis ", d.axis, " in input ", d.input));
    }
    ir::DimEdit e{d.input, static_cast<int>(axis), std::nullopt,
                  d.name.empty() ? absl::StrCat(d.input, ":", axis) : d.name};
    edits.diff.push_back(absl::StrCat("~ input ", Quoted(d.input), " dim ", axis,
                                      ": declared dynamic (", e.param, ")"));
    edits.rewrite.input_dims.push_back(std::move(e));
  }
  for (const FixIt* fix : fixes) {
    for (const FixDeclaration& d : fix->declarations) {
      ir::DimEdit e{d.input, d.axis, d.size, d.symbol};
      edits.diff.push_back(absl::StrCat("~ input ", Quoted(d.input), " dim ", d.axis, ": ",
                                        d.size ? absl::StrCat(*d.size) : d.symbol));
      edits.rewrite.input_dims.push_back(std::move(e));
    }
    for (const auto& [symbol, size] : fix->symbol_sizes) {
      if (edits.rewrite.param_sizes.emplace(symbol, size).second) {
        edits.diff.push_back(absl::StrCat("~ dim_param ", Quoted(symbol), " -> ", size,
                                          " (inputs, outputs and value_info)"));
      }
    }
  }
  return absl::OkStatus();
}

void Flatten(const FixIt& fix, std::vector<const FixIt*>& out) {
  out.push_back(&fix);
  for (const FixIt& sibling : fix.siblings) Flatten(sibling, out);
}

}  // namespace

std::vector<const FixIt*> WithSiblings(absl::Span<const FixIt* const> fixes) {
  std::vector<const FixIt*> all;
  for (const FixIt* fix : fixes) Flatten(*fix, all);
  return all;
}

absl::StatusOr<Edits> BuildEdits(const ir::Model& model, absl::Span<const FixIt* const> chosen,
                                 const std::vector<DynamicAxis>& dynamic) {
  const std::vector<const FixIt*> fixes = WithSiblings(chosen);
  const ir::Graph& g = model.graph();
  Edits edits;
  ir::ModelRewrite& rw = edits.rewrite;
  absl::flat_hash_set<std::string> added_inputs;
  for (const FixIt* fix : fixes) {
    if ((!fix->nodes.empty() || !fix->constants.empty()) &&
        (fix->anchor < 0 || fix->anchor >= g.num_nodes())) {
      return absl::InternalError(absl::StrCat("fix-it anchored at node ", fix->anchor));
    }
    std::vector<std::string>& at = rw.insert_before[fix->anchor];
    for (const FixConstant& c : fix->constants) {
      at.push_back(ConstantNode(c).SerializeAsString());
      edits.diff.push_back(absl::StrCat(
          "+ Constant ", Quoted(c.name), " = ",
          c.raw_data.empty() ? ValuesText(c.values)
                             : absl::StrCat(onnx::TensorProto::DataType_Name(c.data_type), " [",
                                            absl::StrJoin(c.dims, ", "), "]")));
    }
    for (const FixNode& n : fix->nodes) {
      at.push_back(NodeOf(n).SerializeAsString());
      edits.diff.push_back(NodeText(n));
      added_inputs.insert(n.inputs.begin(), n.inputs.end());
    }
    if (at.empty()) rw.insert_before.erase(fix->anchor);
    for (const FixRewire& r : fix->rewires) {
      const ir::Node n = g.node(r.node);
      edits.diff.push_back(absl::StrCat("~ ", n.op_type(), " ", Quoted(g.NodeLabel(r.node)),
                                        " input ", r.input, ": ", Quoted(n.input(r.input)), " -> ",
                                        Quoted(r.value)));
      rw.rename_inputs[r.node].emplace_back(r.input, r.value);
    }
    for (int node : fix->replaced) {
      rw.remove.insert(node);
      edits.diff.push_back(absl::StrCat("- ", g.node(node).op_type(), " ",
                                        Quoted(g.NodeLabel(node)), " (replaced)"));
    }
  }
  for (const FixIt* fix : fixes) {
    for (int node : fix->unread) {
      if (rw.remove.contains(node)) continue;
      const ir::Node n = g.node(node);
      bool read = false;
      for (int i = 0; i < n.output_size() && !read; ++i) {
        read = StillRead(g, n.output(i), rw.remove, rw.rename_inputs, added_inputs);
      }
      if (read) continue;
      rw.remove.insert(node);
      edits.diff.push_back(
          absl::StrCat("- ", n.op_type(), " ", Quoted(g.NodeLabel(node)), " (no longer read)"));
    }
  }
  RemoveOrphanedInitializers(g, added_inputs, edits);
  if (auto st =
          AddDeclarations(model, rw.empty() ? std::vector<DynamicAxis>{} : dynamic, fixes, edits);
      !st.ok()) {
    return st;
  }
  return edits;
}

// Declarations of the fixed model's outputs and value_info that the fix made stale: a dim that
// `original` computes as declared (a size, or torch.export's expression of the input dims) and
// the fixed graph computes from the inputs becomes that expression (a dim_param), where the two
// agree at the witness. Without this a fix would leave [B, 2, 8, 64] declared where the reshape
// now gives [B, S, 8, 64]. A declaration the original already contradicted where it ran stays:
// that is another finding's (SL003), not the fix's to hide.
std::vector<ir::DimEdit> StaleDeclarations(const ir::Model& fixed, const ir::Model& original,
                                           const std::map<std::string, int64_t>& witness,
                                           const std::set<std::pair<std::string, int>>& also,
                                           std::vector<std::string>& diff) {
  struct Candidate {
    const onnx::ValueInfoProto* vi;
    int axis;
    std::string kind, was;
    sym::Expr now;
    std::optional<int64_t> size;    // the declared dim_value, or
    std::optional<sym::Expr> expr;  // the declared dim_param
  };
  std::vector<ir::DimEdit> edits;
  sym::InternScope scope;
  const infer::Inference after = infer::Infer(fixed);
  sym::Binding at;
  for (const auto& [symbol, size] : witness) at.Set(symbol, size);
  std::vector<Candidate> candidates;
  auto consider = [&](const onnx::ValueInfoProto& vi, const std::string& kind) {
    const infer::TensorFact* fact = after.Find(vi.name());
    if (fact == nullptr || !fact->shape || !vi.type().tensor_type().has_shape()) return;
    const auto& declared = vi.type().tensor_type().shape();
    if (declared.dim_size() != static_cast<int>(fact->shape->size())) return;
    for (int axis = 0; axis < declared.dim_size(); ++axis) {
      const sym::MaybeExpr& e = (*fact->shape)[axis];
      const auto& dim = declared.dim(axis);
      if (!e) continue;
      Candidate c{&vi, axis, kind, "", *e, std::nullopt, std::nullopt};
      if (dim.has_dim_value()) {
        if (e->IsConstant()) continue;  // a size that stays
        c.size = dim.dim_value();
        c.was = absl::StrCat(dim.dim_value());
      } else if (dim.has_dim_param()) {
        c.expr = sym::FromDimParam(dim.dim_param());
        if (*c.expr == *e) continue;
        c.was = dim.dim_param();
      } else {
        continue;
      }
      const std::optional<int64_t> declared_at = c.size ? c.size : c.expr->Evaluate(at);
      if (!declared_at || e->Evaluate(at) != declared_at) continue;
      candidates.push_back(std::move(c));
    }
  };
  for (const auto& vi : fixed.graph().proto().output()) consider(vi, "output");
  for (const auto& vi : fixed.graph().proto().value_info()) consider(vi, "value_info");
  if (candidates.empty()) return edits;
  const infer::Inference before = infer::Infer(original);
  for (const Candidate& c : candidates) {
    const infer::TensorFact* fact = before.Find(c.vi->name());
    if (fact == nullptr || !fact->shape || c.axis >= static_cast<int>(fact->shape->size())) {
      continue;
    }
    const sym::MaybeExpr& was = (*fact->shape)[c.axis];
    const bool as_declared = was && (c.size ? was->AsConstant() == c.size : *was == *c.expr);
    // The fix changed what the graph computes there (a Slice's min(W, 5) is now floor(W / 2)),
    // and the original agreed with the declaration where it ran: the fix made it stale.
    const bool changed_by_fix =
        was && *was != c.now && was->Evaluate(at) == (c.size ? c.size : c.expr->Evaluate(at));
    if (!as_declared && !changed_by_fix && !also.contains({c.vi->name(), c.axis})) continue;
    // A constant becomes a dim_value: the fixed pool's output is its size whatever the input.
    edits.push_back({c.vi->name(), c.axis, c.now.AsConstant(), c.now.ToString()});
    diff.push_back(absl::StrCat("~ ", c.kind, " '", c.vi->name(), "' dim ", c.axis, ": ", c.was,
                                " -> ", c.now.ToString()));
  }
  return edits;
}

}  // namespace shapelint::lint
