// The exporter's records that tell a trained parameter from a constant the trace made:
// torch.export's graph signature (which initializers are the module's parameters and buffers,
// ParameterSignature) and the onnxscript optimizer's folded_from record of each constant it
// folded (ReadFoldedSources). Declared in lint/literals.h, whose readers decide with them.
#include <algorithm>
#include <cctype>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/hash/hash.h"
#include "absl/strings/str_split.h"
#include "lint/literals.h"

namespace shapelint::lint {
namespace {

// torch.export's record of the program's inputs, which the dynamo exporter writes into the
// graph's metadata: "p_fc_weight: PARAMETER target='fc.weight'" for each parameter and buffer.
constexpr std::string_view kGraphSignature = "pkg.torch.export.ExportedProgram.graph_signature";

// The onnxscript optimizer's record, on the value_info of a constant it folded, of the values
// it folded the constant from: "['inner.pos.weight', 'inner.position_ids']".
constexpr std::string_view kFoldedFrom = "pkg.onnxscript.optimizer.folded_from";

// The aten ops that make a tensor of a size they are given (torch.arange(n), x.new_zeros(b, t),
// cls.expand(b, -1, -1)). torch.export names each node after its op ("arange", "expand_2"),
// and the optimizer's record of a folded constant lists those names: a constant folded from
// one of them has the size the trace gave it, the example's where the code read a size as a
// Python int.
constexpr std::string_view kSizedFactories[] = {
    "arange",   "empty",    "expand",    "eye",  "full",   "linspace", "new_empty",
    "new_full", "new_ones", "new_zeros", "ones", "repeat", "zeros",
};

// The op an fx node name stands for: "arange_1" -> "arange", "expand" -> "expand".
std::string_view FxOp(std::string_view node_name) {
  const size_t underscore = node_name.find_last_of('_');
  if (underscore == std::string_view::npos || underscore + 1 == node_name.size()) return node_name;
  const std::string_view suffix = node_name.substr(underscore + 1);
  const bool numbered = std::all_of(suffix.begin(), suffix.end(), [](char c) {
    return std::isdigit(static_cast<unsigned char>(c));
  });
  return numbered ? node_name.substr(0, underscore) : node_name;
}

bool IsSizedFactory(std::string_view node_name) {
  const std::string_view op = FxOp(node_name);
  return std::find(std::begin(kSizedFactories), std::end(kSizedFactories), op) !=
         std::end(kSizedFactories);
}

}  // namespace

bool NamesComputedValue(std::string_view name) {
  const std::string_view op = FxOp(name);
  return IsSizedFactory(name) || op == "slice" || op == "narrow" || (op == "val" && op != name);
}

FoldedSources ReadFoldedSources(const ir::Graph& graph, const std::string& name,
                                const ParameterSignature& signature) {
  FoldedSources out;
  const std::optional<std::string_view> from = graph.ValueMetadata(name, kFoldedFrom);
  if (!from) return out;
  out.recorded = true;
  // The constant is named after the node that made it ("expand", "ones_1").
  out.sized_factory = IsSizedFactory(name);
  // Quoted names, every other piece between single quotes.
  std::vector<absl::string_view> pieces =
      absl::StrSplit(absl::string_view(from->data(), from->size()), '\'');
  bool all_listed = pieces.size() > 1;
  bool sliced = false;
  // A piece a few ahead is fetched while this one is looked up (ParameterSignature::Prefetch).
  constexpr size_t kAhead = 8;
  for (size_t i = 1; i < pieces.size(); i += 2) {
    if (i + 2 * kAhead < pieces.size()) {
      signature.Prefetch(
          std::string_view(pieces[i + 2 * kAhead].data(), pieces[i + 2 * kAhead].size()));
    }
    const std::string_view piece(pieces[i].data(), pieces[i].size());
    const bool listed = signature.Lists(piece) == true;
    out.module_state |= listed;
    if (listed) out.module_values.emplace_back(piece);
    all_listed &= listed;
    out.sized_factory |= IsSizedFactory(piece);
    const std::string_view op = FxOp(piece);
    sliced |= op == "slice" || op == "narrow";
  }
  out.only_module_state = all_listed;
  out.sliced_module_state = out.module_state && sliced;
  out.made_by_trace = !out.module_state && signature.Lists(name) == false;
  return out;
}

// The targets (views into the model's metadata) and a table of their indices. An index is 4
// bytes where a view is 16: past a hundred thousand names the table outgrows the caches, and
// every insert and lookup lands in it at random, so its size is what the time grows with.
struct ParameterSignature::Targets {
  Targets() = default;
  Targets(const Targets&) = delete;  // the table's functors point at `names`
  Targets& operator=(const Targets&) = delete;

  struct Hash {
    using is_transparent = void;  // NOLINT(readability-identifier-naming): absl's name
    size_t operator()(uint32_t i) const { return absl::HashOf((*names)[i]); }
    size_t operator()(std::string_view s) const { return absl::HashOf(s); }
    const std::vector<std::string_view>* names;
  };
  struct Eq {
    using is_transparent = void;  // NOLINT(readability-identifier-naming): absl's name
    std::string_view Of(uint32_t i) const { return (*names)[i]; }
    static std::string_view Of(std::string_view s) { return s; }
    template <typename A, typename B>
    bool operator()(const A& a, const B& b) const {
      return Of(a) == Of(b);
    }
    const std::vector<std::string_view>* names;
  };

  std::vector<std::string_view> names;
  std::vector<bool> buffer;  // by index: listed as "b_...: BUFFER target='...'"
  absl::flat_hash_set<uint32_t, Hash, Eq> table{0, Hash{&names}, Eq{&names}};
};

ParameterSignature::ParameterSignature(const ir::Model& model) {
  const std::optional<std::string_view> text = model.graph().Metadata(kGraphSignature);
  if (!text) return;
  auto targets = std::make_unique<Targets>();
  constexpr std::string_view kTarget = "target='";
  constexpr std::string_view kBuffer = ": BUFFER ";
  // The targets in one pass over the text, then the table sized once for them: growing it entry
  // by entry rehashes it ever larger, out of the caches.
  std::vector<std::string_view>& names = targets->names;
  for (size_t at = text->find(kTarget); at != std::string_view::npos;
       at = text->find(kTarget, at)) {
    // The kind is on the target's line, before it: "b_inner_grid: BUFFER target='inner.grid'".
    const size_t line = text->rfind('\n', at);
    const std::string_view head =
        text->substr(line == std::string_view::npos ? 0 : line + 1,
                     at - (line == std::string_view::npos ? 0 : line + 1));
    at += kTarget.size();
    const size_t end = text->find('\'', at);
    if (end == std::string_view::npos) break;
    names.push_back(text->substr(at, end - at));
    targets->buffer.push_back(head.find(kBuffer) != std::string_view::npos);
    at = end + 1;
  }
  targets->table.reserve(names.size());
  // The place of a target a few ahead is fetched while this one goes in, so that the waits for
  // memory overlap. The table no longer moves.
  constexpr size_t kAhead = 8;
  for (size_t i = 0; i < names.size(); ++i) {
    if (i + kAhead < names.size()) targets->table.prefetch(names[i + kAhead]);
    targets->table.insert(static_cast<uint32_t>(i));
  }
  targets_ = std::move(targets);
}

ParameterSignature::~ParameterSignature() = default;
ParameterSignature::ParameterSignature(ParameterSignature&&) noexcept = default;
ParameterSignature& ParameterSignature::operator=(ParameterSignature&&) noexcept = default;

std::optional<ParameterSignature::Listing> ParameterSignature::Find(std::string_view name) const {
  if (targets_ == nullptr) return std::nullopt;
  const auto it = targets_->table.find(name);
  if (it == targets_->table.end()) return Listing::kNotListed;
  return targets_->buffer[*it] ? Listing::kBuffer : Listing::kParameter;
}

std::optional<bool> ParameterSignature::Lists(std::string_view name) const {
  const std::optional<Listing> listing = Find(name);
  if (!listing) return std::nullopt;
  return *listing != Listing::kNotListed;
}

void ParameterSignature::Prefetch(std::string_view name) const {
  if (targets_ != nullptr) targets_->table.prefetch(name);
}

}  // namespace shapelint::lint
