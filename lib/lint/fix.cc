// lint::Fix: the fix-its of one lint run chosen, applied together on the serialized model, and
// the result proven (shapelint/lint/fix.h); a set that fails the proof is retried fix by fix.
#include "shapelint/lint/fix.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <optional>
#include <set>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ir/file_bytes.h"
#include "ir/onnx_text.h"
#include "ir/rewrite.h"
#include "lint/analysis.h"
#include "lint/export_ranges.h"
#include "lint/fix_apply.h"
#include "lint/fix_choice.h"
#include "lint/rule.h"
#include "shapelint/ir/load.h"
#include "shapelint/lint/probe.h"
#include "shapelint/sym/expr.h"

namespace shapelint::lint {
namespace {

namespace onnx = ONNX_NAMESPACE;

using Sizes = std::map<std::string, int64_t>;
using OutputDims = std::vector<std::pair<std::string, std::optional<std::vector<int64_t>>>>;

// What a lint run says of a model, and what its outputs are at given sizes.
struct Snapshot {
  std::vector<Finding> findings;
  Sizes witness;
  Sizes example;  // the export sizes, when given
  OutputDims outputs;
  std::set<std::string> specialized;  // symbols torch.export's record specializes
};

sym::Binding BindingOf(const Sizes& sizes) {
  sym::Binding b;
  for (const auto& [symbol, size] : sizes) b.Set(symbol, size);
  return b;
}

// Lints `model`, keeping the witness and the outputs' dims at `at` (its own witness when null).
absl::StatusOr<Snapshot> LintAndMeasure(const ir::Model& model, LintOptions options,
                                        absl::Span<const RuleFactory> registry, const Sizes* at) {
  Snapshot snap;
  options.fix_its = true;
  auto findings = RunRules(model, options, registry, [&](const Analysis& analysis) {
    for (const auto& [symbol, size] : analysis.witness().values()) snap.witness[symbol] = size;
    for (const auto& [symbol, size] : analysis.example().values()) snap.example[symbol] = size;
    for (const auto& [symbol, size] : analysis.specialized()) snap.specialized.insert(symbol);
    const sym::Binding binding = BindingOf(at != nullptr ? *at : snap.witness);
    for (const auto& out : model.graph().proto().output()) {
      snap.outputs.emplace_back(out.name(), analysis.DimsAt(out.name(), binding));
    }
  });
  if (!findings.ok()) return findings.status();
  snap.findings = *std::move(findings);
  return snap;
}

// A finding's rule and node, by the node's first output where it has one: indices move when a
// fix adds nodes, names of values do not.
std::string KeyOf(const ir::Model& model, const Finding& f) {
  std::string node = absl::StrCat(f.node.graph, "#", f.node.index);
  if (f.node.graph == "main" && f.node.index >= 0 && f.node.index < model.graph().num_nodes()) {
    const ir::Node n = model.graph().node(f.node.index);
    if (n.output_size() > 0) node = absl::StrCat("main:", std::string(n.output(0)));
  }
  return absl::StrCat(f.rule, "|", node, "|", f.attribute);
}

// ONNX's checker and strict shape inference on `bytes`: the failure's text, or nullopt. Where
// they cannot judge the model (an opset newer than this build's ONNX knows, or the binary
// without its module), a note says the check was not run.
std::optional<std::string> CheckerFailure(std::string_view bytes, std::vector<std::string>& notes) {
  std::string message;
  switch (ir::CheckOnnxModel(bytes, message)) {
    case ir::ModelCheck::kAccepted:
      return std::nullopt;
    case ir::ModelCheck::kRefused:
      return message;
    case ir::ModelCheck::kSkipped:
    case ir::ModelCheck::kUnavailable:
      notes.push_back(absl::StrCat("ONNX's checker was not run: ", message));
      return std::nullopt;
  }
  return std::nullopt;
}

struct Proof {
  std::string bytes;
  std::vector<std::string> diff;
  // KeyOf the fixed model's findings, with their severity.
  absl::flat_hash_map<std::string, Severity> remaining;
  std::string failure;  // empty: proven
};

class Fixer {
 public:
  // `known`: the findings a fixed model may have, by KeyOf (those of the model the fixes
  // started from, and those later rounds fix).
  Fixer(std::string_view bytes, const ir::Model& model, const FixOptions& options,
        absl::Span<const RuleFactory> registry, const Snapshot& original,
        const absl::flat_hash_set<std::string>& known, bool external_data)
      : bytes_(bytes),
        model_(model),
        options_(options),
        registry_(registry),
        original_(original),
        known_(known),
        external_data_(external_data) {
    // The fixed model is linted with its witness where the model it came from works, so that
    // what a fix reveals is matched at those sizes.
    lint_ = options.lint;
    if (lint_.witness_hint.empty()) {
      lint_.witness_hint.assign(original.witness.begin(), original.witness.end());
    }
  }

  // Keys of the findings with a fix-it that the last proof accepted although `known` lacks
  // them: a literal the fixed one hid (the first failure is the only one blamed), which the
  // next round fixes.
  const absl::flat_hash_set<std::string>& revealed() const { return revealed_; }

  // `fixes` applied and checked against the original.
  Proof Try(const std::vector<const Finding*>& fixes, std::vector<std::string>& notes) {
    Proof proof;
    std::vector<const FixIt*> its;
    its.reserve(fixes.size());
    for (const Finding* f : fixes) its.push_back(&*f->fix_it);
    auto edits = BuildEdits(model_, its, options_.lint.dynamic);
    if (!edits.ok()) return Failed(proof, std::string(edits.status().message()));
    MarkFollowed(fixes, edits->rewrite);
    auto bytes = ir::RewriteModel(bytes_, edits->rewrite);
    if (!bytes.ok()) return Failed(proof, std::string(bytes.status().message()));
    proof.bytes = *std::move(bytes);
    proof.diff = std::move(edits->diff);
    auto fixed = ir::LoadModelFromBytes(proof.bytes, model_.source(), ir::ModelFormat::kBinary);
    if (!fixed.ok()) {
      return Failed(proof, absl::StrCat("it does not load: ", fixed.status().message()));
    }
    std::set<std::pair<std::string, int>> pinned;
    for (const FixIt* fix : WithSiblings(its)) {
      pinned.insert(fix->stale_declarations.begin(), fix->stale_declarations.end());
    }
    // Where no requirement binds a symbol in the witness, the export sizes still say where the
    // original ran: the exporter wrote its declarations there.
    Sizes where = original_.witness;
    where.insert(original_.example.begin(), original_.example.end());
    edits->rewrite.declared_dims = StaleDeclarations(**fixed, model_, where, pinned, proof.diff);
    if (!edits->rewrite.declared_dims.empty()) {
      bytes = ir::RewriteModel(bytes_, edits->rewrite);
      if (!bytes.ok()) return Failed(proof, std::string(bytes.status().message()));
      proof.bytes = *std::move(bytes);
      fixed = ir::LoadModelFromBytes(proof.bytes, model_.source(), ir::ModelFormat::kBinary);
      if (!fixed.ok()) {
        return Failed(proof, absl::StrCat("it does not load: ", fixed.status().message()));
      }
    }
    if (CheckOriginal(notes)) {
      std::vector<std::string> ignored;
      if (auto failure = CheckerFailure(proof.bytes, ignored)) {
        return Failed(proof, absl::StrCat("ONNX's checker refuses it: ", *failure));
      }
    }
    auto after = LintAndMeasure(**fixed, lint_, registry_, &original_.witness);
    if (!after.ok()) return Failed(proof, std::string(after.status().message()));
    if (!HoldsAtOwnSizes(its)) {
      if (auto failure = SameOutputs(after->outputs)) return Failed(proof, *failure);
    }
    if (auto failure = SameOutputsWhereRight(**fixed, its)) return Failed(proof, *failure);
    if (auto failure = Progress(**fixed, fixes, after->findings)) return Failed(proof, *failure);
    for (const Finding& f : after->findings) proof.remaining.emplace(KeyOf(**fixed, f), f.severity);
    return proof;
  }

 private:
  // Lists in the model's metadata (kFixFollowedKey) the symbols `fixes` make the graph follow,
  // with those an earlier fix listed: the exporter's record of them (SL011) is then of the graph
  // before the fix.
  void MarkFollowed(const std::vector<const Finding*>& fixes, ir::ModelRewrite& rewrite) const {
    std::vector<std::string> symbols = FollowedByFix(model_);
    const size_t before = symbols.size();
    for (const Finding* f : fixes) {
      if (SizesSymbols(*f->fix_it)) continue;
      for (const std::string& symbol : f->symbols) {
        if (original_.specialized.contains(symbol)) symbols.push_back(symbol);
      }
    }
    std::sort(symbols.begin(), symbols.end());
    symbols.erase(std::unique(symbols.begin(), symbols.end()), symbols.end());
    if (symbols.size() == before) return;
    rewrite.model_metadata.emplace_back(std::string(kFixFollowedKey), absl::StrJoin(symbols, ","));
  }

  static Proof& Failed(Proof& proof, std::string why) {
    proof.failure = std::move(why);
    return proof;
  }

  // True when the original passes the checker (checked once): a model that fails it already
  // proves nothing about the fix.
  bool CheckOriginal(std::vector<std::string>& notes) {
    if (!original_checked_ && external_data_) {
      original_checked_ = true;
      notes.push_back(
          "ONNX's checker was not run: the weights are external data, which it would look for "
          "relative to the working directory");
      check_fixed_ = false;
    }
    if (!original_checked_) {
      original_checked_ = true;
      std::vector<std::string> skipped;
      auto failure = CheckerFailure(bytes_, skipped);
      notes.insert(notes.end(), skipped.begin(), skipped.end());
      if (failure) {
        notes.push_back(absl::StrCat("ONNX's checker refuses the input model already (", *failure,
                                     "): the fixed model was not checked with it"));
      }
      check_fixed_ = !failure && skipped.empty();
    }
    return check_fixed_;
  }

  std::optional<std::string> SameOutputs(const OutputDims& after) const {
    for (size_t i = 0; i < original_.outputs.size() && i < after.size(); ++i) {
      const auto& [name, before] = original_.outputs[i];
      if (!before || after[i].second == before) continue;
      return absl::StrCat("output '", name, "' at the sizes where the model works would be ",
                          after[i].second
                              ? absl::StrCat("[", absl::StrJoin(*after[i].second, ", "), "]")
                              : "unknown",
                          " instead of [", absl::StrJoin(*before, ", "), "]");
    }
    return std::nullopt;
  }

  static bool HoldsAtOwnSizes(const std::vector<const FixIt*>& chosen) {
    for (const FixIt* fix : WithSiblings(chosen)) {
      if (!fix->holds_at.empty()) return true;
    }
    return false;
  }

  // For fixes right at sizes of their own (FixIt::holds_at), the outputs of both models there:
  // at the witness the literal was wrong (it mixed samples silently), so that comparison would
  // refuse the fix that is right.
  std::optional<std::string> SameOutputsWhereRight(const ir::Model& fixed,
                                                   const std::vector<const FixIt*>& chosen) const {
    Sizes at = original_.witness;
    bool own = false;
    for (const FixIt* fix : WithSiblings(chosen)) {
      for (const auto& [symbol, size] : fix->holds_at) {
        at[symbol] = size;
        own = true;
      }
    }
    if (!own) return std::nullopt;
    ProbeSpec spec;
    spec.sizes.assign(at.begin(), at.end());
    auto before = Probe(model_, {{"", spec}});
    auto now = Probe(fixed, {{"", spec}});
    if (!before.ok() || !now.ok()) {
      return absl::StrCat("the outputs at the sizes where it is right cannot be compared: ",
                          (before.ok() ? now : before).status().message());
    }
    const auto& a = before->front().at.outputs;
    const auto& b = now->front().at.outputs;
    for (size_t i = 0; i < a.size() && i < b.size(); ++i) {
      if (a[i].actual == b[i].actual) continue;
      return absl::StrCat("output '", a[i].value, "' where the literal is right would be [",
                          absl::StrJoin(b[i].actual, ", "), "] instead of [",
                          absl::StrJoin(a[i].actual, ", "), "]");
    }
    return std::nullopt;
  }

  // Why the fixed model's findings do not show the fixes worked: one of them is still reported,
  // or a finding the original did not have appeared that has no fix-it of its own.
  std::optional<std::string> Progress(const ir::Model& fixed,
                                      const std::vector<const Finding*>& fixes,
                                      const std::vector<Finding>& after) {
    absl::flat_hash_set<std::string> keys, revealed;
    for (const Finding& f : after) {
      const std::string key = KeyOf(fixed, f);
      if (!known_.contains(key)) {
        // A new note says what the model is (an input contract, a range its design sets) that
        // the literal hid: past + seq == total once the keys follow seq. Said (of the model
        // written, once every round is done), not refused.
        if (f.fix_it) {
          revealed.insert(key);
        } else if (f.severity != Severity::kNote) {
          return absl::StrCat("it has a new finding, ", Where(f), ": ", f.message);
        }
      }
      keys.insert(key);
    }
    revealed_ = std::move(revealed);
    for (const Finding* f : fixes) {
      if (keys.contains(KeyOf(model_, *f))) return absl::StrCat(Where(*f), " is still reported");
    }
    return std::nullopt;
  }

  std::string_view bytes_;
  const ir::Model& model_;
  const FixOptions& options_;
  absl::Span<const RuleFactory> registry_;
  const Snapshot& original_;
  const absl::flat_hash_set<std::string>& known_;
  LintOptions lint_;
  absl::flat_hash_set<std::string> revealed_;
  bool original_checked_ = false;
  bool check_fixed_ = false;
  bool external_data_ = false;
};

// ONNX text starts with its header, '<', after blank space and '#' comment lines.
bool LooksLikeText(std::string_view bytes) {
  size_t at = bytes.find_first_not_of(" \t\r\n");
  while (at != std::string_view::npos && bytes[at] == '#') {
    at = bytes.find('\n', at);
    if (at != std::string_view::npos) at = bytes.find_first_not_of(" \t\r\n", at);
  }
  return at != std::string_view::npos && bytes[at] == '<';
}

// One round: the fix-its of `bytes`' findings applied and proven. `known` are the findings the
// result may have; the round adds those it revealed.
struct Round {
  std::string bytes;
  std::vector<Finding> fixed;
  std::vector<UnfixedFinding> unfixed;
  std::vector<std::string> diff;
  bool revealed = false;  // the result has fixable findings the next round takes
  Sizes witness;          // where the model the round started from works
};

absl::StatusOr<Round> FixRound(std::string_view bytes, const std::string& source,
                               const FixOptions& options, absl::Span<const RuleFactory> registry,
                               absl::flat_hash_set<std::string>& known,
                               absl::flat_hash_set<std::string>& original_notes, Followed& followed,
                               bool first, bool external_data, std::vector<std::string>& notes) {
  auto model = ir::LoadModelFromBytes(bytes, source, ir::ModelFormat::kBinary);
  if (!model.ok()) return model.status();
  auto original = LintAndMeasure(**model, options.lint, registry, nullptr);
  if (!original.ok()) return original.status();
  if (first) {
    for (const Finding& f : original->findings) {
      known.insert(KeyOf(**model, f));
      if (f.severity == Severity::kNote) original_notes.insert(KeyOf(**model, f));
    }
  }
  Round round;
  round.bytes = std::string(bytes);
  round.witness = original->witness;
  std::vector<const Finding*> chosen = Choose(original->findings, options, round.unfixed, followed);
  if (chosen.empty()) return round;
  Fixer fixer(bytes, **model, options, registry, *original, known, external_data);
  Proof all = fixer.Try(chosen, notes);
  std::vector<const Finding*> kept = chosen;
  if (!all.failure.empty()) {
    // Fix by fix: keep each that the proof accepts with those kept before it.
    kept.clear();
    all = Proof{};
    for (const Finding* f : chosen) {
      kept.push_back(f);
      Proof p = fixer.Try(kept, notes);
      if (p.failure.empty()) {
        all = std::move(p);
        continue;
      }
      kept.pop_back();
      round.unfixed.push_back({*f, absl::StrCat("its fix was left out: ", p.failure)});
    }
    if (kept.empty()) return round;
  }
  for (const Finding* f : kept) round.fixed.push_back(*f);
  // What the fixes made go (SL003's declarations the bake contradicted) is not left.
  std::vector<UnfixedFinding> left;
  for (UnfixedFinding& u : round.unfixed) {
    // A warning the fixed model still has only as a note (SL011 once the fix made the graph
    // follow its symbol) is no longer left; the final lint says the note.
    auto it = all.remaining.find(KeyOf(**model, u.finding));
    if (it == all.remaining.end()) continue;
    if (it->second == Severity::kNote && u.finding.severity != Severity::kNote) continue;
    left.push_back(std::move(u));
  }
  round.unfixed = std::move(left);
  known.insert(fixer.revealed().begin(), fixer.revealed().end());
  round.revealed = !fixer.revealed().empty();
  round.bytes = std::move(all.bytes);
  round.diff = std::move(all.diff);
  return round;
}

// Rounds after the first fix what a fix revealed: kron's last view fails only once the views
// before it follow their inputs.
constexpr int kMaxRounds = 4;

}  // namespace

absl::StatusOr<FixResult> FixWithRules(std::string_view model_bytes, const std::string& source,
                                       const FixOptions& options,
                                       absl::Span<const RuleFactory> registry) {
  if (LooksLikeText(model_bytes)) {
    return absl::InvalidArgumentError(
        absl::StrCat(source, ": fix rewrites binary models, and this is ONNX text"));
  }
  auto facts = ir::InspectModel(model_bytes);
  if (!facts.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(source, ": ", facts.status().message()));
  }
  if (facts->has_functions) {
    return absl::InvalidArgumentError(absl::StrCat(
        source, ": the model has local functions, which fix would have to inline; it does not"));
  }
  FixResult result;
  result.model = std::string(model_bytes);
  result.has_external_data = facts->has_external_data;
  absl::flat_hash_set<std::string> known, original_notes;
  Followed followed;
  FixOptions later = options;  // rounds after the first: the witness where the input worked
  for (int i = 0; i < kMaxRounds; ++i) {
    std::vector<std::string> notes;
    auto round = FixRound(result.model, source, i == 0 ? options : later, registry, known,
                          original_notes, followed, i == 0, facts->has_external_data, notes);
    if (!round.ok()) return round.status();
    // Each round checks its input anew: a note of the first (the checker was not run) is said
    // once.
    for (std::string& note : notes) {
      if (std::find(result.notes.begin(), result.notes.end(), note) == result.notes.end()) {
        result.notes.push_back(std::move(note));
      }
    }
    if (i == 0) later.lint.witness_hint.assign(round->witness.begin(), round->witness.end());
    result.unfixed = std::move(round->unfixed);
    for (Finding& f : round->fixed) result.fixed.push_back(std::move(f));
    result.diff.insert(result.diff.end(), round->diff.begin(), round->diff.end());
    const bool more = round->revealed;
    result.model = std::move(round->bytes);
    if (!more) break;
  }
  result.changed = result.model != model_bytes;
  if (result.changed) {
    // The notes of the model written that the input did not have (a warning it has only as a
    // note now among them): those of the last round's result, not of a model between rounds
    // that a later round changed again.
    auto fixed = ir::LoadModelFromBytes(result.model, source, ir::ModelFormat::kBinary);
    if (!fixed.ok()) return fixed.status();
    auto after = LintAndMeasure(**fixed, later.lint, registry, nullptr);
    if (!after.ok()) return after.status();
    for (const Finding& f : after->findings) {
      if (f.severity != Severity::kNote || original_notes.contains(KeyOf(**fixed, f))) continue;
      result.notes.push_back(
          absl::StrCat("the fixed model has a new note, ", Where(f), ": ", f.message));
    }
  }
  return result;
}

absl::StatusOr<std::string> MoveExternalData(std::string_view model_bytes, const std::string& from,
                                             const std::string& to) {
  auto facts = ir::InspectModel(model_bytes);
  if (!facts.ok()) return facts.status();
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path source = fs::weakly_canonical(fs::absolute(from, ec).parent_path(), ec);
  const fs::path target = fs::weakly_canonical(fs::absolute(to, ec).parent_path(), ec);
  if (ec) return absl::InvalidArgumentError(absl::StrCat(to, ": ", ec.message()));
  if (!facts->has_external_data || source == target) return std::string(model_bytes);
  const fs::path below = source.lexically_relative(target);
  if (below.empty() || *below.begin() == "..") {
    return absl::InvalidArgumentError(absl::StrCat(
        from,
        ": its weights are external data, which ONNX reads only from the model's directory "
        "or below it: write the fixed model into '",
        source.string(),
        "' or a directory above it (the data files stay where they are), or "
        "move the model with its data files first"));
  }
  ir::ModelRewrite rewrite;
  rewrite.external_data_prefix = below.generic_string() + "/";
  return ir::RewriteModel(model_bytes, rewrite);
}

absl::StatusOr<FixResult> FixFileWithRules(const std::string& path, const FixOptions& options,
                                           absl::Span<const RuleFactory> registry) {
  absl::StatusOr<ir::FileBytes> file = ir::FileBytes::Open(path);
  if (!file.ok()) return file.status();
  absl::StatusOr<FixResult> result = FixWithRules(file->bytes(), path, options, registry);
  if (file->truncated()) {
    return absl::DataLossError(absl::StrCat(path, ": the file changed while it was read"));
  }
  return result;
}

}  // namespace shapelint::lint
