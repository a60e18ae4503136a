// Binding: values by name, kept in slots, and found by a symbol node's id when the binding is
// large.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "shapelint/sym/expr.h"
#include "sym/expr_internal.h"
#include "sym/expr_node.h"

namespace shapelint::sym {
namespace {

// A binding this small finds its few names in a table that stays in the caches: indexing it by
// id would cost a lookup of the symbol node per name for nothing.
constexpr size_t kIndexFrom = 64;

// Ids are indexed only while the array stays proportional to the binding: one small binding in
// a process with many symbols alive would otherwise hold an array as long as all of them.
size_t IndexLimit(size_t slots) { return 4 * slots + 1024; }

}  // namespace

absl::flat_hash_map<std::string, int64_t> Binding::values() const {
  absl::flat_hash_map<std::string, int64_t> values;
  values.reserve(slots_.size());
  for (Slot s = 0; s < slots_.size(); ++s) {
    if (slots_[s].bound) values.emplace(names_[s], slots_[s].value);
  }
  return values;
}

Binding::Slot Binding::SlotOf(std::string_view symbol) {
  auto [it, fresh] =
      slot_of_.try_emplace(absl::string_view(symbol.data(), symbol.size()), slots_.size());
  if (!fresh) return it->second;
  const Slot slot = it->second;
  names_.emplace_back(symbol);
  slots_.emplace_back();
  const size_t size = slots_.size();
  if (size < kIndexFrom) return slot;
  if (size == kIndexFrom) {
    for (Slot s = 0; s < size; ++s) IndexById(s);
    return slot;
  }
  IndexById(slot);
  // Those not indexed yet are tried again whenever the binding doubles: an id past the limit
  // then may be within it now, a symbol without a node may have one.
  if ((size & (size - 1)) == 0) {
    std::vector<Slot> retry;
    retry.swap(unindexed_);
    for (Slot s : retry) IndexById(s);
  }
  return slot;
}

void Binding::IndexById(Slot slot) {
  // A name no expression holds yet has no node: Get finds it by name if one comes to.
  const ExprNode* node = FindSymbol(names_[slot]);
  if (node == nullptr || node->symbol_id >= IndexLimit(slots_.size())) {
    unindexed_.push_back(slot);
    return;
  }
  if (node->symbol_id >= by_id_.size()) by_id_.resize(node->symbol_id + 1);
  by_id_[node->symbol_id] = {node->serial, slot};
}

}  // namespace shapelint::sym
