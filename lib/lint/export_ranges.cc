#include "lint/export_ranges.h"

#include <algorithm>
#include <cstdint>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "lint/sha256.h"

namespace shapelint::lint {
namespace {

// The largest lower bound a range is read with: far below int64's limit, so that a size
// plus a few (the next size, a window past it) never overflows.
constexpr int64_t kLargestSize = int64_t{1} << 62;

// "10" -> 10, "int_oo" / "-int_oo" -> unbounded; false for anything else.
bool ReadBound(absl::string_view text, std::optional<int64_t>& bound) {
  text = absl::StripAsciiWhitespace(text);
  if (text == "int_oo" || text == "-int_oo" || text == "oo" || text == "-oo") {
    bound.reset();
    return true;
  }
  int64_t v = 0;
  if (!absl::SimpleAtoi(text, &v)) return false;
  bound = v;
  return true;
}

// True for a name torch.export gives a size symbol: s0, s77.
bool IsTorchSymbol(std::string_view name) {
  return name.size() >= 2 && name[0] == 's' &&
         std::all_of(name.begin() + 1, name.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// How torch.export names an input's source: by forward's parameter (L['x']), or, on the paths
// that flatten the arguments first, by position (L['flat_args'][0]).
enum class SourceNaming { kParameter, kFlatArgs };

// The entries of `record` under the names the ONNX inputs give their axes, as torch numbered
// its symbols under `naming`; empty when some name finds no entry or its entries disagree.
std::map<std::string, ExportRange> NamedEntries(const std::map<std::string, ExportRange>& record,
                                                const ir::Model& model, SourceNaming naming) {
  constexpr uint32_t kIds = 100;
  const ir::Graph& graph = model.graph();
  absl::flat_hash_set<uint32_t> used;
  std::map<std::string, std::vector<std::string>> entries_of;  // axis name -> record entries
  int position = 0;
  for (const auto& input : graph.proto().input()) {
    if (graph.Initializer(input.name()) != nullptr || !input.type().has_tensor_type()) continue;
    const std::string source = naming == SourceNaming::kParameter
                                   ? absl::StrCat("L['", input.name(), "']")
                                   : absl::StrCat("L['flat_args'][", position, "]");
    ++position;
    const auto& dims = input.type().tensor_type().shape().dim();
    for (int axis = 0; axis < dims.size(); ++axis) {
      if (!dims[axis].has_dim_param() || dims[axis].dim_param().empty()) continue;
      const std::string& name = dims[axis].dim_param();
      if (IsTorchSymbol(name)) {
        uint32_t id = 0;
        if (absl::SimpleAtoi(name.substr(1), &id)) used.insert(id);
        continue;
      }
      uint32_t id = Sha256Mod(absl::StrCat(source, ".size()[", axis, "]"), kIds);
      while (used.contains(id)) ++id;
      used.insert(id);
      entries_of[name].push_back(absl::StrCat("s", id));
    }
  }
  std::map<std::string, ExportRange> named;
  for (const auto& [name, entries] : entries_of) {
    if (record.contains(name)) return {};  // the record knows the name itself
    std::optional<ExportRange> range;
    for (const std::string& entry : entries) {
      auto it = record.find(entry);
      if (it == record.end()) continue;  // a symbol torch replaced by an equal one
      if (range && (range->min != it->second.min || range->max != it->second.max)) return {};
      range = it->second;
    }
    if (!range) return {};
    named.emplace(name, *range);
  }
  return named;
}

// The record's entries under the names the ONNX inputs give their axes, besides torch's own.
// torch.export names the symbol of input x's axis i s<k>, k the SHA-256 of its source name
// ("L['x'].size()[i]") modulo 100, the next free k on a collision, in the order it creates them
// (inputs, then axes); the ONNX exporter then renames each to the dynamic_shapes name
// (Dim("height")) but leaves the record as it was. Entries are read only when every name finds
// its entry under one naming (an input named otherwise than forward's parameter finds none, and
// nothing is read), and a name several axes share only when their entries agree.
std::map<std::string, ExportRange> RenameToInputNames(std::map<std::string, ExportRange> record,
                                                      const ir::Model& model) {
  for (const SourceNaming naming : {SourceNaming::kParameter, SourceNaming::kFlatArgs}) {
    const std::map<std::string, ExportRange> named = NamedEntries(record, model, naming);
    if (named.empty()) continue;
    for (const auto& [name, range] : named) record[name] = range;
    return record;
  }
  return record;
}

}  // namespace

std::map<std::string, ExportRange> ParseRangeConstraints(std::string_view given) {
  std::map<std::string, ExportRange> ranges;
  // Debian's Abseil has a string_view of its own.
  absl::string_view text =
      absl::StripAsciiWhitespace(absl::string_view(given.data(), given.size()));
  if (!absl::ConsumePrefix(&text, "{") || !absl::ConsumeSuffix(&text, "}")) return ranges;
  // Entries are separated by "], ": the comma inside VR[LO, HI] is not a separator.
  for (absl::string_view entry : absl::StrSplit(text, "], ", absl::SkipWhitespace())) {
    entry = absl::StripAsciiWhitespace(entry);
    absl::ConsumeSuffix(&entry, "]");
    std::pair<absl::string_view, absl::string_view> name_range = absl::StrSplit(entry, ": VR[");
    std::pair<absl::string_view, absl::string_view> bounds = absl::StrSplit(name_range.second, ',');
    const absl::string_view name = absl::StripAsciiWhitespace(name_range.first);
    ExportRange r;
    if (name.empty() || name_range.second.empty() || !ReadBound(bounds.first, r.min) ||
        !ReadBound(bounds.second, r.max)) {
      continue;
    }
    ranges.emplace(std::string(name), r);
  }
  return ranges;
}

std::map<std::string, ExportRange> ExportRanges(const ir::Model& model) {
  if (const std::optional<std::string_view> text = model.graph().Metadata(kRangeConstraintsKey)) {
    return RenameToInputNames(ParseRangeConstraints(*text), model);
  }
  for (const auto& entry : model.proto().metadata_props()) {
    if (entry.key() == kRangeConstraintsKey) {
      return RenameToInputNames(ParseRangeConstraints(entry.value()), model);
    }
  }
  return {};
}

std::vector<std::string> FollowedByFix(const ir::Model& model) {
  std::vector<std::string> out;
  for (const auto& entry : model.proto().metadata_props()) {
    if (entry.key() != kFixFollowedKey) continue;
    out.clear();  // the last entry counts, as for a map
    for (absl::string_view symbol : absl::StrSplit(entry.value(), ',', absl::SkipWhitespace())) {
      out.emplace_back(absl::StripAsciiWhitespace(symbol));
    }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::map<std::string, ExportRange> RangesOfInputSymbols(
    const std::map<std::string, ExportRange>& record,
    const std::vector<std::string>& input_symbols) {
  std::map<std::string, ExportRange> out;
  std::vector<std::string> unnamed;
  for (const std::string& s : input_symbols) {
    if (auto it = record.find(s); it != record.end()) {
      out.emplace(s, it->second);
    } else {
      unnamed.push_back(s);
    }
  }
  if (unnamed.empty()) return out;
  std::optional<ExportRange> shared;
  for (const auto& [entry, range] : record) {
    if (out.contains(entry)) continue;
    if (range.max) return out;  // bounded: which input it bounds matters
    if (shared && shared->min != range.min) return out;
    shared = range;
  }
  if (!shared) return out;
  for (const std::string& s : unnamed) out.emplace(s, *shared);
  return out;
}

bool IsUnbacked(const std::string& name) {
  return name.size() >= 2 && name[0] == 'u' &&
         std::all_of(name.begin() + 1, name.end(), [](char c) { return c >= '0' && c <= '9'; });
}

InputSymbolRanges ReadInputSymbolRanges(const ir::Model& model, const infer::Inference& inference) {
  InputSymbolRanges out;
  const std::map<std::string, ExportRange> record = ExportRanges(model);
  if (record.empty()) return out;
  std::vector<std::string> symbols;
  for (const infer::InputDim& d : inference.input_dims) {
    if (!d.declared_symbolic || !d.dim) continue;
    if (const std::optional<std::string_view> name = d.dim->AsSymbol()) {
      symbols.emplace_back(*name);
    }
  }
  const std::map<std::string, ExportRange> ranges = RangesOfInputSymbols(record, symbols);
  for (const auto& it : ranges) {
    ExportRange r = it.second;
    // These are sizes: a negative bound is none, and a range no size is in, or that starts
    // past any size anyone runs, gives nothing rather than a size the dim cannot have.
    if (r.min && *r.min < 0) r.min.reset();
    if ((r.max && *r.max < 0) || (r.min && *r.min > kLargestSize) ||
        (r.min && r.max && *r.min > *r.max)) {
      continue;
    }
    if (r.min && r.min == r.max) {
      out.specialized.emplace(it.first, *r.min);
      continue;
    }
    if (!r.max) out.traced.push_back(it.first);
    ExportRange bound{r.min && *r.min > 1 ? r.min : std::nullopt, r.max};
    if (bound.min || bound.max) out.bounds.emplace(it.first, bound);
  }
  if (std::any_of(record.begin(), record.end(),
                  [](const auto& e) { return IsUnbacked(e.first); })) {
    out.traced.clear();
  }
  std::sort(out.traced.begin(), out.traced.end());
  out.traced.erase(std::unique(out.traced.begin(), out.traced.end()), out.traced.end());
  return out;
}

std::vector<infer::Requirement> BoundRequirements(const InputSymbolRanges& ranges) {
  std::vector<infer::Requirement> out;
  auto add = [&](const sym::Expr& lhs, const sym::Expr& rhs, std::string what) {
    infer::Requirement r;
    r.kind = infer::RequirementKind::kExportRange;
    r.relation = infer::Relation::kAtLeast;
    r.lhs = lhs;
    r.rhs = rhs;
    r.what = std::move(what);
    out.push_back(std::move(r));
  };
  for (const auto& [symbol, range] : ranges.bounds) {
    const sym::Expr s = sym::Expr::Symbol(symbol);
    const std::string what = absl::StrCat("torch.export's range for ", symbol);
    if (range.min) add(s, sym::Expr::Constant(*range.min), what);
    if (range.max) add(sym::Expr::Constant(*range.max), s, what);
  }
  return out;
}

bool WithinBounds(const InputSymbolRanges& ranges, const std::string& symbol, int64_t value) {
  auto it = ranges.bounds.find(symbol);
  if (it == ranges.bounds.end()) return true;
  return (!it->second.min || value >= *it->second.min) &&
         (!it->second.max || value <= *it->second.max);
}

}  // namespace shapelint::lint
