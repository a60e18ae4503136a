#include "ir/string_store.h"

#include <cstring>

namespace shapelint::ir {

std::string_view StringStore::Keep(std::string_view s) {
  if (s.empty()) return {};
  if (s.size() > kBlockSize / 4) {
    // A long name gets its own block, inserted before the current one so that the current
    // block's free space stays usable.
    auto block = std::make_unique_for_overwrite<char[]>(s.size());
    std::memcpy(block.get(), s.data(), s.size());
    std::string_view kept(block.get(), s.size());
    blocks_.insert(blocks_.empty() ? blocks_.end() : blocks_.end() - 1, std::move(block));
    return kept;
  }
  if (kBlockSize - used_ < s.size()) {
    // Not zeroed: the bytes are written before they are read, and zeroing a block cost a small
    // model more than reading it, and touched pages it never used.
    blocks_.push_back(std::make_unique_for_overwrite<char[]>(kBlockSize));
    used_ = 0;
  }
  char* at = blocks_.back().get() + used_;
  std::memcpy(at, s.data(), s.size());
  used_ += s.size();
  return std::string_view(at, s.size());
}

const std::string& StringStore::Intern(std::string_view s) {
  auto it = interned_.find(s);
  if (it != interned_.end()) return *it->second;
  const std::string& kept = strings_.emplace_back(s);
  interned_.emplace(std::string_view(kept), &kept);
  return kept;
}

}  // namespace shapelint::ir
