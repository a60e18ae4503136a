// SL005's repairs (rules/folded_constant.cc finds): a literal shape operand computed from the
// inputs' dims, or a tensor folded at the example size rebuilt from its pattern.
#include "folded_constant_fix.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "lint/fix_builder.h"
#include "lint/tensor_values.h"

namespace shapelint::lint {
namespace {

// The repair of a shape operand (Expand's shape, Tile's repeats): each entry a pin of the cause
// holds at a literal is computed instead from the dim the pin says it stands for. The entry is
// the one that gives the pin's constant at the output (for Tile, times the input's dim there);
// several such entries are ambiguous and left alone.
class OperandRepair {
 public:
  OperandRepair(const Analysis& analysis, const Cause& cause)
      : analysis_(analysis), cause_(cause), src_(cause.literal) {}

  absl::StatusOr<FixIt> Build() {
    const ir::Graph& g = analysis_.model().graph();
    const int at = EntryNode(g);
    if (at < 0) return absl::NotFoundError("the literal is a tensor of its own");
    const ir::Node entry = g.node(at);
    // Expand's shape and Tile's repeats are input 1, Resize's sizes input 3.
    const int operand = entry.op_type() == "Resize" ? 3 : 1;
    if (entry.input_size() <= operand || entry.input(operand).empty()) {
      return absl::NotFoundError(absl::StrCat("the ", entry.op_type(), " has no shape operand"));
    }
    // Through other ops (TorchScript's Where(Equal(shape, -1), 1, shape) for expand's -1), the
    // engine's values of the operand itself are what is rebuilt.
    const bool direct = entry.input(operand) == src_.name;
    if (!ReadValues(direct ? src_.name : entry.input(operand), direct)) {
      return absl::FailedPreconditionError(
          "the shape reaches the node through other ops that compute it from the graph");
    }
    tile_ = entry.op_type() == "Tile";
    in_dims_ =
        analysis_.DimsAt(entry.input(0), analysis_.witness()).value_or(std::vector<int64_t>{});
    if (tile_ && in_dims_.size() != values_.size()) {
      return absl::FailedPreconditionError("the Tile input's dims at the witness are not known");
    }
    std::vector<sym::MaybeExpr> entries(values_.size());
    for (const Pin* pin : cause_.pins) {
      if (auto st = Assign(*pin->requirement, entries); !st.ok()) return st;
    }
    FixBuilder b(analysis_, at, Applicability::kSafe, "");
    std::vector<FixBuilder::Entry> parts;
    std::vector<std::string> text;
    for (size_t k = 0; k < entries.size(); ++k) {
      if (!entries[k]) {
        parts.emplace_back(values_[k]);
        text.push_back(absl::StrCat(values_[k]));
        continue;
      }
      std::optional<std::string> computed = b.Compute(*entries[k]);
      if (!computed) {
        return absl::FailedPreconditionError(absl::StrCat(
            entries[k]->ToString(kMaxExprText), " is not computed from the inputs' dims alone"));
      }
      parts.emplace_back(*computed);
      text.push_back(entries[k]->ToString(kMaxExprText));
    }
    b.Rewire(at, operand, b.Vector(parts));
    b.DropComputationIfUnread(entry.input(operand));
    FixIt fix = std::move(b).Take();
    fix.description = absl::StrCat(entry.op_type(), "'s ",
                                   tile_          ? "repeats follow"
                                   : operand == 3 ? "sizes follow"
                                                  : "shape follows",
                                   " the inputs' dims: [", absl::StrJoin(text, ", "), "]");
    return fix;
  }

 private:
  // The Expand, Tile or Resize the literal sizes: where blame traced it, or the failing node
  // itself when the literal is its shape operand (Expand(x, [1, 2, 16]) failing at the Expand).
  int EntryNode(const ir::Graph& g) const {
    if (src_.graph != &g) return -1;
    if (src_.entry >= 0) return src_.entry;
    for (int n : {cause_.node, src_.consumer}) {
      if (n < 0 || cause_.graph != &g) continue;
      const ir::Node node = g.node(n);
      if ((node.op_type() == "Expand" || node.op_type() == "Tile") && node.input_size() > 1 &&
          node.input(1) == src_.name) {
        return n;
      }
    }
    return -1;
  }

  // The operand's values: blame's for the literal itself, else the engine's, all constants.
  bool ReadValues(std::string_view operand, bool literal) {
    values_ = literal ? src_.values : std::vector<int64_t>{};
    if (!values_.empty()) return true;
    const infer::TensorFact* fact = analysis_.inference().Find(operand);
    if (fact == nullptr || !fact->values) return false;
    for (const infer::Element& e : *fact->values) {
      auto c = e.value ? e.value->AsConstant() : std::nullopt;
      if (!c) return false;
      values_.push_back(*c);
    }
    return !values_.empty();
  }

  // The entry the requirement's literal side came from gets its symbolic side.
  absl::Status Assign(const infer::Requirement& r, std::vector<sym::MaybeExpr>& entries) const {
    const auto lc = r.lhs.AsConstant(), rc = r.rhs.AsConstant();
    if (lc.has_value() == rc.has_value()) {
      return absl::FailedPreconditionError(
          "the failing requirement is not a literal against a dim");
    }
    const int64_t constant = lc ? *lc : *rc;
    const sym::Expr dim = lc ? r.rhs : r.lhs;
    std::optional<size_t> at;
    bool several = false;
    for (size_t k = 0; k < values_.size(); ++k) {
      const int64_t out = tile_ ? values_[k] * in_dims_[k] : values_[k];
      if (out != constant) continue;
      several = at.has_value();
      if (!at) at = k;
    }
    // Where the output goes straight into the node that requires it, at the same rank, the
    // requirement's axis is the entry's ([1, 8, 6, 6] resized and added to x: the H is entry 2).
    if (several) {
      const bool straight = r.graph == cause_.graph && r.axis >= 0 &&
                            r.axis < static_cast<int64_t>(values_.size()) && src_.through.empty() &&
                            FeedsDirectly(r.node, r.axis);
      const size_t k = static_cast<size_t>(r.axis);
      if (!straight || (tile_ ? values_[k] * in_dims_[k] : values_[k]) != constant) {
        return absl::FailedPreconditionError(
            absl::StrCat("several entries give ", constant, "; which stands for ",
                         dim.ToString(kMaxExprText), " is not known"));
      }
      at = k;
    }
    if (!at) return absl::FailedPreconditionError("no entry gives the failing size");
    sym::MaybeExpr value = dim;
    if (tile_ && in_dims_[*at] != 1) value = sym::FloorDiv(dim, sym::Expr::Constant(in_dims_[*at]));
    if (!value || (entries[*at] && entries[*at] != value)) {
      return absl::FailedPreconditionError("two requirements disagree on an entry");
    }
    entries[*at] = value;
    return absl::OkStatus();
  }

  // True when node `consumer` reads the entry node's output, of the rank of the shape operand
  // (so that its axis `axis` is the operand's entry `axis`).
  bool FeedsDirectly(int consumer, int64_t axis) const {
    const ir::Graph& g = *cause_.graph;
    const int entry = src_.entry >= 0 ? src_.entry : cause_.node;
    if (entry < 0 || consumer < 0 || g.node(entry).output_size() < 1) return false;
    const std::string_view out = g.node(entry).output(0);
    const infer::TensorFact* f = analysis_.inference().Find(out);
    const ir::Node c = g.node(consumer);
    bool reads = false;
    for (int i = 0; i < c.input_size(); ++i) reads = reads || c.input(i) == out;
    return reads && f != nullptr && f->shape && f->rank() == static_cast<int64_t>(values_.size()) &&
           axis < f->rank();
  }

  const Analysis& analysis_;
  const Cause& cause_;
  const LiteralSource& src_;
  bool tile_ = false;
  std::vector<int64_t> values_;
  std::vector<int64_t> in_dims_;
};

// Literal tensors past this are not rebuilt: a table folded to the example length is small,
// and the loader keeps the values of small tensors only.
constexpr int64_t kMaxTableElements = 1 << 16;
constexpr int64_t kMinRangeOpset = 11;
// Integers a float32 holds exactly: a rebuilt arange is exact below it.
constexpr double kMaxExactFloat = 1 << 24;

// The repair of a tensor folded at the example size (an arange, a mask, a tensor of ones, a
// row repeated for the batch): where its values follow a pattern along the axes that were
// sized at the example, the tensor is computed from the dims those axes stand for, equal to the
// literal at the export sizes and following the pattern at the others:
//  - affine: base + step * i along each sized axis (arange, meshgrid; a step of 0 repeats a
//    row: ones, zeros, a class token expanded to the batch);
//  - by diagonal: one value below, one on and one above the diagonal of two sized axes that
//    stand for the same dim (eye, a causal mask).
// A table of other values (a position table sliced to the example length, a sinusoid) says
// nothing of its rows past the example: it is left, with that reason.
class TableRepair {
 public:
  TableRepair(const Analysis& analysis, const Cause& cause)
      : analysis_(analysis), cause_(cause), src_(cause.literal) {}

  absl::StatusOr<FixIt> Build() {
    const ir::Graph& g = analysis_.model().graph();
    if (src_.graph != &g) return Unfixable("the literal is in a subgraph");
    auto values = ReadLiteral(g);
    if (!values.ok())
      return Unfixable(absl::StrCat("the literal's values: ", values.status().message()));
    t_ = *std::move(values);
    // How the literal is read comes first: a size operand is left whatever its axes.
    const std::vector<int> readers = Readers(g);
    if (readers.empty()) return Unfixable("nothing in the main graph reads the literal");
    for (int n : readers) {
      if (ReadsAsSizes(g.node(n))) {
        return Unfixable(absl::StrCat("the literal gives ", g.node(n).op_type(),
                                      " sizes or axes, whose count the graph fixes elsewhere"));
      }
    }
    if (auto st = FindSizedAxes(); !st.ok()) return st;
    if (PerChannel()) {
      return Unfixable(
          "a per-channel constant built in forward (a normalisation's mean or std) fixes the "
          "channels by design, as a weight does: the declaration is what is wrong");
    }
    FixBuilder b(analysis_, readers.front(), Applicability::kSafe, "");
    if (b.opset() < kMinRangeOpset) return Unfixable("Range needs opset 11");
    std::optional<std::string> rebuilt;
    std::string pattern;
    if (Affine()) {
      rebuilt = BuildAffine(b);
      pattern = AffineText();
    } else if (ByDiagonal()) {
      rebuilt = BuildByDiagonal(b);
      pattern = "its values below, on and above the diagonal";
    } else {
      return Unfixable(
          "its values follow no pattern along the axes sized at the example (a table's rows past "
          "the example are not in the model)");
    }
    if (!rebuilt) return Unfixable("a sized axis is not computed from the inputs' dims alone");
    for (int n : readers) {
      const ir::Node node = g.node(n);
      for (int i = 0; i < node.input_size(); ++i) {
        if (node.input(i) == src_.name) b.Rewire(n, i, *rebuilt);
      }
    }
    if (src_.node >= 0) b.DropIfUnread(src_.node);
    FixIt fix = std::move(b).Take();
    for (const Pin* pin : cause_.pins) {
      const infer::Requirement& r = *pin->requirement;
      if (r.kind == infer::RequirementKind::kDeclaredShape && r.axis >= 0) {
        fix.stale_declarations.push_back({r.value, static_cast<int>(r.axis)});
      }
    }
    std::vector<std::string> axes;
    for (const auto& [axis, dim] : sized_) {
      axes.push_back(absl::StrCat(axis, " = ", dim.ToString(kMaxExprText)));
    }
    fix.description =
        absl::StrCat("the folded [", absl::StrJoin(t_.dims, ", "), "] is computed with axis ",
                     absl::StrJoin(axes, ", axis "), ", following ", pattern);
    return fix;
  }

 private:
  static absl::Status Unfixable(const std::string& why) {
    return absl::FailedPreconditionError(why);
  }

  absl::StatusOr<TensorValues> ReadLiteral(const ir::Graph& g) const {
    if (src_.node < 0) {
      const auto* init = g.Initializer(src_.name);
      if (init == nullptr) return Unfixable("not an initializer");
      return ReadTensorValues(*init, kMaxTableElements);
    }
    ONNX_NAMESPACE::AttributeProto scratch;
    auto tensor = g.node(src_.node).TensorAttribute("value", scratch);
    if (!tensor || *tensor == nullptr) return Unfixable("a Constant without a tensor value");
    return ReadTensorValues(**tensor, kMaxTableElements);
  }

  // True for the shape of a per-channel constant, [C, 1, 1] or [1, C, 1, 1]: one sized axis, of
  // an image's rank, every other dim 1.
  bool PerChannel() const {
    constexpr size_t kImageRank = 3;  // [C, 1, 1] at least
    if (t_.dims.size() < kImageRank || sized_.size() != 1) return false;
    for (size_t a = 0; a < t_.dims.size(); ++a) {
      if (!IsSized(a) && t_.dims[a] != 1) return false;
    }
    return true;
  }

  // True when `node` reads the literal as sizes, axes or counts rather than as data: Split's
  // chunk sizes fix its number of outputs, which a rebuilt tensor cannot follow.
  bool ReadsAsSizes(const ir::Node& node) const {
    static const auto* const kSizeInputs =
        new std::map<std::string_view, int>{{"Split", 1},   {"Reshape", 1},         {"Expand", 1},
                                            {"Tile", 1},    {"Slice", 1},           {"Pad", 1},
                                            {"Resize", 1},  {"Upsample", 1},        {"TopK", 1},
                                            {"Squeeze", 1}, {"Unsqueeze", 1},       {"OneHot", 1},
                                            {"CumSum", 1},  {"ConstantOfShape", 0}, {"Range", 0}};
    auto it = kSizeInputs->find(node.op_type());
    if (it == kSizeInputs->end()) return false;
    for (int i = it->second; i < node.input_size(); ++i) {
      if (node.input(i) == src_.name) return true;
    }
    return false;
  }

  // The main graph's nodes that read the literal, in order.
  std::vector<int> Readers(const ir::Graph& g) const {
    auto consumers = g.Consumers(src_.name);
    std::vector<int> out(consumers.begin(), consumers.end());
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
  }

  // Each pin relates a size of the literal (a constant) to the dim it stands for; the literal's
  // axis of that size is the one sized at the example. Axes of equal size are told apart by
  // where the failing node meets them, when the literal reaches it unchanged.
  absl::Status FindSizedAxes() {
    for (const Pin* pin : cause_.pins) {
      const infer::Requirement& r = *pin->requirement;
      const auto lc = r.lhs.AsConstant(), rc = r.rhs.AsConstant();
      if (lc.has_value() == rc.has_value()) {
        return Unfixable("the failing requirement is not a literal against a dim");
      }
      const int64_t size = lc ? *lc : *rc;
      const sym::Expr dim = lc ? r.rhs : r.lhs;
      std::vector<int> axes;
      for (size_t a = 0; a < t_.dims.size(); ++a) {
        if (t_.dims[a] == size) axes.push_back(static_cast<int>(a));
      }
      // A declaration further down says nothing of which of several equal axes it came
      // through (an LSTM's state [1, 1, 16] at batch 1): the pins at the reader tell.
      const bool downstream =
          r.kind == infer::RequirementKind::kDeclaredShape && r.node != src_.consumer;
      if (axes.size() > 1 && downstream) continue;
      if (axes.size() > 1) axes = AxesMet(r, size, dim, axes);
      if (axes.empty()) return Unfixable(absl::StrCat("no axis of the literal is ", size, " long"));
      for (int a : axes) {
        auto [it, fresh] = sized_.try_emplace(a, dim);
        if (!fresh && it->second != dim) return Unfixable("two dims claim one axis");
      }
    }
    return sized_.empty() ? Unfixable("no axis sized at the example") : absl::OkStatus();
  }

  // Of `axes`, all the same size: those standing for `dim` together (eye(n)'s two), or the one
  // the failing node's axis meets, right-aligned as broadcasting aligns them.
  std::vector<int> AxesMet(const infer::Requirement& r, int64_t size, const sym::Expr& dim,
                           const std::vector<int>& axes) const {
    const bool all_sized = std::all_of(cause_.pins.begin(), cause_.pins.end(), [&](const Pin* p) {
      return p->requirement->lhs == dim || p->requirement->rhs == dim;
    });
    if (all_sized && size > 1 && axes.size() == 2) return axes;
    const infer::TensorFact* out = analysis_.inference().Find(r.value);
    if (!src_.through.empty() || r.axis < 0 || out == nullptr || !out->shape) return {};
    // An equality an op demands of one operand's axis (an RNN's initial state against the
    // batch) names that axis of the operand; a broadcast's names the output's, right-aligned.
    const int64_t a = infer::IsOperandEquality(r)
                          ? r.axis
                          : r.axis - static_cast<int64_t>(out->shape->size() - t_.dims.size());
    if (a < 0 || a >= static_cast<int64_t>(t_.dims.size()) || t_.dims[a] != size) return {};
    return {static_cast<int>(a)};
  }

  bool IsSized(size_t axis) const { return sized_.contains(static_cast<int>(axis)); }

  // The flat index of `index` with every sized axis set to `at` (others kept), or with only
  // `axis` at 1 when `axis` >= 0.
  int64_t FlatIndex(std::vector<int64_t> index, int axis) const {
    for (size_t a = 0; a < index.size(); ++a) {
      if (IsSized(a)) index[a] = static_cast<int>(a) == axis ? 1 : 0;
    }
    int64_t flat = 0;
    for (size_t a = 0; a < index.size(); ++a) flat = flat * t_.dims[a] + index[a];
    return flat;
  }

  // Calls `visit(flat, index)` for every element.
  template <typename Visit>
  bool EveryElement(Visit visit) const {
    std::vector<int64_t> index(t_.dims.size(), 0);
    for (int64_t flat = 0; flat < static_cast<int64_t>(t_.values.size()); ++flat) {
      if (!visit(flat, index)) return false;
      for (int a = static_cast<int>(index.size()) - 1; a >= 0 && ++index[a] == t_.dims[a]; --a) {
        index[a] = 0;
      }
    }
    return true;
  }

  // The position of `index` on the axes that are not sized, row-major: where its base and
  // steps are kept.
  int64_t RestIndex(const std::vector<int64_t>& index) const {
    int64_t rest = 0;
    for (size_t a = 0; a < index.size(); ++a) {
      if (!IsSized(a)) rest = rest * t_.dims[a] + index[a];
    }
    return rest;
  }

  // The values are base + sum of step_k * i_k over the sized axes k, base and steps taken over
  // the other axes from the elements at 0 (and 1) of the sized axes; kept for BuildAffine.
  bool Affine() {
    base_.clear();
    steps_.clear();
    EveryElement([&](int64_t flat, const std::vector<int64_t>& index) {
      if (FlatIndex(index, -1) != flat) return true;  // not at 0 of every sized axis
      base_.push_back(t_.values[flat]);
      for (const auto& [axis, dim] : sized_) {
        steps_[axis].push_back(
            t_.dims[axis] > 1 ? t_.values[FlatIndex(index, axis)] - t_.values[flat] : 0.0);
      }
      return true;
    });
    bool any_step = false;
    for (const auto& [axis, step] : steps_) {
      any_step = any_step || std::any_of(step.begin(), step.end(), [](double v) { return v != 0; });
    }
    if (any_step && t_.data_type == ONNX_NAMESPACE::TensorProto::BOOL) return false;
    // The graph computes the range in the tensor's type: a float one is exact for integers only.
    if (any_step && t_.data_type == ONNX_NAMESPACE::TensorProto::FLOAT) {
      auto exact = [](double v) { return v == std::floor(v) && std::abs(v) < kMaxExactFloat; };
      if (!std::all_of(base_.begin(), base_.end(), exact)) return false;
      for (const auto& [axis, step] : steps_) {
        if (!std::all_of(step.begin(), step.end(), exact)) return false;
      }
    }
    // A step from infinities is NaN, which matches nothing.
    return EveryElement([&](int64_t flat, const std::vector<int64_t>& index) {
      const int64_t rest = RestIndex(index);
      double predicted = base_[rest];
      for (const auto& [axis, step] : steps_) {
        if (step[rest] != 0) predicted += step[rest] * static_cast<double>(index[axis]);
      }
      return predicted == t_.values[flat];
    });
  }

  std::string AffineText() const {
    std::vector<std::string> parts;
    for (const auto& [axis, step] : steps_) {
      const bool repeated = std::all_of(step.begin(), step.end(), [](double v) { return v == 0; });
      parts.push_back(repeated ? absl::StrCat("its values repeated along axis ", axis)
                               : absl::StrCat("a range along axis ", axis));
    }
    return absl::StrJoin(parts, " and ");
  }

  // Two sized axes standing for one dim, and values that depend only on where an element is
  // against the diagonal, the same across the other axes.
  bool ByDiagonal() {
    if (sized_.size() != 2) return false;
    const auto i_axis = sized_.begin()->first, j_axis = std::next(sized_.begin())->first;
    if (sized_.begin()->second != std::next(sized_.begin())->second) return false;
    if (t_.dims[i_axis] < 2) return false;
    std::map<int, double> by_side;  // -1 below, 0 on, 1 above
    const bool ok = EveryElement([&](int64_t flat, const std::vector<int64_t>& index) {
      const int side = index[j_axis] < index[i_axis] ? -1 : index[j_axis] == index[i_axis] ? 0 : 1;
      auto [it, fresh] = by_side.try_emplace(side, t_.values[flat]);
      return fresh || it->second == t_.values[flat] ||
             (std::isnan(it->second) && std::isnan(t_.values[flat]));
    });
    if (!ok || by_side.size() != 3) return false;
    diagonal_ = {by_side[-1], by_side[0], by_side[1]};
    return true;
  }

  // Expand's shape: per axis, the dim a sized axis stands for, else 1, which keeps the size
  // the rebuilt values have there (a literal 8 in the shape would be a literal again).
  std::optional<std::string> FullShape(FixBuilder& b, std::map<int, std::string>& sizes) const {
    std::vector<FixBuilder::Entry> entries;
    for (size_t a = 0; a < t_.dims.size(); ++a) {
      auto it = sized_.find(static_cast<int>(a));
      if (it == sized_.end()) {
        entries.emplace_back(int64_t{1});
        continue;
      }
      std::optional<std::string> n = b.Compute(it->second);
      if (!n) return std::nullopt;
      sizes[it->first] = *n;
      entries.emplace_back(*n);
    }
    return b.Vector(entries);
  }

  // 0, 1, ... up to the 1-D size `n`, as int64.
  static std::string Range(FixBuilder& b, const std::string& n) {
    const std::string limit = b.Add("Squeeze", {n}, {}, "limit");
    return b.Add("Range", {b.Ints({0}, true), limit, b.Ints({1}, true)}, {}, "range");
  }

  // `range` reshaped to the literal's rank, along `axis`, cast to the literal's type.
  std::string Along(FixBuilder& b, const std::string& range, int axis) const {
    std::vector<int64_t> shape(t_.dims.size(), 1);
    shape[axis] = -1;
    std::string v = b.Add("Reshape", {range, b.Ints(shape)}, {}, "along");
    if (t_.data_type != ONNX_NAMESPACE::TensorProto::INT64) {
      v = b.Add("Cast", {v}, {{{"to", t_.data_type}}, {}}, "along");
    }
    return v;
  }

  // The literal's dims with every sized axis 1.
  std::vector<int64_t> RestDims() const {
    std::vector<int64_t> dims = t_.dims;
    for (const auto& [axis, dim] : sized_) dims[axis] = 1;
    return dims;
  }

  std::optional<std::string> BuildAffine(FixBuilder& b) const {
    std::map<int, std::string> sizes;
    const std::optional<std::string> shape = FullShape(b, sizes);
    if (!shape) return std::nullopt;
    std::string acc = b.Tensor(t_.data_type, RestDims(), RawData(t_.data_type, base_));
    for (const auto& [axis, step] : steps_) {
      if (std::all_of(step.begin(), step.end(), [](double v) { return v == 0; })) continue;
      const std::string along = Along(b, Range(b, sizes.at(axis)), axis);
      const std::string k = b.Tensor(t_.data_type, RestDims(), RawData(t_.data_type, step));
      acc = b.Add("Add", {acc, b.Add("Mul", {k, along})}, {}, "table");
    }
    return b.Add("Expand", {acc, *shape}, {}, "table");
  }

  std::optional<std::string> BuildByDiagonal(FixBuilder& b) const {
    std::map<int, std::string> sizes;
    const std::optional<std::string> shape = FullShape(b, sizes);
    if (!shape) return std::nullopt;
    const int i_axis = sized_.begin()->first;
    const std::string range = Range(b, sizes.at(i_axis));
    const std::string rows = b.Add("Reshape", {range, b.Ints({-1, 1})}, {}, "rows");
    const std::string cols = b.Add("Reshape", {range, b.Ints({1, -1})}, {}, "cols");
    // ONNX Runtime has no Where of bools: a bool mask is chosen as int64 and cast.
    const bool as_bool = t_.data_type == ONNX_NAMESPACE::TensorProto::BOOL;
    const int32_t chosen = as_bool ? ONNX_NAMESPACE::TensorProto::INT64 : t_.data_type;
    auto scalar = [&](double v) { return b.Tensor(chosen, {}, RawData(chosen, {v})); };
    const std::string on_or_above =
        b.Add("Where", {b.Add("Equal", {cols, rows}), scalar(diagonal_[1]), scalar(diagonal_[2])});
    std::string square = b.Add(
        "Where", {b.Add("Less", {cols, rows}), scalar(diagonal_[0]), on_or_above}, {}, "mask");
    if (as_bool) square = b.Add("Cast", {square}, {{{"to", t_.data_type}}, {}}, "mask");
    // [n, n] placed at the sized axes of the literal's rank, then expanded to its other dims.
    if (t_.dims.size() != 2) {
      std::vector<FixBuilder::Entry> entries;
      for (size_t a = 0; a < t_.dims.size(); ++a) {
        if (IsSized(a)) {
          entries.emplace_back(sizes.at(static_cast<int>(a)));
        } else {
          entries.emplace_back(int64_t{1});
        }
      }
      const std::string to = b.Vector(entries);
      return b.Add("Expand", {b.Add("Reshape", {square, to}), *shape}, {}, "table");
    }
    return square;
  }

  const Analysis& analysis_;
  const Cause& cause_;
  const LiteralSource& src_;
  TensorValues t_;
  std::map<int, sym::Expr> sized_;  // literal axis -> the dim it stands for
  std::vector<double> base_;
  std::map<int, std::vector<double>> steps_;  // by sized axis
  std::array<double, 3> diagonal_{};          // below, on, above
};

}  // namespace

absl::StatusOr<FixIt> RepairFoldedConstant(const Analysis& analysis, const Cause& cause) {
  absl::StatusOr<FixIt> fix = OperandRepair(analysis, cause).Build();
  // A tensor of its own, not a shape operand (NotFound): rebuilt from its pattern, if it has one.
  if (!fix.ok() && absl::IsNotFound(fix.status())) fix = TableRepair(analysis, cause).Build();
  return fix;
}

}  // namespace shapelint::lint
