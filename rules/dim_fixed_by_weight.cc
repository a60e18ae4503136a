// SL004 dim-fixed-by-weight: a dim the inputs declare dynamic is fixed by the shape of a
// weight — a conv kernel's input channels, a linear layer's in_features, a per-channel scale.
// The graph is fine and PyTorch rejects other sizes too; the declaration is what is wrong.
//
// Claims: a failure whose failing node meets a trained weight (LiteralSource::Kind::kWeight:
// a kernel or feature count the node contracts over, a per-channel vector, or a tensor named
// as a module parameter).
#include <algorithm>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "lint/fix_builder.h"
#include "lint/provenance.h"
#include "lint/rule.h"

namespace shapelint::lint {
namespace {

// The size the weight gives `symbol` on its own, from the finding's witness: nullopt when the
// weight fixes only a relation of several dims (two inputs concatenated into its features).
std::optional<int64_t> FixedSize(const Finding& f, const std::string& symbol) {
  if (!f.witness || !f.witness->relations.empty()) return std::nullopt;
  for (const SymbolRange& r : f.witness->ranges) {
    if (r.symbol == symbol && r.min && r.max && *r.min == *r.max) return *r.min;
  }
  return std::nullopt;
}

// The repair of the declaration: each dim the weight fixes declared as its size, wherever the
// graph names it (inputs, outputs, value_info), or at its input's axis when it has no name.
void AddDeclarationFix(const Analysis& analysis, const Cause& cause, Finding& f) {
  std::vector<std::pair<std::string, int64_t>> sizes;
  std::vector<std::string> text;
  for (const std::string& symbol : cause.symbols) {
    std::optional<int64_t> size = FixedSize(f, symbol);
    if (!size) {
      f.unfixable = absl::StrCat("the weight fixes a relation of ",
                                 absl::StrJoin(cause.symbols, ", "), ", not each of them");
      return;
    }
    sizes.emplace_back(symbol, *size);
    text.push_back(absl::StrCat(symbol, " = ", *size));
  }
  // Where the weight meets the dim by broadcasting (x + pos), size 1 runs too: the declaration
  // would refuse it, so the fix is unsafe.
  const bool broadcasts = std::any_of(cause.pins.begin(), cause.pins.end(), [](const Pin* pin) {
    return pin->requirement->relation == infer::Relation::kBroadcastable;
  });
  f.fix_it = DeclarationFix(
      analysis, broadcasts ? Applicability::kUnsafe : Applicability::kSafe, sizes,
      absl::StrCat("declare ", absl::StrJoin(text, ", "), ", the size the weight fixes",
                   broadcasts ? " (size 1 broadcasts as well, and is refused then)" : ""));
}

// True when the weight meets the dim by broadcasting (a table added to tokens), not by a
// contraction (a layer's features).
bool BroadcastsIn(const Cause& cause) {
  return std::any_of(cause.pins.begin(), cause.pins.end(), [](const Pin* pin) {
    return pin->requirement->relation == infer::Relation::kBroadcastable;
  });
}

// What a line of Python asks to resample, by name: a call ("interpolate_pos_encoding" in
// `embeddings + self.interpolate_pos_encoding(embeddings, h, w)`, "resample_abs_pos_embed(...)")
// or a flag set ("interpolate_pos_encoding" in `model(pixel_values,
// interpolate_pos_encoding=True)`). A flag passed on as a variable
// (`interpolate_pos_encoding=interpolate_pos_encoding`) asks nothing by itself and is the frame
// below's to show.
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

// What the node's recorded stack asks to resample: the innermost frame outside torch's own code
// whose line calls a resampler or sets a resampling flag (ResamplingAsked), where no Resize of
// the graph was recorded under that frame: there the graph resamples too
// (`F.interpolate(x, size=(6, 6)) + self.bias` resizes x, not the table).
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

class DimFixedByWeight : public Rule {
 public:
  using Rule::Rule;

  bool ClaimsLiteral(const BlameSite& site) const override {
    return site.literal().kind == LiteralSource::Kind::kWeight;
  }

  void Check(const Analysis& analysis, std::vector<Finding>& out) const override {
    for (const Cause& cause : analysis.causes()) {
      if (!Owns(cause)) continue;
      const infer::Requirement& r = *cause.pins.front()->requirement;
      Finding f = FindingFor(analysis, cause, cause.node,
                             absl::StrCat("weight '", cause.literal.name, "' [",
                                          absl::StrJoin(cause.literal.dims, ", "), "] fixes ",
                                          absl::StrJoin(cause.symbols, ", "),
                                          ", which the inputs declare dynamic (", r.what, ")"));
      // The graph is right for the sizes it was built for: a note about the declaration. Unless
      // the exporter recorded that the line resamples the table (transformers'
      // interpolate_pos_encoding, timm's resample_abs_pos_embed) in a branch the trace did not
      // take at the export size: the source adapts the table and the graph does not, a
      // hypothesis of a bake (a warning) that a run of the module settles.
      const std::optional<std::string> resampler =
          BroadcastsIn(cause) ? ResamplingCall(*cause.graph, cause.graph->node(cause.node))
                              : std::nullopt;
      f.evidence = resampler ? Evidence::kHypothesis : Evidence::kDesign;
      if (resampler) {
        f.notes.push_back(
            {absl::StrCat("the exporter recorded '", *resampler,
                          "' on this node's stack, and the graph resamples nothing under it: the "
                          "module adapts the table to the input's grid in a branch the trace did "
                          "not take at the export size, and the graph kept the table's size; "
                          "eager PyTorch runs at the other sizes if the module resamples there"),
             std::nullopt});
      }
      f.attribute = cause.literal.name;
      f.fix =
          "declare these dims static (drop them from dynamic_axes / dynamic_shapes), or change "
          "the layer if the model is meant to take other sizes";
      if (analysis.fixes_wanted()) AddDeclarationFix(analysis, cause, f);
      out.push_back(std::move(f));
    }
  }
};

}  // namespace

std::unique_ptr<Rule> MakeDimFixedByWeight(const RuleInfo& info) {
  return std::make_unique<DimFixedByWeight>(info);
}

}  // namespace shapelint::lint
