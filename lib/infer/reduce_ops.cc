// Reductions and contractions: Reduce* (axes as an attribute before opset 13 for ReduceSum and
// 18 for the others, as an input since), ArgMax/ArgMin, Einsum and Det. ReduceSum, ReduceProd,
// ReduceMin and ReduceMax also compute the values of small integer tensors: ReduceProd over a
// slice of a shape is how exporters compute a flattened size.
#include <algorithm>
#include <cctype>
#include <map>

#include "absl/strings/str_cat.h"
#include "infer/op_context.h"
#include "infer/ops.h"
#include "infer/tensor_util.h"

namespace shapelint::infer {
namespace {

using ONNX_NAMESPACE::TensorProto;
using sym::Expr;
using sym::MaybeExpr;

// Folds the elements of each reduced group; nullopt where the op has no value-level model.
std::optional<std::vector<Element>> ReduceValues(const std::string& op, const TensorFact& x,
                                                 const std::vector<bool>& reduced) {
  if (op != "ReduceSum" && op != "ReduceProd" && op != "ReduceMin" && op != "ReduceMax") {
    return std::nullopt;
  }
  auto dense = Dense(x);
  if (!dense) return std::nullopt;
  // Output index = input coordinates with the reduced ones set to 0, in the keepdims shape.
  std::vector<int64_t> kept_dims = dense->dims;
  for (size_t k = 0; k < kept_dims.size(); ++k) {
    if (reduced[k]) kept_dims[k] = 1;
  }
  int64_t count = 1;
  for (int64_t d : kept_dims) count *= d;
  std::vector<std::vector<const Element*>> groups(count);
  const std::vector<int64_t> strides = Strides(kept_dims);
  for (size_t i = 0; i < dense->values->size(); ++i) {
    std::vector<int64_t> c = Unravel(static_cast<int64_t>(i), dense->dims);
    for (size_t k = 0; k < c.size(); ++k) {
      if (reduced[k]) c[k] = 0;
    }
    groups[Ravel(c, strides)].push_back(&(*dense->values)[i]);
  }
  std::vector<Element> out;
  for (const auto& g : groups) {
    if (g.size() == 1) {
      out.push_back(*g[0]);  // passed through unchanged
      continue;
    }
    MaybeExpr v;
    if (g.empty()) {
      // Over no elements: the sum is 0 and the product 1; min and max have no value.
      if (op == "ReduceSum") v = Expr::Constant(0);
      if (op == "ReduceProd") v = Expr::Constant(1);
    } else {
      v = g[0]->value;
      for (size_t j = 1; j < g.size(); ++j) {
        const MaybeExpr& e = g[j]->value;
        v = op == "ReduceSum"    ? sym::Add(v, e)
            : op == "ReduceProd" ? sym::Mul(v, e)
            : op == "ReduceMin"  ? sym::Min(v, e)
                                 : sym::Max(v, e);
      }
    }
    out.push_back(Computed(v, g));
  }
  return out;
}

}  // namespace

void InferReduce(OpContext& ctx) {
  const std::string& op = ctx.node().op_type();
  const TensorFact& x = ctx.in(0);
  TensorFact& y = ctx.out(0);
  y.elem_type = x.elem_type;
  // ReduceSum-13 and the other Reduce*-18 take axes as an optional input, with
  // noop_with_empty_axes; before that, an `axes` attribute. Empty or absent axes reduce all.
  const bool axes_input = ctx.opset() >= (op == "ReduceSum" ? 13 : 18);
  const bool keepdims = ctx.AttrInt("keepdims", 1) != 0;
  const bool noop = axes_input && ctx.AttrInt("noop_with_empty_axes", 0) != 0;
  std::optional<std::vector<int64_t>> axes;
  if (!axes_input) {
    axes = ctx.AttrInts("axes").value_or(std::vector<int64_t>{});
  } else if (!ctx.has_input(1) || KnownEmpty(ctx, 1)) {
    axes = std::vector<int64_t>{};
  } else {
    axes = ctx.ConstInts(1);
  }
  if (!x.shape) return;
  const int64_t rank = x.rank();
  if (!axes) {
    if (keepdims) y.shape = Dims(rank);  // the rank survives, which dims become 1 does not
    return;
  }
  if (axes->empty()) {
    if (noop) {
      // "If 'noop_with_empty_axes' is true and axes is empty, input tensor will not be reduced,
      // and the output tensor would be equivalent to input tensor."
      y.shape = x.shape;
      y.values = x.values;
      return;
    }
    for (int64_t i = 0; i < rank; ++i) axes->push_back(i);
  }
  auto normalized = NormalizeAxes(*axes, rank);
  if (!normalized) return;
  std::vector<bool> reduced(rank, false);
  for (int64_t a : *normalized) reduced[a] = true;
  Dims out;
  for (int64_t i = 0; i < rank; ++i) {
    if (!reduced[i]) {
      out.push_back((*x.shape)[i]);
    } else if (keepdims) {
      out.push_back(Expr::Constant(1));
    }
  }
  y.shape = std::move(out);
  y.values = ReduceValues(op, x, reduced);
}

void InferArgMinMax(OpContext& ctx) {
  const TensorFact& x = ctx.in(0);
  TensorFact& y = ctx.out(0);
  y.elem_type = TensorProto::INT64;
  if (!x.shape) return;
  auto axis = NormalizeAxis(ctx.AttrInt("axis", 0), x.rank());
  if (!axis) return;
  // select_last_index (opset 12) picks among ties; it does not change the shape.
  Dims out = *x.shape;
  if (ctx.AttrInt("keepdims", 1) != 0) {
    out[*axis] = Expr::Constant(1);
  } else {
    out.erase(out.begin() + *axis);
  }
  y.shape = std::move(out);
}

void InferDet(OpContext& ctx) {
  const TensorFact& x = ctx.in(0);
  TensorFact& y = ctx.out(0);
  y.elem_type = x.elem_type;
  if (!x.shape || x.rank() < 2) return;
  // [*, M, M] -> [*]
  const int64_t r = x.rank();
  ctx.Require(RequirementKind::kInnerDim, Relation::kEqual, (*x.shape)[r - 1], (*x.shape)[r - 2],
              "Det needs square matrices: last two axes", kNoOrigin, r - 1);
  y.shape = Dims(x.shape->begin(), x.shape->end() - 2);
}

namespace {

struct EinsumTerm {
  std::string letters;   // in order, without the ellipsis
  int ellipsis_at = -1;  // index in `letters` where "..." stands, or -1
};

std::optional<EinsumTerm> ParseTerm(std::string_view s) {
  EinsumTerm t;
  for (size_t i = 0; i < s.size();) {
    if (s.substr(i, 3) == "...") {
      if (t.ellipsis_at >= 0) return std::nullopt;
      t.ellipsis_at = static_cast<int>(t.letters.size());
      i += 3;
    } else if (std::isalpha(static_cast<unsigned char>(s[i]))) {
      t.letters.push_back(s[i++]);
    } else {
      return std::nullopt;
    }
  }
  return t;
}

}  // namespace

namespace {

// The operand terms of an equation without spaces, and the output term when it has "->".
struct Equation {
  std::vector<EinsumTerm> operands;
  std::optional<EinsumTerm> output;  // nullopt: implicit
};

std::optional<Equation> ParseEquation(std::string_view text) {
  std::string eq;
  for (char c : text) {
    if (c != ' ') eq.push_back(c);
  }
  const size_t arrow = eq.find("->");
  const std::string lhs = eq.substr(0, arrow);
  Equation parsed;
  for (size_t start = 0;;) {
    const size_t comma = lhs.find(',', start);
    auto t = ParseTerm(std::string_view(lhs).substr(start, comma - start));
    if (!t) return std::nullopt;
    parsed.operands.push_back(*t);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (arrow != std::string::npos) {
    parsed.output = ParseTerm(std::string_view(eq).substr(arrow + 2));
    if (!parsed.output) return std::nullopt;
  }
  return parsed;
}

// Every occurrence of a letter in the operands, and the dims each operand's "..." stands for.
struct OperandDims {
  std::map<char, std::vector<BroadcastOperand>> of_letter;
  std::map<char, int> occurrences;
  std::vector<Dims> ellipses;
  bool any_ellipsis = false;
};

std::optional<OperandDims> CollectOperandDims(const OpContext& ctx,
                                              const std::vector<EinsumTerm>& terms) {
  OperandDims dims;
  for (size_t i = 0; i < terms.size(); ++i) {
    const TensorFact& f = ctx.in(i);
    if (!f.shape) return std::nullopt;
    const EinsumTerm& t = terms[i];
    const int64_t named = static_cast<int64_t>(t.letters.size());
    const int64_t ell = t.ellipsis_at >= 0 ? f.rank() - named : 0;
    // A rank that does not fit the term: the model is invalid.
    if (ell < 0 || (t.ellipsis_at < 0 && f.rank() != named)) return std::nullopt;
    dims.any_ellipsis = dims.any_ellipsis || t.ellipsis_at >= 0;
    int64_t axis = 0;
    for (int64_t j = 0; j < named; ++j) {
      if (j == t.ellipsis_at) {
        dims.ellipses.emplace_back(f.shape->begin() + axis, f.shape->begin() + axis + ell);
        axis += ell;
      }
      dims.of_letter[t.letters[j]].push_back({(*f.shape)[axis++], kNoOrigin});
      ++dims.occurrences[t.letters[j]];
    }
    if (t.ellipsis_at == named) {
      dims.ellipses.emplace_back(f.shape->begin() + axis, f.shape->end());
    }
  }
  return dims;
}

// The dims of "..." broadcast across operands, right-aligned.
Dims EllipsisDims(OpContext& ctx, const std::vector<Dims>& ellipses) {
  size_t rank = 0;
  for (const Dims& e : ellipses) rank = std::max(rank, e.size());
  Dims dims(rank);
  for (size_t k = 0; k < rank; ++k) {
    std::vector<BroadcastOperand> ops;
    for (const Dims& e : ellipses) {
      if (k + e.size() >= rank) ops.push_back({e[k + e.size() - rank], kNoOrigin});
    }
    dims[k] = BroadcastDim(
        ctx, ops, RequirementKind::kBroadcast,
        [&] { return absl::StrCat("Einsum: \"...\" operands broadcast at axis ", k); },
        static_cast<int64_t>(k));
  }
  return dims;
}

// The output term: the explicit one when it is valid, else "..." first, then the letters that
// occur once, in alphabetical order. numpy sorts upper case before lower case, onnxruntime the
// other way: an implicit output mixing them is unknown.
std::optional<EinsumTerm> OutputTerm(const Equation& eq, const OperandDims& dims,
                                     size_t ellipsis_rank) {
  if (eq.output) {
    const EinsumTerm& output = *eq.output;
    for (size_t j = 0; j < output.letters.size(); ++j) {
      const char c = output.letters[j];
      if (!dims.of_letter.contains(c) || output.letters.find(c) != j) return std::nullopt;
    }
    // Broadcast dims the output does not place: numpy rejects the equation.
    if (output.ellipsis_at < 0 && ellipsis_rank > 0) return std::nullopt;
    return output;
  }
  EinsumTerm output;
  bool upper = false, lower = false;
  for (const auto& [letter, n] : dims.occurrences) {
    if (n != 1) continue;
    output.letters.push_back(letter);
    (std::isupper(static_cast<unsigned char>(letter)) ? upper : lower) = true;
  }
  if (upper && lower) return std::nullopt;
  output.ellipsis_at = dims.any_ellipsis ? 0 : -1;
  return output;
}

}  // namespace

void InferEinsum(OpContext& ctx) {
  TensorFact& y = ctx.out(0);
  y.elem_type = ctx.in(0).elem_type;
  auto attr = ctx.AttrString("equation");
  if (!attr) return;
  const std::optional<Equation> eq = ParseEquation(*attr);
  if (!eq || eq->operands.size() != ctx.num_inputs()) return;
  const std::optional<OperandDims> dims = CollectOperandDims(ctx, eq->operands);
  if (!dims) return;
  // A letter stands for one size everywhere; numpy (ONNX's reference) also lets a size of 1
  // broadcast, so the requirement is broadcast compatibility, which never overclaims.
  std::map<char, MaybeExpr> dim_of;
  for (const auto& [letter_key, letter_dims] : dims->of_letter) {
    // A copy: C++20 lets a lambda capture a structured binding, but Clang before 16 cannot.
    const char letter = letter_key;
    dim_of[letter] = BroadcastDim(
        ctx, letter_dims, RequirementKind::kInnerDim,
        [&] {
          return absl::StrCat("Einsum: every '", std::string(1, letter), "' in \"", *attr,
                              "\" has the same size");
        },
        -1);
  }
  const Dims ell_dims = EllipsisDims(ctx, dims->ellipses);
  const std::optional<EinsumTerm> output = OutputTerm(*eq, *dims, ell_dims.size());
  if (!output) return;
  Dims out;
  for (size_t j = 0; j <= output->letters.size(); ++j) {
    if (static_cast<int>(j) == output->ellipsis_at) {
      out.insert(out.end(), ell_dims.begin(), ell_dims.end());
    }
    if (j < output->letters.size()) out.push_back(dim_of[output->letters[j]]);
  }
  y.shape = std::move(out);
}

}  // namespace shapelint::infer
