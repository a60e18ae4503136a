// Which fix-its of one lint run go together (lib/lint/fix_choice.h).
#include "lint/fix_choice.h"

#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/types/span.h"
#include "lint/fix_apply.h"

namespace shapelint::lint {
namespace {

bool Applicable(const Finding& f, const FixOptions& options) {
  return f.fix_it && (f.fix_it->applicability != Applicability::kUnsafe || options.unsafe_fixes);
}

// True when two fix-its edit the same node or input, or size a symbol differently.
bool OverlapOne(const FixIt& a, const FixIt& b) {
  auto touched = [](const FixIt& f) {
    absl::flat_hash_set<std::string> t;
    for (int n : f.replaced) t.insert(absl::StrCat("node ", n));
    for (const FixRewire& r : f.rewires) t.insert(absl::StrCat("input ", r.node, ":", r.input));
    for (const FixRewire& r : f.rewires) t.insert(absl::StrCat("node ", r.node, " replaced"));
    return t;
  };
  const auto ta = touched(a);
  for (const std::string& key : touched(b)) {
    if (ta.contains(key)) return true;
  }
  for (int n : b.replaced) {
    if (ta.contains(absl::StrCat("node ", n, " replaced"))) return true;
  }
  for (int n : a.replaced) {
    for (const FixRewire& r : b.rewires) {
      if (r.node == n) return true;
    }
  }
  for (const auto& [symbol, size] : a.symbol_sizes) {
    for (const auto& [other, other_size] : b.symbol_sizes) {
      if (symbol == other && size != other_size) return true;
    }
  }
  return false;
}

// The same for fix-its with their siblings.
bool Overlap(const FixIt& a, const FixIt& b) {
  const FixIt* pa = &a;
  const FixIt* pb = &b;
  for (const FixIt* x : WithSiblings(absl::MakeConstSpan(&pa, 1))) {
    for (const FixIt* y : WithSiblings(absl::MakeConstSpan(&pb, 1))) {
      if (OverlapOne(*x, *y)) return true;
    }
  }
  return false;
}

void AddFollowed(const Finding& f, Followed& followed) {
  for (const std::string& symbol : f.symbols) followed.emplace(symbol, Where(f));
}

// Why `fix` may not go with the others: an unsafe declaration that pins a size where another
// fix of the run made the graph follow the symbol (SL011's "declare s77 = 2" would undo the
// repair that made the Reshape follow s77); nullopt when it may. Fixes of one run are planned
// together. A safe declaration (a weight fixes the size) gives up nothing the graph could do.
std::optional<std::string> PinsFollowed(const FixIt& fix, const Followed& followed) {
  if (fix.applicability != Applicability::kUnsafe) return std::nullopt;
  const FixIt* p = &fix;
  for (const FixIt* f : WithSiblings(absl::MakeConstSpan(&p, 1))) {
    for (const auto& [symbol, size] : f->symbol_sizes) {
      auto it = followed.find(symbol);
      if (it == followed.end()) continue;
      return absl::StrCat("its declaration would pin ", symbol, " = ", size, ", which the fix of ",
                          it->second,
                          " makes the graph follow: one run's fixes never undo each "
                          "other");
    }
  }
  return std::nullopt;
}

}  // namespace

std::string Where(const Finding& f) { return absl::StrCat(f.rule, " at '", f.node.label, "'"); }

bool SizesSymbols(const FixIt& fix) {
  const FixIt* p = &fix;
  for (const FixIt* f : WithSiblings(absl::MakeConstSpan(&p, 1))) {
    if (!f->symbol_sizes.empty()) return true;
  }
  return false;
}

std::vector<const Finding*> Choose(const std::vector<Finding>& findings, const FixOptions& options,
                                   std::vector<UnfixedFinding>& unfixed, Followed& followed) {
  for (const Finding& f : findings) {
    if (Applicable(f, options) && !SizesSymbols(*f.fix_it)) AddFollowed(f, followed);
  }
  std::vector<const Finding*> chosen;
  for (const Finding& f : findings) {
    if (!f.fix_it) {
      if (f.severity != Severity::kNote || !f.unfixable.empty()) {
        unfixed.push_back({f, f.unfixable.empty()
                                  ? absl::StrCat(f.rule, " (", f.name, ") has no fix for this")
                                  : f.unfixable});
      }
      continue;
    }
    if (!Applicable(f, options)) {
      unfixed.push_back({f, absl::StrCat("an unsafe fix (it changes what the model ",
                                         "computes where it works), applied with ",
                                         "--unsafe-fixes: ", f.fix_it->description)});
      continue;
    }
    if (std::optional<std::string> pins = PinsFollowed(*f.fix_it, followed)) {
      unfixed.push_back({f, *std::move(pins)});
      continue;
    }
    const Finding* clash = nullptr;
    for (const Finding* c : chosen) {
      if (Overlap(*c->fix_it, *f.fix_it)) clash = c;
    }
    if (clash != nullptr) {
      unfixed.push_back({f, absl::StrCat("its fix edits what the fix of ", Where(*clash),
                                         " edits; fix the output again")});
      continue;
    }
    chosen.push_back(&f);
  }
  return chosen;
}

}  // namespace shapelint::lint
