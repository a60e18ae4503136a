#include "lint/literals.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <limits>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/strip.h"
#include "lint/requirements.h"
#include "lint/tensor_values.h"

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

// True when every symbol of `r` is one torch.export specialized to a single size.
bool AllSpecialized(const infer::Requirement& r,
                    const std::map<std::string, int64_t>& specialized) {
  const std::vector<std::string> symbols = SymbolsOf(r);
  return !symbols.empty() && std::all_of(symbols.begin(), symbols.end(), [&](const std::string& s) {
    return specialized.contains(s);
  });
}

// True when every dim of `src` above 1 is the size torch.export specialized some symbol of
// `failing` to, and there is at least one such dim.
bool CutToSpecializedSize(const LiteralSource& src, const infer::Requirement& failing,
                          const std::map<std::string, int64_t>& specialized) {
  if (!AllSpecialized(failing, specialized)) return false;
  std::vector<int64_t> sizes;
  for (const std::string& s : SymbolsOf(failing)) sizes.push_back(specialized.at(s));
  int cut = 0;
  for (int64_t d : src.dims) {
    if (d <= 1) continue;
    if (std::find(sizes.begin(), sizes.end(), d) == sizes.end()) return false;
    ++cut;
  }
  return cut > 0;
}

// True when `name` is what TorchScript calls a Constant node's output
// ("/inner/Constant_output_0", "/blocks.0/attn/Constant_12_output_0"): an initializer so named
// is that Constant, lifted by a tool (ONNX Runtime's optimizer, onnxslim), which keep the name.
bool NamedAsConstantOutput(absl::string_view name) {
  const size_t slash = name.rfind('/');
  if (slash == absl::string_view::npos) return false;  // TorchScript scopes them: "/Constant_..."
  absl::string_view last = name.substr(slash + 1);
  auto digits = [&last] {
    const size_t n = std::min(last.find_first_not_of("0123456789"), last.size());
    last.remove_prefix(n);
    return n > 0;
  };
  if (!absl::ConsumePrefix(&last, "Constant")) return false;
  if (absl::StartsWith(last, "_") && last.size() > 1 && absl::ascii_isdigit(last[1])) {
    last.remove_prefix(1);
    digits();
  }
  return absl::ConsumePrefix(&last, "_output_") && digits() && last.empty();
}

// True when an initializer holds 0s and 1s and both: a mask made at the example's length
// (torch.arange(max_len) < lens, folded by dynamo into [1, 1, 16] of ten 1s and six 0s), which no
// training leaves behind. A freshly initialized norm's weight of all 1s (or bias of all 0s) holds
// one value only and stays a parameter.
bool IsMask(const LiteralSource& src) {
  if (src.graph == nullptr || src.node >= 0) return false;
  const ONNX_NAMESPACE::TensorProto* t = src.graph->Initializer(src.name);
  constexpr int64_t kMaxMaskElements = 1 << 16;
  if (t == nullptr) return false;
  const absl::StatusOr<TensorValues> v = ReadTensorValues(*t, kMaxMaskElements);
  if (!v.ok()) return false;
  bool zero = false, one = false;
  for (const double x : v->values) {
    if (x != 0.0 && x != 1.0) return false;
    (x == 0.0 ? zero : one) = true;
  }
  return zero && one;
}

// True when a float initializer that `failing` meets is a trained parameter (Kind::kWeight).
bool IsTrainedParameter(const LiteralSource& src, const infer::Requirement& failing,
                        const std::map<std::string, int64_t>& specialized,
                        const ParameterSignature& signature) {
  const bool initializer = src.node < 0 && src.graph != nullptr;
  // The exporter's Constant, moved into the initializers after export: a literal, as it was in
  // the file the exporter wrote, whatever its shape or the op it meets.
  if (initializer && NamedAsConstantOutput(src.name)) return false;
  const FoldedSources folded =
      initializer ? ReadFoldedSources(*src.graph, src.name, signature) : FoldedSources{};
  // Made to a size in forward (an arange, an eye, zeros for an RNN's state) from no parameter:
  // however it is shaped and whatever meets it, not a weight.
  if (folded.sized_factory && !folded.module_state) return false;
  // A parameter cut to a size torch.export specialized, to that size on every sized axis
  // (self.w[:T, :T] of T = int(x.size(1))): the trace's cut, not the layer's own features,
  // even where it is contracted with the input.
  if (folded.sliced_module_state && CutToSpecializedSize(src, failing, specialized)) return false;
  // A layer's kernel or features: the requirement is the contraction itself.
  if (failing.kind == infer::RequirementKind::kChannels ||
      failing.kind == infer::RequirementKind::kInnerDim) {
    return true;
  }
  // Where the model records a signature, an initializer it does not list is a constant the
  // optimizer folded and lifted (named after its op: "expand", "val_12"), however it is named.
  // One it lists as a buffer is module state no optimizer trains: per-channel (running
  // statistics) it is the layer's design, but over two or more sized axes it may hold what the
  // module computed at the size it last saw (YOLOv5's grid, cached at the export's 8 x 10 and
  // rebuilt in forward only where the map's size differs), which the shape tells below.
  using Listing = ParameterSignature::Listing;
  const std::optional<Listing> listing =
      initializer ? signature.Find(src.name) : std::optional<Listing>();
  // Without a signature the name is what is left: a module path, unless it names an op that
  // sized the tensor or a value the exporter generated (a post-processor dropped the records,
  // not the names).
  const bool listed =
      listing ? *listing != Listing::kNotListed
              : src.node < 0 && IsParameterName(src.name) && !NamesComputedValue(src.name);
  if (listed && listing != Listing::kBuffer) return true;
  if (folded.only_module_state) return true;
  if (folded.made_by_trace) return false;
  // A parameter broadcast to a size (a class token expanded to the batch) keeps its own sizes
  // on some axes. A size torch.export left free is the trace's; one it pinned may be either
  // (a guard on the parameter's size, or int() on the example's), which the shape tells below.
  if (folded.sized_factory && !AllSpecialized(failing, specialized)) return false;
  // Per-channel parameters ([C], [C, 1, 1], [1, C, 1, 1]) and kernels of conv/linear layers:
  // a fixed channel or feature count is the model's design. A literal with two or more sized
  // dims on a broadcast ([1, T, D], [T, T]) is not.
  int sized = 0;
  for (int64_t d : src.dims) sized += d > 1 ? 1 : 0;
  return sized <= 1 && !IsMask(src);
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

bool HasConstantAt(const infer::TensorFact* f, int64_t axis, int64_t constant) {
  if (f == nullptr || !f->shape || axis >= static_cast<int64_t>(f->shape->size())) return false;
  const sym::MaybeExpr& d = (*f->shape)[axis];
  return d && d->AsConstant() == constant;
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
    if (std::optional<LiteralSource> lit = FromSizingOperand(g, p, constant, depth)) return *lit;
    // A Slice with literal bounds shortens a dim it got from its input: the length it keeps
    // follows the input's (zeros(b, int(T) + 2, d)[:, 1:-1] keeps T of the example's T + 2), so
    // the literal that sized the input is the source.
    if (op == "Slice") {
      if (const std::optional<int64_t> longer = SlicedFrom(node, constant)) {
        LiteralSource found = SourceOf(g, node.input(0), *longer, depth + 1);
        if (found.kind != LiteralSource::Kind::kNone) found.through.push_back(p);
        return found;
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
    // A size of 1 is a broadcast's or a squeeze's; where sizes must be equal (the axes a Concat
    // does not join, an RNN's initial state against the batch, a contraction's features, a
    // convolution's channels, none of which broadcasts) it is a size like any other, a batch of
    // one baked into a class token, a folded zero state, a Linear(1, 8), a Conv3d(1, 4, 3).
    const bool equal_sizes = r.kind == infer::RequirementKind::kConcatDim ||
                             r.kind == infer::RequirementKind::kInnerDim ||
                             r.kind == infer::RequirementKind::kChannels ||
                             infer::IsOperandEquality(r);
    if (!c || *c < 1 || (*c == 1 && !equal_sizes)) return none;
    const ir::Graph& g = *r.graph;
    const auto& node = g.node(r.node);
    // A literal among a shape operand's values (Expand's target, Tile's repeats, Split's sizes)
    // is recorded as the requirement's origin.
    const infer::Origin* o = inference_.OriginOf(r.origin);
    if (o != nullptr && o->IsLiteral()) {
      LiteralSource src = ShapeOperandSource(*o, LiteralFact(*o, OperandHolding(node, r.origin)));
      src.consumer = r.node;
      if (o->kind != infer::Origin::Kind::kAttribute) return src;
    }
    // A shape operand that read the size back from a tensor a literal sized.
    if (o == nullptr) {
      if (std::optional<LiteralSource> lit = ThroughShapeRead(g, r.node, *c, 0)) {
        lit->through.pop_back();  // the node itself, where it meets the dim
        lit->consumer = r.node;
        return *lit;
      }
    }
    for (const auto& in : node.input()) {
      // An operand with the size as a constant dim may carry a literal (a mask [L, 5, 1] built
      // from a Constant [1, 5] and a dynamic length L); SourceOf decides. A 1 is common on
      // axes of other operands (an LSTM's weights are [1, 4H, D]): only the operand holding it
      // on the requirement's axis is its source.
      if (!HasConstantDim(inference_.Find(in), *c)) continue;
      // (A contraction's axis differs by operand, and `axis` is the first's: there the operand
      // with a constant 1 anywhere is taken.)
      if (*c == 1 && r.axis >= 0 && r.kind != infer::RequirementKind::kInnerDim &&
          !HasConstantAt(inference_.Find(in), r.axis, 1)) {
        continue;
      }
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

  // The literal among the values of the shape operand `operand` that equals `constant`; not
  // one at a position where `kept` (the tensor being resized) has that size already.
  std::optional<LiteralSource> FromShapeOperand(std::string_view operand, int64_t constant,
                                                const infer::TensorFact* kept = nullptr) const {
    const infer::TensorFact* f = inference_.Find(operand);
    if (f == nullptr || !f->values) return std::nullopt;
    for (size_t i = 0; i < f->values->size(); ++i) {
      const infer::Element& e = (*f->values)[i];
      const infer::Origin* o = inference_.OriginOf(e.origin);
      auto v = e.value ? e.value->AsConstant() : std::nullopt;
      if (o == nullptr || !o->IsLiteral() || v != constant) continue;
      if (HasConstantAt(kept, static_cast<int64_t>(i), constant)) continue;
      return ShapeOperandSource(*o, LiteralFact(*o, f));
    }
    return std::nullopt;
  }

  // The index of `node`'s operand that sizes its output; -1 for other ops. Expand's target and
  // Tile's repeats size the output: a literal there is the source, not the tensor being
  // expanded (cls.expand(int(x.size(0)), -1, -1) on a [1, 1, D] parameter). So do Resize's
  // sizes: a trained table resampled to a literal size (a position table interpolated to the
  // example's grid) is sized by the literal, not by the table. ConstantOfShape's shape and
  // OneHot's depth size their outputs the same way (zeros(b, int(T)), one_hot(i, int(C))).
  static int SizingOperand(ir::Node node) {
    const std::string& op = node.op_type();
    const int operand = op == "Expand" || op == "Tile" || op == "OneHot" ? 1
                        : op == "Resize"                                 ? 3
                        : op == "ConstantOfShape"                        ? 0
                                                                         : -1;
    return operand < node.input_size() ? operand : -1;
  }

  // The literal among `p`'s sizing operand's values that equals `constant`, or the one that
  // sized a tensor the operand read it back from. An entry of Resize's sizes equal to the
  // resized table's own dim on that axis (its channels) keeps the table's size: that one is
  // followed to the table by the caller.
  std::optional<LiteralSource> FromSizingOperand(const ir::Graph& g, int p, int64_t constant,
                                                 int depth) const {
    const ir::Node node = g.node(p);
    const int operand = SizingOperand(node);
    if (operand < 0) return std::nullopt;
    const infer::TensorFact* kept =
        node.op_type() == "Resize" ? inference_.Find(node.input(0)) : nullptr;
    if (auto lit = FromShapeOperand(node.input(operand), constant, kept)) {
      lit->entry = p;
      return lit;
    }
    return ThroughShapeRead(g, p, constant, depth);
  }

  // The shape operand of `p` read the size back from a tensor (x.expand_as(zeros[:, 1:-1]),
  // which TorchScript writes as Expand(x, Shape(...))): that tensor holds it as a dim, and its
  // source is the literal's.
  std::optional<LiteralSource> ThroughShapeRead(const ir::Graph& g, int p, int64_t constant,
                                                int depth) const {
    const ir::Node node = g.node(p);
    const int operand = SizingOperand(node);
    if (operand < 0) return std::nullopt;
    const std::optional<std::string> read = ShapeReadWith(g, node.input(operand), constant);
    if (!read) return std::nullopt;
    LiteralSource found = SourceOf(g, *read, constant, depth + 1);
    if (found.kind == LiteralSource::Kind::kNone) return std::nullopt;
    found.through.push_back(p);
    return found;
  }

  // The tensor a Shape node read `operand`'s element equal to `constant` from, where that
  // element is no literal but a static dim read back.
  std::optional<std::string> ShapeReadWith(const ir::Graph& g, std::string_view operand,
                                           int64_t constant) const {
    const infer::TensorFact* f = inference_.Find(operand);
    if (f == nullptr || !f->values) return std::nullopt;
    for (const infer::Element& e : *f->values) {
      const infer::Origin* o = inference_.OriginOf(e.origin);
      if (o == nullptr || o->kind != infer::Origin::Kind::kShapeOf || o->graph != &g ||
          o->node < 0 || !e.value || e.value->AsConstant() != constant) {
        continue;
      }
      const ir::Node shape = g.node(o->node);
      if (shape.op_type() == "Shape" && shape.input_size() > 0) {
        return std::string(shape.input(0));
      }
    }
    return std::nullopt;
  }

  // The longer static dim of `slice`'s data that its output keeps `constant` of, where the
  // kept length follows the data's: literal bounds, steps of 1, one bound counted from the start
  // and the other from the end (x[:, 1:-1] keeps T - 2, x[:, 1:] T - 1). Bounds both counted
  // from one end (x[:, :3], x[:, -3:]) keep their own length whatever the data's: the bounds
  // are then the source, not the data.
  std::optional<int64_t> SlicedFrom(ir::Node slice, int64_t constant) const {
    // An end at or past this is "to the end" (INT_MAX, as exporters write x[:, 1:]).
    constexpr int64_t kToTheEnd = int64_t{1} << 31;
    if (slice.input_size() < 3) return std::nullopt;
    auto literals = [&](int i) -> std::optional<std::vector<int64_t>> {
      if (i >= slice.input_size() || slice.input(i).empty()) return std::vector<int64_t>{};
      const infer::TensorFact* f = inference_.Find(slice.input(i));
      if (f == nullptr || !f->values) return std::nullopt;
      std::vector<int64_t> out;
      for (const infer::Element& e : *f->values) {
        const infer::Origin* o = inference_.OriginOf(e.origin);
        const std::optional<int64_t> v = e.value ? e.value->AsConstant() : std::nullopt;
        if (o == nullptr || !o->IsLiteral() || !v) return std::nullopt;
        out.push_back(*v);
      }
      return out;
    };
    const auto starts = literals(1), ends = literals(2), axes = literals(3), steps = literals(4);
    if (!starts || !ends || !axes || !steps || starts->size() != ends->size()) {
      return std::nullopt;
    }
    const infer::TensorFact* in = inference_.Find(slice.input(0));
    const infer::TensorFact* out = inference_.Find(slice.output(0));
    if (in == nullptr || out == nullptr || !in->shape || !out->shape ||
        in->shape->size() != out->shape->size()) {
      return std::nullopt;
    }
    const auto rank = static_cast<int64_t>(in->shape->size());
    for (size_t k = 0; k < starts->size(); ++k) {
      if (!steps->empty() && (k >= steps->size() || (*steps)[k] != 1)) continue;
      if (!axes->empty() && k >= axes->size()) continue;
      int64_t axis = axes->empty() ? static_cast<int64_t>(k) : (*axes)[k];
      if (axis < 0) axis += rank;
      if (axis < 0 || axis >= rank) continue;
      const bool start_from_end = (*starts)[k] < 0;
      const bool end_from_end = (*ends)[k] < 0 || (*ends)[k] >= kToTheEnd;
      if (start_from_end == end_from_end) continue;
      const sym::MaybeExpr& o = (*out->shape)[axis];
      const sym::MaybeExpr& i = (*in->shape)[axis];
      const std::optional<int64_t> kept = o ? o->AsConstant() : std::nullopt;
      const std::optional<int64_t> whole = i ? i->AsConstant() : std::nullopt;
      if (kept == constant && whole && *whole > constant) return whole;
    }
    return std::nullopt;
  }

  // The literal's own tensor (a Constant's output, an initializer), whose values the finding
  // states: not the operand's it is concatenated into ([N, C] ++ [32, 32] holds unknown
  // entries); the operand where the literal has no tensor of its own.
  const infer::TensorFact* LiteralFact(const infer::Origin& origin,
                                       const infer::TensorFact* operand) const {
    const infer::TensorFact* own = nullptr;
    if (origin.kind == infer::Origin::Kind::kConstantNode && origin.graph != nullptr) {
      own = inference_.FindIn(*origin.graph, origin.graph->node(origin.node).output(0));
    } else if (origin.kind == infer::Origin::Kind::kInitializer && origin.graph != nullptr) {
      own = inference_.FindIn(*origin.graph, origin.name);
    }
    return own != nullptr && own->values ? own : operand;
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

std::optional<LiteralSource> SliceLengthLiteral(const infer::Inference& inference,
                                                const ir::Graph& graph, int slice, int64_t length) {
  // Bounds are a few scalars apart from their literals; a longer search reads the model.
  constexpr int kMaxVisits = 32;
  const ir::Node node = graph.node(slice);
  if (node.op_type() != "Slice" || node.input_size() < 3 || length < 2) return std::nullopt;
  std::vector<std::string> queue = {std::string(node.input(1)), std::string(node.input(2))};
  absl::flat_hash_set<std::string> seen(queue.begin(), queue.end());
  for (size_t i = 0; i < queue.size() && static_cast<int>(i) < kMaxVisits; ++i) {
    const infer::TensorFact* fact = inference.FindIn(graph, queue[i]);
    // Only small integer tensors whose values the engine tracks: a data tensor is no bound.
    if (fact == nullptr || !fact->values) continue;
    for (const infer::Element& e : *fact->values) {
      const infer::Origin* o = inference.OriginOf(e.origin);
      if (o == nullptr || !o->IsLiteral() || o->kind == infer::Origin::Kind::kAttribute ||
          !e.value || e.value->AsConstant() != length) {
        continue;
      }
      LiteralSource src = ShapeOperandSource(*o, fact);
      src.consumer = slice;
      src.entry = slice;
      return src;
    }
    const int p = graph.Producer(queue[i]);
    if (p < 0) continue;
    const ir::Node producer = graph.node(p);
    if (producer.op_type() == "Shape" || producer.op_type() == "Size") continue;
    for (const auto& in : producer.input()) {
      if (!in.empty() && seen.insert(std::string(in)).second) queue.emplace_back(in);
    }
  }
  // x[:, 2:10]: no literal is the length, but literals alone bound it; the end names them.
  const infer::TensorFact* starts = inference.FindIn(graph, node.input(1));
  const infer::TensorFact* ends = inference.FindIn(graph, node.input(2));
  auto literal = [&](const infer::Element& e) {
    const infer::Origin* o = inference.OriginOf(e.origin);
    const std::optional<int64_t> v = e.value ? e.value->AsConstant() : std::nullopt;
    return o != nullptr && o->IsLiteral() && o->kind != infer::Origin::Kind::kAttribute && v &&
           *v != std::numeric_limits<int64_t>::max() && *v != std::numeric_limits<int64_t>::min();
  };
  if (starts == nullptr || ends == nullptr || !starts->values || !ends->values ||
      ends->values->empty() ||
      !std::all_of(starts->values->begin(), starts->values->end(), literal) ||
      !std::all_of(ends->values->begin(), ends->values->end(), literal)) {
    return std::nullopt;
  }
  const infer::Origin* o = inference.OriginOf(ends->values->front().origin);
  LiteralSource src = ShapeOperandSource(*o, ends);
  src.consumer = slice;
  src.entry = slice;
  return src;
}

std::optional<std::string> TrainedTableMeeting(const ir::Graph& graph, int node, int64_t size,
                                               const ParameterSignature& signature) {
  // Nodes downstream searched: an attention's bias meets its logits a few nodes on.
  constexpr int kMaxVisits = 48;
  auto table = [&](std::string_view value) -> std::optional<std::string> {
    const auto* t = graph.Initializer(value);
    if (t == nullptr || !IsFloating(t->data_type()) || t->dims_size() < 2 ||
        std::find(t->dims().begin(), t->dims().end(), size) == t->dims().end()) {
      return std::nullopt;
    }
    const std::string name(value);
    if (!signature.Lists(name).value_or(IsParameterName(name))) return std::nullopt;
    return name;
  };
  static constexpr std::string_view kLookups[] = {"Gather",    "Reshape",  "Transpose",
                                                  "Unsqueeze", "Squeeze",  "Slice",
                                                  "Expand",    "Identity", "GatherND"};
  // A table meets what it is added to, scaled by or concatenated with; a layer's weight,
  // which a MatMul or a Conv contracts over, sizes features, whatever its dims happen to equal.
  static constexpr std::string_view kMeets[] = {"Add", "Sub", "Mul", "Div", "Concat", "Where"};
  std::vector<int> queue = {node};
  absl::flat_hash_set<int> seen = {node};
  for (size_t i = 0; i < queue.size() && static_cast<int>(i) < kMaxVisits; ++i) {
    const ir::Node n = graph.node(queue[i]);
    const bool meets =
        std::find(std::begin(kMeets), std::end(kMeets), n.op_type()) != std::end(kMeets);
    for (const auto& in : n.input()) {
      if (!meets || in.empty()) continue;
      if (auto found = table(in)) return found;
      const int p = graph.Producer(in);
      if (p < 0) continue;
      const ir::Node producer = graph.node(p);
      if (std::find(std::begin(kLookups), std::end(kLookups), producer.op_type()) ==
              std::end(kLookups) ||
          producer.input_size() == 0) {
        continue;
      }
      if (auto found = table(producer.input(0))) return found;
    }
    for (const auto& out : n.output()) {
      if (out.empty()) continue;
      for (int c : graph.Consumers(out)) {
        if (seen.insert(c).second) queue.push_back(c);
      }
    }
  }
  return std::nullopt;
}

bool IsFloating(int32_t data_type) {
  using ONNX_NAMESPACE::TensorProto;
  return data_type == TensorProto::FLOAT || data_type == TensorProto::FLOAT16 ||
         data_type == TensorProto::BFLOAT16 || data_type == TensorProto::DOUBLE;
}

LiteralSource LiteralSideOf(const infer::Inference& inference,
                            const infer::Requirement& requirement,
                            const std::map<std::string, int64_t>& specialized,
                            const ParameterSignature& signature) {
  LiteralSource src = Tracer(inference).SideOf(requirement);
  if (src.kind == LiteralSource::Kind::kWeight &&
      !IsTrainedParameter(src, requirement, specialized, signature)) {
    src.kind = LiteralSource::Kind::kConstant;
  }
  return src;
}

}  // namespace shapelint::lint
