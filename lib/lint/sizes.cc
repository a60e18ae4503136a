// Lists of sizes for the input dims, as --static, --export-dims and the subcommands' --dims
// take them (shapelint/lint/probe.h): one parser, the forms each option allows as its options.
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "shapelint/lint/probe.h"

namespace shapelint::lint {
namespace {

constexpr char kRangeSeparator[] = "..";
constexpr char kShapeSeparator = 'x';

bool ParseSize(absl::string_view text, int64_t* out) {
  return absl::SimpleAtoi(text, out) && *out >= 0;
}

// "NAME=SIZE", "NAME=SIZE or INPUT=AxBxC", ...: what an item of a list may be.
std::string Forms(SizeSyntax syntax) {
  if (syntax.shapes && syntax.ranges) return "NAME=SIZE, INPUT=AxBxC or NAME=LO..HI";
  if (syntax.shapes) return "NAME=SIZE or INPUT=AxBxC";
  if (syntax.ranges) return "NAME=SIZE or NAME=LO..HI";
  return "NAME=SIZE";
}

// Reads the items of one list into a ProbeSpec, each error naming its item.
class SizeListParser {
 public:
  explicit SizeListParser(SizeSyntax syntax) : syntax_(syntax) {}

  absl::Status Add(absl::string_view item) {
    std::pair<std::string, std::string> kv = absl::StrSplit(item, absl::MaxSplits('=', 1));
    const std::string& name = kv.first;
    const std::string& value = kv.second;
    if (name.empty() || value.empty()) return Bad(item, Forms(syntax_));
    if (size_t dots = value.find(kRangeSeparator); dots != std::string::npos) {
      if (!syntax_.ranges) return Bad(item, Forms(syntax_) + ": a size, not a range");
      return AddRange(item, name, value.substr(0, dots),
                      value.substr(dots + std::string_view(kRangeSeparator).size()));
    }
    if (value.find(kShapeSeparator) != std::string::npos) {
      if (!syntax_.shapes) return Bad(item, Forms(syntax_) + ": a size, not a shape");
      return AddShape(item, name, value);
    }
    int64_t size = 0;
    if (!ParseSize(value, &size)) return Bad(item, "NAME=SIZE with SIZE >= 0");
    spec_.sizes.emplace_back(name, size);
    return absl::OkStatus();
  }

  absl::StatusOr<ProbeSpec> Finish() && {
    if (spec_.sizes.empty() && spec_.shapes.empty() && !spec_.range_symbol) {
      return absl::InvalidArgumentError("no size given");
    }
    return std::move(spec_);
  }

 private:
  static absl::Status Bad(absl::string_view item, const std::string& expected) {
    return absl::InvalidArgumentError(
        absl::StrCat("invalid size '", std::string(item), "' (expected ", expected, ")"));
  }

  absl::Status AddRange(absl::string_view item, const std::string& name, const std::string& lo,
                        const std::string& hi) {
    if (spec_.range_symbol) return Bad(item, "one range per probe");
    int64_t low = 0, high = 0;
    if (!ParseSize(lo, &low) || !ParseSize(hi, &high) || low > high) {
      return Bad(item, "NAME=LO..HI with 0 <= LO <= HI");
    }
    if (high - low >= kMaxProbeRange) {
      return Bad(item, absl::StrCat("a range of at most ", kMaxProbeRange, " sizes"));
    }
    spec_.range_symbol = name;
    spec_.range_lo = low;
    spec_.range_hi = high;
    return absl::OkStatus();
  }

  absl::Status AddShape(absl::string_view item, const std::string& name, const std::string& value) {
    std::vector<int64_t> dims;
    for (absl::string_view d : absl::StrSplit(value, kShapeSeparator)) {
      int64_t size = 0;
      if (!ParseSize(d, &size)) return Bad(item, "INPUT=AxBxC with sizes >= 0");
      dims.push_back(size);
    }
    spec_.shapes.emplace_back(name, std::move(dims));
    return absl::OkStatus();
  }

  SizeSyntax syntax_;
  ProbeSpec spec_;
};

}  // namespace

absl::StatusOr<ProbeSpec> ParseSizes(std::string_view text, SizeSyntax syntax) {
  SizeListParser parser(syntax);
  for (absl::string_view item :
       absl::StrSplit(absl::string_view(text.data(), text.size()), ',', absl::SkipEmpty())) {
    if (absl::Status added = parser.Add(item); !added.ok()) return added;
  }
  return std::move(parser).Finish();
}

absl::StatusOr<ProbeSpec> ParseProbeSpec(std::string_view text) {
  return ParseSizes(text, kProbeSizes);
}

absl::Status CheckNamedSize(std::string_view name, int64_t size) {
  if (name.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("invalid size ", size, " for a dim with no name"));
  }
  if (size < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("invalid size ", size, " for '", std::string(name), "' (expected >= 0)"));
  }
  return absl::OkStatus();
}

}  // namespace shapelint::lint
