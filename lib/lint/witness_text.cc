// How a witness is put in words: the requirements that couple its symbols, which of them it
// restricts, and whose witness it is.
#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "lint/witness.h"

namespace shapelint::lint {

// A graph that computes sizes through padding arithmetic couples them by a dozen requirements of
// hundreds of characters each (EfficientFormerV2's attention biases), which no one reads in a
// message; the simplest say what the others restate.
std::string RelationsText(const std::vector<std::string>& relations) {
  constexpr size_t kShownRelations = 2;
  constexpr size_t kShownRelationLength = 160;
  std::vector<size_t> order(relations.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return relations[a].size() < relations[b].size(); });
  // erase, not resize: GCC 12 warns of bounds that resize cannot reach at -O2.
  if (order.size() > kShownRelations) order.erase(order.begin() + kShownRelations, order.end());
  std::erase_if(order, [&](size_t i) { return relations[i].size() > kShownRelationLength; });
  std::sort(order.begin(), order.end());
  std::vector<std::string> shown;
  shown.reserve(order.size());
  for (size_t i : order) shown.push_back(relations[i]);
  const size_t rest = relations.size() - shown.size();
  if (shown.empty()) {
    return absl::StrCat(rest, rest == 1 ? " requirement relates" : " requirements relate",
                        " them (the JSON report lists ", rest == 1 ? "it" : "them", ")");
  }
  std::string text = absl::StrCat("the model requires ", absl::StrJoin(shown, " and "));
  if (rest > 0) {
    absl::StrAppend(&text, ", and ", rest, rest == 1 ? " more requirement" : " more requirements",
                    " the JSON report lists");
  }
  return text;
}

// Equal implies broadcastable: "a ~ b" beside "a == b" (or "b == a") says nothing more.
void DropImpliedRelations(std::vector<std::string>& relations) {
  const std::vector<std::string> found = relations;  // erase_if moves what it reads
  std::erase_if(relations, [&](const std::string& rel) {
    const size_t at = rel.find(" ~ ");
    if (at == std::string::npos) return false;
    const std::string lhs = rel.substr(0, at), rhs = rel.substr(at + 3);
    const auto stated = [&](const std::string& r) {
      return std::find(found.begin(), found.end(), r) != found.end();
    };
    return stated(absl::StrCat(lhs, " == ", rhs)) || stated(absl::StrCat(rhs, " == ", lhs));
  });
}

bool Restricted(const SymbolRange& range) {
  return range.max.has_value() || (range.min && *range.min > 1);
}

std::vector<std::string> RestrictedSymbols(const Witness& witness,
                                           const std::vector<std::string>& symbols) {
  std::vector<std::string> out;
  for (const std::string& s : symbols) {
    const bool restricted =
        std::any_of(witness.ranges.begin(), witness.ranges.end(),
                    [&](const SymbolRange& r) { return r.symbol == s && Restricted(r); });
    if (restricted) out.push_back(s);
  }
  return out.empty() ? symbols : out;
}

void SayWitnessOf(std::string_view subject, Witness& witness) {
  const std::string works_only = "works only";
  if (!absl::StartsWith(witness.summary, works_only)) return;
  witness.summary =
      absl::StrCat(std::string(subject), " only", witness.summary.substr(works_only.size()));
}

}  // namespace shapelint::lint
