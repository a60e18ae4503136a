#include "lint/fix_builder.h"

#include "absl/strings/str_cat.h"

namespace shapelint::lint {
namespace {

// Names of everything a fix adds start so, which tells them apart in a diff and in the graph.
constexpr std::string_view kPrefix = "shapelint_fix/";
// Shape takes start and end from this opset on; before, a Gather picks the dim.
constexpr int64_t kShapeSliceOpset = 15;
// Min and Max take int64 from this opset on.
constexpr int64_t kIntMinMaxOpset = 12;
// The nodes of a computation a fix bypasses that it removes at most: a literal and the few ops
// an exporter puts between it and its reader.
constexpr size_t kMaxDroppedChain = 16;

}  // namespace

FixBuilder::FixBuilder(const Analysis& analysis, int anchor, Applicability applicability,
                       std::string description)
    : analysis_(analysis), opset_(analysis.model().OpsetVersion("")) {
  fix_.anchor = anchor;
  fix_.applicability = applicability;
  fix_.description = std::move(description);
}

std::string FixBuilder::NewValue(std::string_view hint) {
  const ir::Graph& g = analysis_.model().graph();
  for (;;) {
    // The anchor keeps the names of fix-its at different nodes apart.
    std::string name = absl::StrCat(std::string(kPrefix), "n", fix_.anchor, "/",
                                    hint.empty() ? "value" : std::string(hint), "_", counter_++);
    if (g.FindValue(name) == ir::kNoValue && names_.insert(name).second) return name;
  }
}

std::string FixBuilder::Ints(const std::vector<int64_t>& values, bool scalar) {
  FixConstant c;
  c.name = NewValue("const");
  if (!scalar) c.dims = {static_cast<int64_t>(values.size())};
  c.values = values;
  fix_.constants.push_back(c);
  return c.name;
}

std::string FixBuilder::Tensor(int32_t data_type, std::vector<int64_t> dims, std::string raw_data) {
  FixConstant c;
  c.name = NewValue("const");
  c.dims = std::move(dims);
  c.data_type = data_type;
  c.raw_data = std::move(raw_data);
  fix_.constants.push_back(c);
  return c.name;
}

std::string FixBuilder::Add(std::string_view op_type, std::vector<std::string> inputs,
                            Attributes attributes, std::string_view hint, std::string_view output) {
  FixNode node;
  node.op_type = std::string(op_type);
  node.inputs = std::move(inputs);
  node.outputs = {output.empty() ? NewValue(hint.empty() ? op_type : hint) : std::string(output)};
  node.name = output.empty() ? node.outputs[0] : NewValue(op_type);
  node.ints = std::move(attributes.ints);
  node.int_lists = std::move(attributes.int_lists);
  fix_.nodes.push_back(std::move(node));
  return fix_.nodes.back().outputs[0];
}

std::string FixBuilder::DimOf(std::string_view value, int64_t axis) {
  const std::string key = absl::StrCat(std::string(value), "#", axis);
  if (auto it = dims_.find(key); it != dims_.end()) return it->second;
  std::string dim;
  if (opset_ >= kShapeSliceOpset) {
    dim = Add("Shape", {std::string(value)}, {{{"start", axis}, {"end", axis + 1}}, {}}, "dim");
  } else {
    const std::string shape_key = absl::StrCat(std::string(value), "#shape");
    auto it = dims_.find(shape_key);
    if (it == dims_.end()) {
      it = dims_.emplace(shape_key, Add("Shape", {std::string(value)}, {}, "shape")).first;
    }
    dim = Add("Gather", {it->second, Ints({axis})}, {{{"axis", 0}}, {}}, "dim");
  }
  dims_.emplace(key, dim);
  return dim;
}

std::string FixBuilder::Vector(const std::vector<Entry>& entries, bool scalar) {
  std::vector<std::string> parts;
  std::vector<int64_t> run;
  auto flush = [&] {
    if (!run.empty()) parts.push_back(Ints(run, scalar && entries.size() == 1));
    run.clear();
  };
  for (const Entry& e : entries) {
    if (const int64_t* literal = std::get_if<int64_t>(&e)) {
      run.push_back(*literal);
      continue;
    }
    flush();
    parts.push_back(std::get<std::string>(e));
  }
  flush();
  if (parts.empty()) return Ints({});
  if (parts.size() > 1) return Add("Concat", parts, {{{"axis", 0}}, {}}, "vector");
  // One computed value as a scalar: reshaped to rank 0 (a literal was made one above).
  if (scalar && std::holds_alternative<std::string>(entries.front())) {
    return Add("Reshape", {parts[0], Ints({})}, {}, "scalar");
  }
  return parts[0];
}

std::string FixBuilder::ProductOfDims(std::string_view value, int64_t first, int64_t last) {
  std::string product = DimOf(value, first);
  for (int64_t axis = first + 1; axis <= last; ++axis) {
    product = Add("Mul", {product, DimOf(value, axis)}, {}, "size");
  }
  return product;
}

std::string FixBuilder::Symbol(std::string_view symbol) {
  for (const infer::InputDim& d : analysis_.inference().input_dims) {
    if (d.dim && d.dim->AsSymbol() == symbol) return DimOf(d.input, d.axis);
  }
  return "";
}

std::optional<std::string> FixBuilder::Compute(const sym::Expr& e) {
  const sym::PolynomialParts parts = sym::Decompose(e);
  std::optional<std::string> sum;
  for (const sym::TermParts& term : parts.terms) {
    std::optional<std::string> product;
    for (const auto& [atom, exponent] : term.factors) {
      std::string value;
      switch (atom.kind) {
        case sym::AtomParts::Kind::kSymbol:
          value = Symbol(atom.symbol);
          if (value.empty()) return std::nullopt;
          break;
        case sym::AtomParts::Kind::kFloorDiv: {
          // ONNX's integer Div truncates; on a numerator that is never negative (sizes) that is
          // the floor.
          if (!sym::KnownNonNegative(atom.args[0])) return std::nullopt;
          std::optional<std::string> numerator = Compute(atom.args[0]);
          if (!numerator) return std::nullopt;
          value = Add("Div", {*numerator, Ints({atom.divisor})}, {}, "size");
          break;
        }
        case sym::AtomParts::Kind::kFloorDivExpr: {
          // Truncation is the floor for a numerator and a divisor that are never negative. The
          // divisor is 0 only where the expression has no value (a Reshape's -1 over a zero
          // product, which the graph rejects), so the Div never runs where the model does.
          if (!sym::KnownNonNegative(atom.args[0]) || !sym::KnownNonNegative(atom.args[1])) {
            return std::nullopt;
          }
          std::optional<std::string> numerator = Compute(atom.args[0]);
          if (!numerator) return std::nullopt;
          std::optional<std::string> divisor = Compute(atom.args[1]);
          if (!divisor) return std::nullopt;
          value = Add("Div", {*numerator, *divisor}, {}, "size");
          break;
        }
        case sym::AtomParts::Kind::kMin:
        case sym::AtomParts::Kind::kMax: {
          if (opset_ < kIntMinMaxOpset) return std::nullopt;
          std::vector<std::string> args;
          for (const sym::Expr& arg : atom.args) {
            std::optional<std::string> a = Compute(arg);
            if (!a) return std::nullopt;
            args.push_back(*a);
          }
          value = Add(atom.kind == sym::AtomParts::Kind::kMin ? "Min" : "Max", args, {}, "size");
          break;
        }
      }
      for (int32_t i = 0; i < exponent; ++i) {
        product = product ? Add("Mul", {*product, value}, {}, "size") : value;
      }
    }
    if (!product) return std::nullopt;  // a term without factors is the constant's
    if (term.coeff != 1) product = Add("Mul", {*product, Ints({term.coeff})}, {}, "size");
    sum = sum ? Add("Add", {*sum, *product}, {}, "size") : *product;
  }
  if (!sum) return Ints({parts.constant});
  if (parts.constant != 0) sum = Add("Add", {*sum, Ints({parts.constant})}, {}, "size");
  return sum;
}

void FixBuilder::Rewire(int node, int input, std::string value) {
  fix_.rewires.push_back({node, input, std::move(value)});
}

void FixBuilder::Replace(int node) { fix_.replaced.push_back(node); }

void FixBuilder::DropIfUnread(int node) { fix_.unread.push_back(node); }

void FixBuilder::DropComputationIfUnread(std::string_view value) {
  const ir::Graph& g = analysis_.model().graph();
  absl::flat_hash_set<int> feeding;
  std::vector<std::string_view> pending = {value};
  while (!pending.empty() && feeding.size() < kMaxDroppedChain) {
    const int p = g.Producer(pending.back());
    pending.pop_back();
    if (p < 0 || !feeding.insert(p).second) continue;
    for (const auto& in : g.node(p).input()) pending.push_back(in);
  }
  const std::vector<int>& order = g.topological_order();
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    if (feeding.contains(*it)) DropIfUnread(*it);
  }
}

void FixBuilder::Declare(FixDeclaration declaration) {
  fix_.declarations.push_back(std::move(declaration));
}

void FixBuilder::SetSymbolSize(std::string symbol, int64_t size) {
  fix_.symbol_sizes.emplace_back(std::move(symbol), size);
}

void FixBuilder::DeclareSymbol(const std::string& symbol, int64_t size) {
  bool named = false;
  for (const infer::InputDim& d : analysis_.inference().input_dims) {
    if (!d.dim || d.dim->AsSymbol() != symbol) continue;
    const auto* vi = analysis_.model().graph().Input(d.input);
    const auto& dim = vi->type().tensor_type().shape().dim(static_cast<int>(d.axis));
    if (dim.has_dim_param() && dim.dim_param() == symbol) {
      named = true;
    } else {
      Declare({d.input, static_cast<int>(d.axis), size, ""});
    }
  }
  if (named) SetSymbolSize(symbol, size);
}

FixIt FixBuilder::Take() && { return std::move(fix_); }

FixIt DeclarationFix(const Analysis& analysis, Applicability applicability,
                     const std::vector<std::pair<std::string, int64_t>>& sizes,
                     std::string description) {
  FixBuilder b(analysis, -1, applicability, std::move(description));
  for (const auto& [symbol, size] : sizes) b.DeclareSymbol(symbol, size);
  return std::move(b).Take();
}

}  // namespace shapelint::lint
