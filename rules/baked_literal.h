// The rules that report a literal the example's size reached (SL001's pool window, SL002's
// Reshape target, SL005's folded constant, SL007's literal derived from the export size). A rule
// that runs after them reads their findings to leave such a literal to them, or to read a
// restriction the literal causes as theirs: one literal, one finding.
#ifndef SHAPELINT_RULES_BAKED_LITERAL_H_
#define SHAPELINT_RULES_BAKED_LITERAL_H_

#include <vector>

#include "absl/container/flat_hash_set.h"
#include "shapelint/lint/finding.h"

namespace shapelint::lint {

inline bool StatesBakedLiteral(const Finding& f) {
  return f.rule == "SL001" || f.rule == "SL002" || f.rule == "SL005" || f.rule == "SL007";
}

// The main graph's nodes where a finding of `out` states a baked literal.
inline absl::flat_hash_set<int> NodesStatingBakedLiterals(const std::vector<Finding>& out) {
  absl::flat_hash_set<int> nodes;
  for (const Finding& f : out) {
    if (f.node.graph == "main" && StatesBakedLiteral(f)) nodes.insert(f.node.index);
  }
  return nodes;
}

}  // namespace shapelint::lint

#endif  // SHAPELINT_RULES_BAKED_LITERAL_H_
