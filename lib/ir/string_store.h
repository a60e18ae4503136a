// Storage for the strings of nodes read from the wire format: the bytes they come from are
// released after loading, and a model names each value several times but needs each name once.
#ifndef SHAPELINT_LIB_IR_STRING_STORE_H_
#define SHAPELINT_LIB_IR_STRING_STORE_H_

#include <deque>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "shapelint/ir/name_hash.h"

namespace shapelint::ir {

class StringStore {
 public:
  // A copy of `s` that lives as long as the store; each call copies.
  std::string_view Keep(std::string_view s);
  // A std::string equal to `s`, shared by every call with the same text (op types, domains).
  const std::string& Intern(std::string_view s);

 private:
  // Names are copied into blocks of this size (larger names get a block of their own), so that
  // a few hundred thousand names cost their characters and no allocation each.
  static constexpr size_t kBlockSize = 64 * 1024;
  std::vector<std::unique_ptr<char[]>> blocks_;
  size_t used_ = kBlockSize;  // in blocks_.back()
  std::deque<std::string> strings_;
  NameMap<const std::string*> interned_;
};

}  // namespace shapelint::ir

#endif  // SHAPELINT_LIB_IR_STRING_STORE_H_
