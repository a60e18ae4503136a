// The hash of the tables keyed by names (value names, op types): Abseil's string hash.
#ifndef SHAPELINT_IR_NAME_HASH_H_
#define SHAPELINT_IR_NAME_HASH_H_

#include <cstddef>
#include <string_view>

#include "absl/container/flat_hash_map.h"
#include "absl/hash/hash.h"
#include "absl/strings/string_view.h"

namespace shapelint::ir {

// Where absl::string_view is a type of its own (Debian's Abseil), absl::Hash<std::string_view>
// falls back to std::hash, which hashes about three times slower: a twentieth of a run on a
// large model went to hashing value names (docs/performance.md).
struct NameHash {
  size_t operator()(std::string_view s) const {
    return absl::Hash<absl::string_view>{}(absl::string_view(s.data(), s.size()));
  }
};

template <typename Value>
using NameMap = absl::flat_hash_map<std::string_view, Value, NameHash>;

}  // namespace shapelint::ir

#endif  // SHAPELINT_IR_NAME_HASH_H_
