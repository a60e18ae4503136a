// Fuzz target: sym::Parse of dim_param strings, and printing what it parsed (ToString is meant
// to give back the same expression).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "shapelint/sym/expr.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  namespace sym = shapelint::sym;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  // Each input's expressions are freed after it: a long run does not grow one table forever.
  sym::InternScope scope;
  auto parsed = sym::Parse(text);
  if (parsed.ok()) {
    // A round trip that fails or changes the expression is a bug in Parse or ToString. Text cut
    // at the limit (it ends in "...") does not parse, by design.
    constexpr size_t kLimit = 1 << 16;
    const std::string printed = parsed->ToString(kLimit);
    if (printed.size() < kLimit) {
      auto again = sym::Parse(printed);
      if (!again.ok() || *again != *parsed) abort();
    }
  }
  (void)sym::FromDimParam(text);
  return 0;
}
