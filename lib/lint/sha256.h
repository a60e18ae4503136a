// SHA-256 (FIPS 180-4), for reading names torch derives from one: torch.export numbers the
// symbol of an input's axis by the SHA-256 of its source name ("L['x'].size()[2]") modulo 100
// (export_ranges.h). Not for security.
#ifndef SHAPELINT_LIB_LINT_SHA256_H_
#define SHAPELINT_LIB_LINT_SHA256_H_

#include <array>
#include <cstdint>
#include <string_view>

namespace shapelint::lint {

// The digest of `data`, most significant byte first.
std::array<uint8_t, 32> Sha256(std::string_view data);

// The digest read as a big-endian integer, modulo `m` (m > 0): Python's
// int(hashlib.sha256(data).hexdigest(), 16) % m.
uint32_t Sha256Mod(std::string_view data, uint32_t m);

}  // namespace shapelint::lint

#endif  // SHAPELINT_LIB_LINT_SHA256_H_
