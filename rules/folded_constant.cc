// SL005 folded-constant: a literal tensor sized at the example input meets a dynamic dim — a
// positional table sliced to the example length and folded, a causal mask built at the example
// size, a Constant shape fed to Expand or Tile. The exporter evaluated x.size(...) once and
// wrote the result; at other sizes the node fails.
//
// Claims: a failure whose failing node meets a literal the exporter wrote
// (LiteralSource::Kind::kConstant), traced back through layout ops to a Constant or an
// initializer; blamed where it entered (the Expand, Tile or Resize it sizes, or its first
// consumer). The repairs are in folded_constant_fix.cc.
#include <algorithm>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "folded_constant_fix.h"
#include "lint/literals.h"
#include "lint/requirements.h"
#include "lint/rule.h"

namespace shapelint::lint {
namespace {

// The values of an integer vector, when they follow no size: three or more known integers that
// are neither one fill, nor a progression (positions 0, 1, ..., 0, 4, 8, ... from torch.arange of
// a size), nor a mask of 0s and 1s. Field offsets (0, 3, 7) of a factorization machine's
// configuration, held by the module as a numpy array, are such values; torch.arange(int(x.size(1)))
// made in forward is not.
std::optional<std::string> ValuesOfNoSize(const infer::TensorFact* fact) {
  if (fact == nullptr || !fact->values || fact->values->size() < 3 || !fact->shape) {
    return std::nullopt;
  }
  // A vector: a mask, an eye or a grid made at the example's size spans two axes.
  int long_axes = 0;
  for (const sym::MaybeExpr& d : *fact->shape) {
    if (!d || !d->AsConstant()) return std::nullopt;
    long_axes += *d->AsConstant() > 1 ? 1 : 0;
  }
  if (long_axes != 1) return std::nullopt;
  std::vector<int64_t> v;
  for (const infer::Element& e : *fact->values) {
    const std::optional<int64_t> c = e.value ? e.value->AsConstant() : std::nullopt;
    if (!c) return std::nullopt;
    v.push_back(*c);
  }
  bool progression = true;
  for (size_t i = 2; i < v.size() && progression; ++i) {
    progression = v[i] - v[i - 1] == v[1] - v[0];
  }
  // Nor a mask of 0s and 1s (a length mask, a flag per position).
  const bool mask = std::all_of(v.begin(), v.end(), [](int64_t x) { return x == 0 || x == 1; });
  if (progression || mask) return std::nullopt;
  constexpr size_t kShown = 8;
  std::vector<int64_t> shown(v.begin(), v.begin() + std::min(v.size(), kShown));
  return absl::StrCat("[", absl::StrJoin(shown, ", "), v.size() > kShown ? ", ..." : "", "]");
}

// True when `name` is what an exporter calls a lookup's output: TorchScript names a Gather
// node's ".../Gather_2_output_0", torch.export an embedding's "embedding" or "embedding_3". An
// initializer so named was folded from the lookup (by onnxslim or onnx-simplifier, which keep
// the value's name, or by the onnxscript optimizer).
bool NamedAsLookupOutput(std::string_view name) {
  const size_t slash = name.rfind('/');
  std::string_view last = slash == std::string_view::npos ? name : name.substr(slash + 1);
  auto consume = [&last](std::string_view prefix) {
    if (last.substr(0, prefix.size()) != prefix) return false;
    last.remove_prefix(prefix.size());
    return true;
  };
  auto digits = [&last] {
    const size_t n = std::min(last.find_first_not_of("0123456789"), last.size());
    last.remove_prefix(n);
    return n > 0;
  };
  // An optional "_N" index after the op's name.
  auto index = [&] {
    if (last.size() > 1 && last[0] == '_' && absl::ascii_isdigit(last[1])) {
      last.remove_prefix(1);
      digits();
    }
  };
  if (slash == std::string_view::npos && consume("embedding")) {
    index();
    return last.empty();
  }
  if (!consume("Gather")) return false;
  index();
  return consume("_output_") && digits() && last.empty();
}

// The length a Slice keeps on the first axis where its input moved (`before` at the witness,
// `after` at the moved sizes) and its output (`out`, at the witness) is shorter than the input.
std::optional<int64_t> KeptLength(const std::optional<std::vector<int64_t>>& before,
                                  const std::optional<std::vector<int64_t>>& after,
                                  const std::optional<std::vector<int64_t>>& out) {
  if (!before || !after || !out || before->size() != after->size() ||
      before->size() != out->size()) {
    return std::nullopt;
  }
  for (size_t axis = 0; axis < before->size(); ++axis) {
    if ((*before)[axis] != (*after)[axis] && (*out)[axis] < (*before)[axis]) return (*out)[axis];
  }
  return std::nullopt;
}

// True when `node`'s output reaches the failing node through nodes whose outputs kept their
// dims too: the crop is on the side of the failure that kept its size. A slice whose value joins
// one that moved on the way (torch.roll's two slices, concatenated back to the full length)
// follows the input again, whatever length it keeps.
bool ReachesFailureUnchanged(const BlameSite& site, int node) {
  constexpr int kMaxNodes = 32;
  const ir::Graph& g = site.graph();
  std::vector<int> stack{node};
  absl::flat_hash_set<int> seen{node};
  while (!stack.empty() && static_cast<int>(seen.size()) <= kMaxNodes) {
    const int n = stack.back();
    stack.pop_back();
    for (const auto& out : g.node(n).output()) {
      if (out.empty()) continue;
      for (int c : g.Consumers(out)) {
        if (c == site.start()) return true;
        if (site.Changed(c) || !seen.insert(c).second) continue;
        stack.push_back(c);
      }
    }
  }
  return false;
}

class FoldedConstant : public Rule {
 public:
  using Rule::Rule;

  bool ClaimsLiteral(const BlameSite& site) const override {
    return site.literal().kind == LiteralSource::Kind::kConstant;
  }

  // A crop that kept its length while the tensor it crops moved: the side of the failure that
  // did not follow the input (blame's walk up a kept side), cut to a literal length.
  bool ClaimsNode(const BlameSite& site, int node) const override {
    const ir::Graph& g = site.graph();
    const ir::Node n = g.node(node);
    if (node == site.start() || n.op_type() != "Slice" || site.Changed(node) ||
        !site.ValueChanged(n.input(0)) || !ReachesFailureUnchanged(site, node)) {
      return false;
    }
    const std::optional<int64_t> length =
        KeptLength(site.DimsAtWitness(n.input(0)), site.DimsAtMoved(n.input(0)),
                   site.DimsAtWitness(n.output(0)));
    return length && SliceLengthLiteral(site.inference(), g, node, *length).has_value();
  }

  void Check(const Analysis& analysis, std::vector<Finding>& out) const override {
    for (const Cause& cause : analysis.causes()) {
      if (!Owns(cause)) continue;
      const infer::Requirement& r = *cause.pins.front()->requirement;
      if (cause.literal.kind == LiteralSource::Kind::kNone) {
        ReportCrop(analysis, cause, r, out);
        continue;
      }
      const LiteralSource& src = cause.literal;
      const std::string what = src.node >= 0
                                   ? absl::StrCat("Constant '", src.graph->NodeLabel(src.node), "'")
                                   : absl::StrCat("initializer '", src.name, "'");
      const auto& node = cause.graph->node(cause.node);
      const std::string literal =
          src.values.empty()
              ? absl::StrCat(what, " of shape [", absl::StrJoin(src.dims, ", "), "]")
              : absl::StrCat(what, " holding [", absl::StrJoin(src.values, ", "), "]");
      // Where it meets the dynamic dim may be further down than where it entered.
      const auto& meets = r.graph->node(r.node);
      const std::string entry = cause.node == r.node && r.graph == cause.graph
                                    ? ""
                                    : absl::StrCat(", enters at ", node.op_type(), " '",
                                                   cause.graph->NodeLabel(cause.node), "'");
      Finding f =
          FindingFor(analysis, cause, cause.node,
                     absl::StrCat(literal, " was sized at the example input", entry,
                                  " and meets the dynamic ", absl::StrJoin(cause.symbols, ", "),
                                  " in ", meets.op_type(), " (", r.what, ")"));
      f.attribute = src.name;
      const ONNX_NAMESPACE::TensorProto* table =
          src.node < 0 ? src.graph->Initializer(src.name) : nullptr;
      const FoldedSources folded =
          table != nullptr ? ReadFoldedSources(*src.graph, src.name, analysis.signature())
                           : FoldedSources{};
      const bool float_table = table != nullptr &&
                               table->data_type() == ONNX_NAMESPACE::TensorProto::FLOAT &&
                               src.values.empty();
      if (float_table && NamedAsLookupOutput(src.name)) {
        // A float table folded from a lookup (its name says so): a trained table gathered by a
        // buffer of indices (an attention bias by relative positions, sized by the configured
        // resolution) fixes the size in the PyTorch module too; positions computed from the
        // example's size do not. The graph cannot tell which: two readings, a hypothesis
        // (docs/severity.md), unless torch.export specialized every size it meets.
        f.notes.push_back(
            {"the table was folded from a lookup (its name is a Gather's or an embedding's "
             "output): if the module looked a trained table up by a buffer of indices (an "
             "attention bias by relative position), the PyTorch module accepts only this grid "
             "as well, and eager PyTorch fails at the counterexample too; if by positions "
             "computed from the example's size, only the export does. A run of the module "
             "settles which",
             std::nullopt});
        if (!analysis.AllSpecialized(cause.symbols)) f.evidence = Evidence::kHypothesis;
      } else if (folded.sliced_module_state) {
        // A parameter the trace cut (self.w[:T, :T]): eager PyTorch cuts it again for each
        // input, the graph holds the cut of the example.
        f.notes.push_back(
            {absl::StrCat("the optimizer folded '", src.name, "' from '",
                          absl::StrJoin(folded.module_values, "', '"),
                          "' cut by the trace (its folded_from record lists a slice): eager "
                          "PyTorch cuts the module's tensor again for each input and fails only "
                          "past its own length, the graph holds the cut of the example"),
             std::nullopt});
      } else if (folded.sized_factory) {
        // Made to a size in forward (torch.arange(int(x.size(1))) and what follows it): the
        // optimizer's record rules out a table the module holds.
        f.notes.push_back(
            {absl::StrCat("the optimizer folded '", src.name,
                          "' from an op that makes a tensor of a size (its folded_from record "
                          "lists one: arange, zeros, expand, ...): forward built it from the "
                          "example's size, and eager PyTorch builds it again for each input"),
             std::nullopt});
      } else if (float_table && folded.made_by_trace) {
        // torch.hann_window(int(...)): neither a parameter or buffer of the program's record
        // nor folded from one. The two records rule out a table the module holds.
        f.notes.push_back(
            {absl::StrCat("torch.export's record of the program's inputs lists no parameter or "
                          "buffer '",
                          src.name,
                          "', and the optimizer folded it from none (its folded_from record): "
                          "forward built it from the example's size, and eager PyTorch builds it "
                          "again for each input"),
             std::nullopt});
      } else if (const std::optional<std::string> values =
                     float_table || !src.values.empty()
                         ? std::nullopt
                         : ValuesOfNoSize(analysis.inference().FindIn(*src.graph, src.name))) {
        // Integers that are no positions of a size: the module's configuration (offsets,
        // ids), held as a buffer or array, fold to the same literal as a table made in forward.
        f.notes.push_back(
            {absl::StrCat("the table's values ", *values,
                          " are no positions, fill or mask: if the module holds them "
                          "for its configuration (a buffer or an array, such as field offsets), "
                          "the PyTorch module accepts only this size as well, and eager PyTorch "
                          "fails at the counterexample too; if forward built them from the "
                          "example's size, only the export does. A run of the module settles "
                          "which"),
             std::nullopt});
      } else if (float_table) {
        // Any other float table: prior boxes or a position table the module holds for its
        // configured input (a buffer) fold to the same initializer as one built from the
        // example's size with torch.arange(int(...)).
        f.notes.push_back(
            {"the exporter folded a float table here: if the module holds it as a buffer or "
             "parameter made for this input size (prior boxes, anchors, a position table), "
             "the PyTorch module accepts only these sizes as well, and eager PyTorch fails at "
             "the counterexample too; if forward built it from the example's size, only the "
             "export does. A run of the module settles which",
             std::nullopt});
      }
      f.fix =
          "compute the tensor from the input's size inside the model (slice the table with "
          "x.shape[1], build masks with torch.arange(x.shape[1])) instead of a Python int, so "
          "that the exporter keeps it dynamic";
      if (analysis.fixes_wanted()) {
        absl::StatusOr<FixIt> fix = RepairFoldedConstant(analysis, cause);
        if (fix.ok()) {
          f.fix_it = *std::move(fix);
        } else {
          f.unfixable = std::string(fix.status().message());
        }
      }
      out.push_back(std::move(f));
    }
  }

 private:
  // A crop claimed through ClaimsNode: the Slice kept a literal length at the witness while the
  // cause's symbols moved.
  void ReportCrop(const Analysis& analysis, const Cause& cause, const infer::Requirement& r,
                  std::vector<Finding>& out) const {
    const ir::Graph& g = *cause.graph;
    const ir::Node n = g.node(cause.node);
    const infer::TensorFact* in = analysis.inference().FindIn(g, n.input(0));
    const auto before = analysis.DimsAt(n.input(0), analysis.witness());
    const auto kept = analysis.DimsAt(n.output(0), analysis.witness());
    std::optional<int64_t> length;
    size_t axis = 0;
    for (; before && kept && in != nullptr && in->shape && axis < before->size() &&
           axis < kept->size() && axis < in->shape->size();
         ++axis) {
      const sym::MaybeExpr& d = (*in->shape)[axis];
      if (d && !d->IsConstant() && (*kept)[axis] < (*before)[axis]) {
        length = (*kept)[axis];
        break;
      }
    }
    const std::optional<LiteralSource> src =
        length ? SliceLengthLiteral(analysis.inference(), g, cause.node, *length) : std::nullopt;
    if (!src) return;
    const std::string what = src->node >= 0
                                 ? absl::StrCat("Constant '", g.NodeLabel(src->node), "'")
                                 : absl::StrCat("initializer '", src->name, "'");
    const auto& meets = r.graph->node(r.node);
    Finding f = FindingFor(
        analysis, cause, cause.node,
        absl::StrCat("Slice keeps ", *length, " elements on axis ", axis, " of '",
                     std::string(n.input(0)), "' (", FormatDims(*in->shape), "), bounded by ", what,
                     " holding [", absl::StrJoin(src->values, ", "),
                     "]: the crop was sized at the example input and meets the dynamic ",
                     absl::StrJoin(cause.symbols, ", "), " in ", meets.op_type(), " (", r.what,
                     ")"));
    f.attribute = src->name;
    f.notes.push_back({absl::StrCat("the crop keeps its length while the tensor it crops moves "
                                    "with the input, and the other side of the ",
                                    meets.op_type(), " follows the input"),
                       std::nullopt});
    f.fix =
        "compute the crop from the tensors' shapes inside the model (th = up.shape[2], not "
        "int(up.size(2))), so that the exporter keeps it dynamic";
    if (analysis.fixes_wanted()) {
      f.unfixable =
          "the crop's length is arithmetic on the literal; which tensor's size it should follow "
          "is the module's to say";
    }
    out.push_back(std::move(f));
  }
};

}  // namespace

std::unique_ptr<Rule> MakeFoldedConstant(const RuleInfo& info) {
  return std::make_unique<FoldedConstant>(info);
}

}  // namespace shapelint::lint
