#include "lint/provenance.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace shapelint::lint {
namespace {

constexpr std::string_view kStackTrace = "pkg.torch.onnx.stack_trace";
constexpr std::string_view kClassHierarchy = "pkg.torch.onnx.class_hierarchy";
constexpr std::string_view kNameScopes = "pkg.torch.onnx.name_scopes";

absl::string_view View(std::string_view s) { return absl::string_view(s.data(), s.size()); }

// Reads `File "F", line N, in FUNC` into `frame`.
bool ReadFrameHead(absl::string_view text, Frame& frame) {
  text = absl::StripAsciiWhitespace(text);
  if (!absl::ConsumePrefix(&text, "File \"")) return false;
  const size_t quote = text.find('"');
  if (quote == absl::string_view::npos) return false;
  frame.file = std::string(text.substr(0, quote));
  text.remove_prefix(quote + 1);
  if (!absl::ConsumePrefix(&text, ", line ")) return false;
  const size_t comma = text.find(',');
  if (comma == absl::string_view::npos || !absl::SimpleAtoi(text.substr(0, comma), &frame.line)) {
    return false;
  }
  text.remove_prefix(comma + 1);
  if (!absl::ConsumePrefix(&text, " in ")) return false;
  frame.function = std::string(absl::StripAsciiWhitespace(text));
  return true;
}

// A Python list of strings as torch writes it: ['', 'inner', 'inner.net'].
std::vector<std::string> StringList(absl::string_view text) {
  std::vector<std::string> items;
  text = absl::StripAsciiWhitespace(text);
  if (!absl::ConsumePrefix(&text, "[") || !absl::ConsumeSuffix(&text, "]")) return items;
  for (absl::string_view item : absl::StrSplit(text, ", ")) {
    item = absl::StripAsciiWhitespace(item);
    if (item.size() >= 2 && (item.front() == '\'' || item.front() == '"') &&
        item.back() == item.front()) {
      items.emplace_back(item.substr(1, item.size() - 2));
    }
  }
  return items;
}

}  // namespace

// Frames in torch's own code, which every op passes through on its way to the exporter.
bool IsTorchInternal(const Frame& f) {
  // Generated files write paths from site-packages/ on (the corpora's scrubbed traces): torch/...
  return absl::StrContains(f.file, "site-packages/torch/") || absl::StartsWith(f.file, "torch/") ||
         absl::StartsWith(f.file, "<");
}

std::vector<Frame> StackFrames(const ir::Node& node) {
  std::vector<Frame> frames;
  const std::optional<std::string_view> trace = node.Metadata(kStackTrace);
  if (!trace) return frames;
  for (absl::string_view line : absl::StrSplit(View(*trace), '\n')) {
    Frame head;
    if (ReadFrameHead(line, head)) {
      frames.push_back(std::move(head));
    } else if (!frames.empty() && frames.back().code.empty()) {
      frames.back().code = std::string(absl::StripAsciiWhitespace(line));
    }
  }
  return frames;
}

std::optional<SourceLocation> SourceOf(const ir::Node& node) {
  const std::vector<Frame> frames = StackFrames(node);
  if (frames.empty()) return std::nullopt;
  const Frame* chosen = &frames.back();
  for (auto it = frames.rbegin(); it != frames.rend(); ++it) {
    if (!IsTorchInternal(*it)) {
      chosen = &*it;
      break;
    }
  }
  SourceLocation s{chosen->file, chosen->line, chosen->function, chosen->code, ""};
  if (const std::optional<std::string_view> scopes = node.Metadata(kNameScopes)) {
    // The last scope is the op itself; the one before it the innermost module.
    const std::vector<std::string> names = StringList(View(*scopes));
    if (names.size() >= 2) s.module = names[names.size() - 2];
  }
  return s;
}

int ReaderToShow(const ir::Graph& graph, std::string_view input) {
  const absl::Span<const int> readers = graph.Consumers(input);
  if (readers.empty()) return 0;
  std::vector<int> sorted(readers.begin(), readers.end());
  std::sort(sorted.begin(), sorted.end());
  for (int reader : sorted) {
    const std::vector<Frame> frames = StackFrames(graph.node(reader));
    if (std::any_of(frames.begin(), frames.end(),
                    [](const Frame& f) { return !IsTorchInternal(f); })) {
      return reader;
    }
  }
  return sorted.front();
}

namespace {

bool IdentifierChar(char c) { return absl::ascii_isalnum(c) || c == '_' || c == '.'; }

// The argument of each outermost int() call of `code`, to its matching parenthesis (or the end
// of a cut line), until `found` returns true; whether it did. A call nested in another's argument
// is part of that argument: the scan goes on after it, so that the work stays linear in the
// line however deep the calls nest.
template <typename Found>
bool AnyIntArgument(std::string_view code, Found found) {
  for (size_t at = code.find("int("); at != std::string_view::npos;) {
    if (at > 0 && IdentifierChar(code[at - 1])) {  // print(, self.int(, _int(
      at = code.find("int(", at + 1);
      continue;
    }
    size_t end = at + 4;
    for (int depth = 1; end < code.size() && depth > 0; ++end) {
      if (code[end] == '(') ++depth;
      if (code[end] == ')') --depth;
    }
    if (found(absl::string_view(code.data() + at + 4, end - at - 4))) return true;
    at = code.find("int(", end);
  }
  return false;
}

}  // namespace

bool TakesIntOfSize(std::string_view code) {
  return AnyIntArgument(code, [](absl::string_view argument) {
    return absl::StrContains(argument, ".size(") || absl::StrContains(argument, ".shape");
  });
}

bool ReadsSize(std::string_view code) {
  const absl::string_view c = View(code);
  if (absl::StrContains(c, ".size(") || absl::StrContains(c, ".shape")) return true;
  for (size_t at = c.find("len("); at != absl::string_view::npos; at = c.find("len(", at + 1)) {
    if (at == 0 || !IdentifierChar(c[at - 1])) return true;  // not self.len( or max_len(
  }
  return false;
}

bool WritesSlice(std::string_view code) {
  const absl::string_view c = View(code);
  if (absl::StrContains(c, "narrow(")) return true;
  const size_t open = c.find('[');
  return open != absl::string_view::npos && c.find(':', open) != absl::string_view::npos;
}

bool TakesIntOfAxis(std::string_view code, int64_t axis, int64_t rank) {
  if (axis < 0 || axis >= rank) return false;
  const std::string spellings[] = {
      absl::StrCat(".size(", axis, ")"), absl::StrCat(".size(", axis - rank, ")"),
      absl::StrCat(".shape[", axis, "]"), absl::StrCat(".shape[", axis - rank, "]")};
  return AnyIntArgument(code, [&](absl::string_view argument) {
    return std::any_of(std::begin(spellings), std::end(spellings),
                       [&](const std::string& s) { return absl::StrContains(argument, s); });
  });
}

bool WritesOne(std::string_view code) {
  std::string text(code);
  // Blank the axes of .size(...) and .shape[...], then every -1 that is a number of its own.
  for (const auto& [open, close] : {std::pair{".size(", ')'}, std::pair{".shape[", ']'}}) {
    for (size_t at = text.find(open); at != std::string::npos; at = text.find(open, at + 1)) {
      for (size_t i = at + std::string_view(open).size(); i < text.size() && text[i] != close;
           ++i) {
        text[i] = ' ';
      }
    }
  }
  for (size_t at = text.find("-1"); at != std::string::npos; at = text.find("-1", at + 1)) {
    const size_t end = at + 2;
    if (end == text.size() || !(IdentifierChar(text[end]) || text[end] == '.')) text[at + 1] = ' ';
  }
  return WritesNumber(text, 1);
}

bool TakesIntOfValue(std::string_view code) {
  // Each name of the argument (a run of identifier characters): one that is no number, not
  // under self. and not a function is a value of forward's.
  return AnyIntArgument(code, [](absl::string_view argument) {
    for (size_t i = 0; i < argument.size();) {
      if (!IdentifierChar(argument[i])) {
        ++i;
        continue;
      }
      size_t j = i;
      while (j < argument.size() && IdentifierChar(argument[j])) ++j;
      const absl::string_view name = argument.substr(i, j - i);
      const bool number = absl::ascii_isdigit(name[0]) || name[0] == '.';
      const bool own = absl::StartsWith(name, "self.");
      // A function (math.sqrt(, float(, round() is no value; a method of one is (x.size().
      const bool call = j < argument.size() && argument[j] == '(';
      const bool library = absl::StartsWith(name, "math.") || absl::StartsWith(name, "torch.") ||
                           absl::StartsWith(name, "np.") || absl::StartsWith(name, "numpy.");
      const bool function = call && (library || !absl::StrContains(name, "."));
      if (!number && !own && !function) return true;
      i = j;
    }
    return false;
  });
}

namespace {

// `code` with the arguments of every permutation call blanked: they are axes, not sizes.
std::string WithoutPermutationAxes(std::string_view code) {
  std::string out(code);
  for (const std::string_view call :
       {".permute(", ".transpose(", ".movedim(", ".moveaxis(", ".swapaxes(", ".swapdims("}) {
    for (size_t at = out.find(call); at != std::string::npos; at = out.find(call, at + 1)) {
      int depth = 1;
      for (size_t i = at + call.size(); i < out.size() && depth > 0; ++i) {
        if (out[i] == '(') ++depth;
        if (out[i] == ')' && --depth == 0) break;
        if (depth == 1 && absl::ascii_isdigit(out[i])) out[i] = ' ';
      }
    }
  }
  return out;
}

}  // namespace

bool WritesNumber(std::string_view code, int64_t value) {
  // The magnitude in unsigned arithmetic: -INT64_MIN does not fit an int64_t.
  const uint64_t magnitude =
      value < 0 ? uint64_t{0} - static_cast<uint64_t>(value) : static_cast<uint64_t>(value);
  const std::string digits = absl::StrCat(magnitude);
  const std::string text = WithoutPermutationAxes(code);
  // Part of a longer number, a float or a name (x4, 0.5, 1e4, _4) is not the number.
  for (size_t at = text.find(digits); at != std::string::npos; at = text.find(digits, at + 1)) {
    const size_t end = at + digits.size();
    if ((at == 0 || !IdentifierChar(text[at - 1])) &&
        (end == text.size() || !IdentifierChar(text[end]))) {
      return true;
    }
  }
  return false;
}

bool WritesDecimal(std::string_view code, double value) {
  const double magnitude = std::fabs(value);
  if (!(magnitude > 0) || !std::isfinite(magnitude)) return false;
  auto digit = [](char c) { return absl::ascii_isdigit(c); };
  for (size_t at = 0; at < code.size();) {
    // A number starts at a digit, or at a '.' before one, not inside a name (x4, _5).
    const bool starts =
        (digit(code[at]) || (code[at] == '.' && at + 1 < code.size() && digit(code[at + 1]))) &&
        (at == 0 || !IdentifierChar(code[at - 1]));
    if (!starts) {
      ++at;
      continue;
    }
    size_t end = at;
    bool decimal = false;
    while (end < code.size() && (digit(code[end]) || code[end] == '.')) {
      decimal |= code[end] == '.';
      ++end;
    }
    if (end < code.size() && (code[end] == 'e' || code[end] == 'E')) {
      size_t exponent = end + 1;
      if (exponent < code.size() && (code[exponent] == '-' || code[exponent] == '+')) ++exponent;
      if (exponent < code.size() && digit(code[exponent])) {
        decimal = true;
        end = exponent;
        while (end < code.size() && digit(code[end])) ++end;
      }
    }
    // An exponent is no scale of its own: `d ** -0.5` computes one from d.
    size_t before = at;
    while (before > 0 && code[before - 1] == ' ') --before;
    if (before > 0 && (code[before - 1] == '-' || code[before - 1] == '+')) --before;
    while (before > 0 && code[before - 1] == ' ') --before;
    const bool exponent = before >= 2 && code.substr(before - 2, 2) == "**";
    double number = 0;
    if (decimal && !exponent && absl::SimpleAtod(View(code.substr(at, end - at)), &number) &&
        std::fabs(number - magnitude) <= 1e-6 * magnitude) {
      return true;
    }
    at = end;
  }
  return false;
}

std::vector<std::string> ClassHierarchy(const ir::Node& node) {
  const std::optional<std::string_view> text = node.Metadata(kClassHierarchy);
  if (!text) return {};
  return StringList(View(*text));
}

std::optional<std::string> ResamplingAsked(const std::string& code) {
  const std::string lower = absl::AsciiStrToLower(code);
  auto ident = [](char c) { return absl::ascii_isalnum(c) || c == '_' || c == '.'; };
  for (const char* word : {"interpolate", "resample"}) {
    for (size_t at = lower.find(word); at != std::string::npos; at = lower.find(word, at + 1)) {
      size_t begin = at, end = at;
      while (begin > 0 && ident(lower[begin - 1])) --begin;
      while (end < lower.size() && ident(lower[end])) ++end;
      if (end < lower.size() && lower[end] == '(') return code.substr(begin, end - begin);
      size_t value = end;
      while (value < lower.size() && lower[value] == ' ') ++value;
      if (value < lower.size() && lower[value] == '=' && value + 1 < lower.size() &&
          lower[value + 1] != '=') {
        ++value;
        while (value < lower.size() && lower[value] == ' ') ++value;
        if (lower.compare(value, 4, "true") == 0) return code.substr(begin, end - begin);
      }
    }
  }
  return std::nullopt;
}

std::optional<std::string> ResamplingCall(const ir::Graph& graph, const ir::Node& node) {
  const std::vector<Frame> frames = StackFrames(node);
  for (auto it = frames.rbegin(); it != frames.rend(); ++it) {
    if (IsTorchInternal(*it)) continue;
    std::optional<std::string> asked = ResamplingAsked(it->code);
    if (!asked) continue;
    for (int i = 0; i < graph.num_nodes(); ++i) {
      const ir::Node n = graph.node(i);
      if (n.op_type() != "Resize" && n.op_type() != "Upsample") continue;
      for (const Frame& f : StackFrames(n)) {
        if (f.file == it->file && f.line == it->line) return std::nullopt;
      }
    }
    return asked;
  }
  return std::nullopt;
}

}  // namespace shapelint::lint
