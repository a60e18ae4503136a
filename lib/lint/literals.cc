#include "lint/literals.h"

#include <algorithm>
#include <cctype>
#include <vector>

#include "absl/strings/str_split.h"

namespace shapelint::lint {
namespace {

// Nodes followed back from a failing node to the literal that sized its operand.
constexpr int kMaxSourceDepth = 64;

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

// torch.export's record of the program's inputs, which the dynamo exporter writes into the
// graph's metadata: "p_fc_weight: PARAMETER target='fc.weight'" for each parameter and buffer.
constexpr std::string_view kGraphSignature = "pkg.torch.export.ExportedProgram.graph_signature";

// The main graph of `graph`.
const ir::Graph& MainGraph(const ir::Graph& graph) {
  const ir::Graph* g = &graph;
  while (g->parent() != nullptr) g = g->parent();
  return *g;
}

// Whether the program's signature lists `name` as a parameter or buffer; nullopt when the model
// records no signature. Where it does, an initializer it does not list is a constant the
// optimizer folded and lifted (named after its op: "expand", "val_12"), however it is named.
std::optional<bool> InSignature(const ir::Graph& graph, const std::string& name) {
  const std::optional<std::string_view> signature = MainGraph(graph).Metadata(kGraphSignature);
  if (!signature) return std::nullopt;
  return signature->find("target='" + name + "'") != std::string_view::npos;
}

// The onnxscript optimizer's record, on the value_info of a constant it folded, of the values
// it folded the constant from: "['inner.pos.weight', 'inner.position_ids']".
constexpr std::string_view kFoldedFrom = "pkg.onnxscript.optimizer.folded_from";

// True when the optimizer folded `name` from parameters and buffers alone (each listed in the
// program's signature): no constant of the trace went into it, so it holds no size of the
// example, and its size is the module's as a weight's is (a position table looked up by a
// buffer of every position, CLIP's and ViT's embeddings). One folded with the trace's own
// constants (a slice end, an expand target: val_3) may hold the example's size.
bool FoldedFromModuleStateOnly(const ir::Graph& graph, const std::string& name) {
  const std::optional<std::string_view> from = graph.ValueMetadata(name, kFoldedFrom);
  if (!from) return false;
  int sources = 0;
  // Quoted names, every other piece between single quotes.
  std::vector<absl::string_view> pieces =
      absl::StrSplit(absl::string_view(from->data(), from->size()), '\'');
  for (size_t i = 1; i < pieces.size(); i += 2) {
    ++sources;
    if (InSignature(graph, std::string(pieces[i])) != true) return false;
  }
  return sources > 0;
}

// True when a float initializer that `failing` meets is a trained parameter (Kind::kWeight).
bool IsTrainedParameter(const LiteralSource& src, const infer::Requirement& failing) {
  // A layer's kernel or features: the requirement is the contraction itself.
  if (failing.kind == infer::RequirementKind::kChannels ||
      failing.kind == infer::RequirementKind::kInnerDim) {
    return true;
  }
  const std::optional<bool> listed =
      src.node < 0 && src.graph != nullptr ? InSignature(*src.graph, src.name) : std::nullopt;
  if (listed.value_or(src.node < 0 && IsParameterName(src.name))) return true;
  if (src.node < 0 && src.graph != nullptr && FoldedFromModuleStateOnly(*src.graph, src.name)) {
    return true;
  }
  // Per-channel parameters ([C], [C, 1, 1], [1, C, 1, 1]) and kernels of conv/linear layers:
  // a fixed channel or feature count is the model's design. A literal with two or more sized
  // dims on a broadcast ([1, T, D], [T, T]) is not.
  int sized = 0;
  for (int64_t d : src.dims) sized += d > 1 ? 1 : 0;
  return sized <= 1;
}

bool IsFloating(int32_t data_type) {
  using ONNX_NAMESPACE::TensorProto;
  return data_type == TensorProto::FLOAT || data_type == TensorProto::FLOAT16 ||
         data_type == TensorProto::BFLOAT16 || data_type == TensorProto::DOUBLE;
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

bool HasConstantDim(const infer::TensorFact* f, int64_t constant) {
  if (f == nullptr || !f->shape) return false;
  return std::any_of(f->shape->begin(), f->shape->end(),
                     [&](const auto& d) { return d && d->AsConstant() == constant; });
}

class Tracer {
 public:
  explicit Tracer(const infer::Inference& inference) : inference_(inference) {}

  // Where `value` of `g` got the size `constant`. An Expand or Tile is the source only when its
  // target holds it; otherwise the tensor it expands is followed.
  LiteralSource SourceOf(const ir::Graph& g, std::string_view value, int64_t constant,
                         int depth) const {
    LiteralSource src;
    if (value.empty() || depth > kMaxSourceDepth) return src;
    if (const auto* t = g.Initializer(value)) {
      src.kind = IsFloating(t->data_type()) ? LiteralSource::Kind::kWeight
                                            : LiteralSource::Kind::kConstant;
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
      src.dims = DimsOf(value);
      return src;
    }
    // Expand's target and Tile's repeats size the output: a literal there is the source, not
    // the tensor being expanded (cls.expand(int(x.size(0)), -1, -1) on a [1, 1, D] parameter).
    if ((op == "Expand" || op == "Tile") && node.input_size() > 1) {
      if (auto lit = FromShapeOperand(node.input(1), constant)) {
        lit->entry = p;
        return *lit;
      }
    }
    // Otherwise the size came through an input that has it as a constant dim (a Transpose, a
    // Relu, a Less against a dynamic length): follow the first such input, however far the
    // literal entered from where it fails.
    for (const auto& in : node.input()) {
      if (in.empty() || !HasConstantDim(inference_.Find(in), constant)) continue;
      LiteralSource found = SourceOf(g, in, constant, depth + 1);
      if (found.kind != LiteralSource::Kind::kNone) found.through.push_back(p);
      return found;
    }
    return src;
  }

  LiteralSource SideOf(const infer::Requirement& r) const {
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
      LiteralSource src = ShapeOperandSource(*o, OperandHolding(node, r.origin));
      src.consumer = r.node;
      if (o->kind != infer::Origin::Kind::kAttribute) return src;
    }
    for (const auto& in : node.input()) {
      // An operand with the size as a constant dim may carry a literal (a mask [L, 5, 1] built
      // from a Constant [1, 5] and a dynamic length L); SourceOf decides.
      if (!HasConstantDim(inference_.Find(in), *c)) continue;
      LiteralSource src = SourceOf(g, in, *c, 0);
      if (src.kind == LiteralSource::Kind::kNone) continue;
      src.consumer = r.node;
      return src;
    }
    return none;
  }

 private:
  std::vector<int64_t> DimsOf(std::string_view v) const {
    std::vector<int64_t> dims;
    const infer::TensorFact* f = inference_.Find(v);
    if (f == nullptr || !f->shape) return dims;
    for (const auto& d : *f->shape) dims.push_back(d && d->AsConstant() ? *d->AsConstant() : -1);
    return dims;
  }

  // The literal among the values of the shape operand `operand` that equals `constant`.
  std::optional<LiteralSource> FromShapeOperand(std::string_view operand, int64_t constant) const {
    const infer::TensorFact* f = inference_.Find(operand);
    if (f == nullptr || !f->values) return std::nullopt;
    for (const auto& e : *f->values) {
      const infer::Origin* o = inference_.OriginOf(e.origin);
      auto v = e.value ? e.value->AsConstant() : std::nullopt;
      if (o == nullptr || !o->IsLiteral() || v != constant) continue;
      return ShapeOperandSource(*o, f);
    }
    return std::nullopt;
  }

  // The operand of `node` whose values carry `origin` (Expand's target, Split's sizes).
  const infer::TensorFact* OperandHolding(ir::Node node, infer::OriginId origin) const {
    for (const auto& in : node.input()) {
      const infer::TensorFact* f = inference_.Find(in);
      if (f == nullptr || !f->values) continue;
      if (std::any_of(f->values->begin(), f->values->end(),
                      [&](const infer::Element& e) { return e.origin == origin; })) {
        return f;
      }
    }
    return nullptr;
  }

  const infer::Inference& inference_;
};

}  // namespace

LiteralSource LiteralSideOf(const infer::Inference& inference,
                            const infer::Requirement& requirement) {
  LiteralSource src = Tracer(inference).SideOf(requirement);
  if (src.kind == LiteralSource::Kind::kWeight && !IsTrainedParameter(src, requirement)) {
    src.kind = LiteralSource::Kind::kConstant;
  }
  return src;
}

}  // namespace shapelint::lint
