// SL011: the literals a trace computed from a specialized size (specialized_dim.h).
#include <algorithm>
#include <iterator>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "lint/provenance.h"
#include "specialized_dim.h"

namespace shapelint::lint::specialized_dim {
namespace {

// Past it, a bound means "to the end" (INT64_MAX of a Slice), not a number of the trace's.
constexpr int64_t kMaxNumber = int64_t{1} << 31;

bool Mentions(const sym::MaybeExpr& e, const std::string& symbol) {
  if (!e || e->IsConstant()) return false;
  const std::vector<std::string> names = e->Symbols();
  return std::find(names.begin(), names.end(), symbol) != names.end();
}

// The number `element` holds where it counts as computed: not -1, 0 or 1, no sentinel.
std::optional<int64_t> Number(const infer::Element& element) {
  const std::optional<int64_t> v = element.value ? element.value->AsConstant() : std::nullopt;
  if (!v || *v <= -kMaxNumber || *v >= kMaxNumber || (*v >= -1 && *v <= 1)) return std::nullopt;
  return v;
}

// True when `code` writes the Python operator or call that `op` computes: the Sub of
// `n - L` is written on `y = F.pad(x, (0, n - L))`, where the size is a name bound before; the
// Mod of a roll is no operator of `x = x + self.drop_path1(self._attn(...))`, which calls the code
// that computes it.
bool WritesOperator(std::string_view code, const std::string& op) {
  const absl::string_view c(code.data(), code.size());
  if (op == "Add") return absl::StrContains(c, "+");
  if (op == "Sub") return absl::StrContains(c, "-");
  if (op == "Mul") return absl::StrContains(c, "*");
  if (op == "Div") return absl::StrContains(c, "/");
  if (op == "Mod") return absl::StrContains(c, "%");
  if (op == "Max") return absl::StrContains(c, "max(");
  if (op == "Min") return absl::StrContains(c, "min(");
  return false;
}

// A literal element a node reads where a computed number may sit: its input and the element.
using Candidate = std::pair<int, const infer::Element*>;

bool IsArithmetic(const std::string& op) {
  static constexpr std::string_view kArithmetic[] = {"Add", "Sub", "Mul", "Div",
                                                     "Mod", "Max", "Min"};
  return std::find(std::begin(kArithmetic), std::end(kArithmetic), op) != std::end(kArithmetic);
}

// Each literal element an arithmetic node `n` reads beside a value that holds `symbol`'s size;
// none where it reads no such value.
std::vector<Candidate> ArithmeticCandidates(const Analysis& analysis, const ir::Graph& graph,
                                            const ir::Node& n, const std::string& symbol) {
  std::vector<Candidate> candidates;
  bool reads_size = false;
  for (const auto& in : n.input()) {
    const infer::TensorFact* f = analysis.inference().Find(in);
    reads_size =
        reads_size || (f != nullptr && f->values &&
                       std::any_of(f->values->begin(), f->values->end(),
                                   [&](const auto& e) { return Mentions(e.value, symbol); }));
  }
  if (!reads_size) return candidates;
  for (int i = 0; i < n.input_size(); ++i) {
    if (const auto* values = LiteralElements(analysis, graph, n.input(i))) {
      for (const infer::Element& e : *values) candidates.emplace_back(i, &e);
    }
  }
  return candidates;
}

// Each literal start, end or step of Slice `n` on an axis whose dim holds `symbol`.
std::vector<Candidate> SliceCandidates(const Analysis& analysis, const ir::Graph& graph,
                                       const ir::Node& n, const std::string& symbol) {
  std::vector<Candidate> candidates;
  const infer::TensorFact* data = analysis.inference().Find(n.input(0));
  if (data == nullptr || !data->shape || n.input_size() < 3) return candidates;
  const auto rank = static_cast<int64_t>(data->shape->size());
  const bool has_axes = n.input_size() > 3 && !n.input(3).empty();
  const std::vector<infer::Element>* axes =
      has_axes ? LiteralElements(analysis, graph, n.input(3)) : nullptr;
  if (has_axes && axes == nullptr) return candidates;  // axes computed: unknown
  for (int i : {1, 2, 4}) {
    const auto* values =
        i < n.input_size() ? LiteralElements(analysis, graph, n.input(i)) : nullptr;
    if (values == nullptr) continue;
    for (int j = 0; j < static_cast<int>(values->size()); ++j) {
      std::optional<int64_t> axis = j;  // without axes, the first ones in order
      if (axes != nullptr) {
        axis = j < static_cast<int>(axes->size()) && (*axes)[j].value
                   ? (*axes)[j].value->AsConstant()
                   : std::nullopt;
      }
      if (axis && *axis < 0) *axis += rank;
      if (axis && *axis >= 0 && *axis < rank && Mentions((*data->shape)[*axis], symbol)) {
        candidates.emplace_back(i, &(*values)[j]);
      }
    }
  }
  return candidates;
}

}  // namespace

const std::vector<infer::Element>* LiteralElements(const Analysis& analysis, const ir::Graph& graph,
                                                   std::string_view in) {
  if (in.empty()) return nullptr;
  const int producer = graph.Producer(in);
  if (graph.Initializer(in) == nullptr &&
      (producer < 0 || graph.node(producer).op_type() != "Constant")) {
    return nullptr;
  }
  const infer::TensorFact* fact = analysis.inference().Find(in);
  const bool few = fact != nullptr && fact->values && fact->values->size() <= kMaxLiteralElements;
  return few ? &*fact->values : nullptr;
}

std::optional<ComputedLiteral> ComputedBesideSize(const Analysis& analysis, const ir::Graph& graph,
                                                  const std::string& symbol) {
  for (int index : graph.topological_order()) {
    const ir::Node n = graph.node(index);
    const bool arithmetic = IsArithmetic(n.op_type());
    if (!arithmetic && n.op_type() != "Slice") continue;
    const std::vector<Candidate> candidates = arithmetic
                                                  ? ArithmeticCandidates(analysis, graph, n, symbol)
                                                  : SliceCandidates(analysis, graph, n, symbol);
    if (candidates.empty()) continue;
    // Torch's own code (its runtime asserts, a decomposition) computes with numbers of its own,
    // and a module's forward line that neither reads a size nor writes the operator calls the
    // code that does: only a user's line that reads a size or writes the arithmetic (or
    // slices) says what forward wrote there. (SourceOf falls back to a frame of torch's only
    // where every frame is torch's.)
    const std::optional<SourceLocation> line = SourceOf(n);
    if (!line || IsTorchInternal(Frame{line->file, line->line, line->function, line->code}) ||
        !(arithmetic ? ReadsSize(line->code) || WritesOperator(line->code, n.op_type())
                     : WritesSlice(line->code))) {
      continue;
    }
    for (const auto& [i, element] : candidates) {
      const std::optional<int64_t> v = Number(*element);
      if (v && !WritesNumber(line->code, *v)) {
        return ComputedLiteral{index, std::string(n.input(i)), *v};
      }
    }
  }
  return std::nullopt;
}

}  // namespace shapelint::lint::specialized_dim
