#include "lint/recorded_sizes.h"

#include <algorithm>
#include <cctype>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "lint/provenance.h"

namespace shapelint::lint {
namespace {

constexpr size_t kSpatialBegin = 2;  // batch and channels come first
// A window or output size past this is no size a trace saw.
constexpr int64_t kMaxSize = int64_t{1} << 31;

// The top-level arguments of the call whose '(' is at `open`, split at commas outside
// brackets; empty when the brackets do not close on the line.
std::vector<absl::string_view> Arguments(absl::string_view code, size_t open) {
  std::vector<absl::string_view> args;
  int depth = 0;
  size_t start = open + 1;
  for (size_t i = open; i < code.size(); ++i) {
    const char c = code[i];
    if (c == '(' || c == '[' || c == '{') {
      ++depth;
    } else if (c == ')' || c == ']' || c == '}') {
      if (--depth == 0) {
        args.push_back(code.substr(start, i - start));
        return args;
      }
    } else if (c == ',' && depth == 1) {
      args.push_back(code.substr(start, i - start));
      start = i + 1;
    }
  }
  return {};
}

std::optional<int64_t> PositiveInt(absl::string_view text) {
  int64_t v = 0;
  text = absl::StripAsciiWhitespace(text);
  if (!absl::SimpleAtoi(text, &v) || v < 1 || v > kMaxSize) return std::nullopt;
  return v;
}

}  // namespace

std::vector<std::optional<int64_t>> AdaptiveOutputSize(std::string_view text, size_t rank) {
  const absl::string_view code(text.data(), text.size());
  size_t at = 0;
  for (;;) {
    at = code.find("adaptive_", at);
    if (at == absl::string_view::npos) return {};
    // F.adaptive_avg_pool2d( / torch.nn.functional.adaptive_max_pool1d( / torch.adaptive_...
    const absl::string_view rest = code.substr(at);
    const bool pool =
        absl::StartsWith(rest, "adaptive_avg_pool") || absl::StartsWith(rest, "adaptive_max_pool");
    const size_t open = rest.find('(');
    if (pool && open != absl::string_view::npos && open <= 20) {
      std::vector<absl::string_view> args = Arguments(rest, open);
      if (args.size() < 2) return {};
      absl::string_view size = absl::StripAsciiWhitespace(args[1]);
      absl::ConsumePrefix(&size, "output_size=");
      for (absl::string_view a : args) {
        a = absl::StripAsciiWhitespace(a);
        if (absl::ConsumePrefix(&a, "output_size")) {
          a = absl::StripLeadingAsciiWhitespace(a);
          if (absl::ConsumePrefix(&a, "=")) size = absl::StripAsciiWhitespace(a);
        }
      }
      if (std::optional<int64_t> one = PositiveInt(size)) {
        return std::vector<std::optional<int64_t>>(rank, one);
      }
      if (size.size() < 2 || !((size.front() == '(' && size.back() == ')') ||
                               (size.front() == '[' && size.back() == ']'))) {
        return {};
      }
      std::vector<std::optional<int64_t>> out;
      const std::string padded = absl::StrCat("f", size);
      for (absl::string_view item : Arguments(padded, 1)) {
        item = absl::StripAsciiWhitespace(item);
        if (item.empty()) continue;  // (4,)
        out.push_back(PositiveInt(item));
      }
      return out.size() == rank ? out : std::vector<std::optional<int64_t>>{};
    }
    at += 1;
  }
}

std::map<std::string, int64_t> RecordedPoolSizes(const ir::Model& model,
                                                 const infer::Inference& inference) {
  std::map<std::string, int64_t> sizes;
  std::map<std::string, bool> conflicted;
  const ir::Graph& g = model.graph();
  for (int index : g.topological_order()) {
    const ir::Node n = g.node(index);
    if ((n.op_type() != "AveragePool" && n.op_type() != "MaxPool") || n.input_size() < 1 ||
        !(n.domain().empty() || n.domain() == "ai.onnx")) {
      continue;
    }
    const std::vector<int64_t> kernel = n.IntsAttribute("kernel_shape").value_or({});
    const std::vector<int64_t> strides = n.IntsAttribute("strides").value_or({});
    const std::vector<int64_t> pads = n.IntsAttribute("pads").value_or({});
    if (kernel.empty() || strides != kernel ||
        std::any_of(pads.begin(), pads.end(), [](int64_t p) { return p != 0; })) {
      continue;
    }
    const std::optional<SourceLocation> source = SourceOf(n);
    if (!source) continue;
    const std::vector<std::optional<int64_t>> output =
        AdaptiveOutputSize(source->code, kernel.size());
    const infer::TensorFact* in = inference.Find(n.input(0));
    if (output.empty() || in == nullptr || !in->shape ||
        in->shape->size() != kernel.size() + kSpatialBegin) {
      continue;
    }
    for (size_t i = 0; i < kernel.size(); ++i) {
      const sym::MaybeExpr& dim = (*in->shape)[kSpatialBegin + i];
      const auto symbol = dim ? dim->AsSymbol() : std::nullopt;
      if (!symbol || !output[i] || kernel[i] < 1 || kernel[i] > kMaxSize) continue;
      const int64_t size = kernel[i] * *output[i];
      const std::string name(*symbol);
      auto [it, added] = sizes.emplace(name, size);
      if (!added && it->second != size) conflicted[name] = true;
    }
  }
  for (const auto& [symbol, bad] : conflicted) sizes.erase(symbol);
  return sizes;
}

}  // namespace shapelint::lint
