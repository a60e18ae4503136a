#include "lint/export_ranges.h"

#include <algorithm>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

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
    return ParseRangeConstraints(*text);
  }
  for (const auto& entry : model.proto().metadata_props()) {
    if (entry.key() == kRangeConstraintsKey) return ParseRangeConstraints(entry.value());
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
