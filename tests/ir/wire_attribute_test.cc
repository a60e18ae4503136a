// The loader checks a main-graph node's attributes on their wire format instead of parsing them
// (ReadWireAttribute): it must refuse exactly what protobuf's parser refuses, and name each
// attribute as protobuf does. Ops read the plain values (type, i, f, s, ints) from the same bytes
// (ReadWirePlainAttribute): they must be protobuf's. Checked on every attribute of the export
// corpus and of ONNX's test data, on random damage to each, and on hand-written corners of the
// format.
#include <onnx/onnx_pb.h>

#include <catch2/catch.hpp>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "ir/wire_nodes.h"
#include "test_files.h"

namespace shapelint::ir {
namespace {

using ::shapelint::testing::ReadFile;

using ONNX_NAMESPACE::AttributeProto;

// The serialized attributes of the main graph's nodes of every model under `dir`.
std::vector<std::string> AttributesUnder(const std::filesystem::path& dir) {
  std::vector<std::string> out;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir)) {
    if (entry.path().extension() != ".onnx") continue;
    const std::string bytes = ReadFile(entry.path());
    auto split = SplitMainGraphNodes(bytes);
    if (!split) continue;
    WireNode node;
    for (std::string_view n : split->nodes) {
      if (!ReadWireNode(n, node)) continue;
      for (std::string_view a : node.attributes) out.emplace_back(a);
    }
  }
  return out;
}

std::string Hex(const std::string& bytes) {
  std::string out;
  for (unsigned char c : bytes) {
    static constexpr char kDigits[] = "0123456789abcdef";
    out += kDigits[c >> 4];
    out += kDigits[c & 15];
  }
  return out;
}

// True when the plain values read from `bytes` are those of `parsed` (the float bit for bit).
bool SamePlainValues(const std::string& bytes, const AttributeProto& parsed) {
  WirePlainAttribute plain;
  std::vector<int64_t> ints;
  if (!ReadWirePlainAttribute(bytes, plain, &ints)) return false;
  const float f = parsed.f();
  return plain.type == parsed.type() && plain.i == parsed.i() &&
         std::memcmp(&plain.f, &f, sizeof(float)) == 0 && plain.s == parsed.s() &&
         ints == std::vector<int64_t>(parsed.ints().begin(), parsed.ints().end());
}

// True when the wire readers and protobuf's parser agree on `bytes`: the verdict, the name and
// the plain values (or the reader leaves the bytes to protobuf); both sides in `why` otherwise.
bool Agree(const std::string& bytes, std::string* why = nullptr) {
  WireAttribute wire;
  const bool read = ReadWireAttribute(bytes, wire);
  if (read && wire.nested) return true;
  AttributeProto parsed;
  const bool parses = parsed.ParseFromString(bytes);
  const bool agree =
      read == parses && (!read || (wire.name == parsed.name() && SamePlainValues(bytes, parsed)));
  if (!agree && why != nullptr) {
    *why = "wire " + std::string(read ? "reads" : "refuses") + ", protobuf " +
           (parses ? "parses" : "refuses") + ": " + Hex(bytes);
  }
  return agree;
}

TEST_CASE("wire attributes agree with protobuf on real models and on damaged copies", "[ir]") {
  std::vector<std::string> attributes =
      AttributesUnder(std::filesystem::path(SHAPELINT_SOURCE_DIR) / "tests/corpus/exports");
  const size_t from_exports = attributes.size();
  for (std::string& a :
       AttributesUnder(std::filesystem::path(SHAPELINT_ONNX_TESTDATA_DIR) / "node")) {
    attributes.push_back(std::move(a));
  }
  CHECK(from_exports > 1000);
  CHECK(attributes.size() > from_exports + 1000);

  int disagreements = 0;
  std::string first;
  auto check = [&](const std::string& bytes) {
    std::string why;
    if (!Agree(bytes, &why) && disagreements++ == 0) first = why;
  };
  std::mt19937 random(20261130);
  int refused = 0;
  for (const std::string& a : attributes) {
    check(a);
    if (a.empty()) continue;
    // One byte changed, one cut off the end, one removed, one added: each at a random place.
    auto at = [&](size_t n) { return std::uniform_int_distribution<size_t>(0, n - 1)(random); };
    auto byte = [&] {
      return static_cast<char>(std::uniform_int_distribution<int>(0, 255)(random));
    };
    std::string changed = a;
    changed[at(a.size())] = byte();
    const std::string cut = a.substr(0, at(a.size()));
    std::string removed = a;
    removed.erase(at(a.size()), 1);
    std::string added = a;
    added.insert(at(a.size() + 1), 1, byte());
    for (const std::string& m : {changed, cut, removed, added}) {
      check(m);
      AttributeProto parsed;
      if (!parsed.ParseFromString(m)) ++refused;
    }
  }
  INFO(first);
  CHECK(disagreements == 0);
  // The damage must reach the refusals, or the comparison shows little.
  CHECK(refused > static_cast<int>(attributes.size()));
}

// Serialized fields, written by hand.
std::string Tag(int field, int wire_type) {
  std::string out;
  uint32_t v = static_cast<uint32_t>(field) << 3 | static_cast<uint32_t>(wire_type);
  while (v >= 0x80) {
    out.push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
  return out;
}
std::string Len(int field, const std::string& content) {
  return Tag(field, 2) + std::string(1, static_cast<char>(content.size())) + content;
}
std::string Varint(int field, int value) {
  return Tag(field, 0) + std::string(1, static_cast<char>(value));
}

TEST_CASE("wire attributes agree with protobuf on the format's corners", "[ir]") {
  const std::string name = Len(1, "axis");
  struct Case {
    const char* what;
    std::string bytes;
    bool parses;
  };
  const Case cases[] = {
      {"packed floats in whole numbers", name + Len(7, std::string(8, '\x01')), true},
      {"packed floats with a byte over", name + Len(7, std::string(5, '\x01')), false},
      {"packed ints", name + Len(8, "\x01\x96\x01\x02"), true},
      {"packed ints, the last cut off", name + Len(8, "\x01\x96"), false},
      {"a float given as a string: an unknown field", name + Len(2, "abc"), true},
      {"an int given as a string: an unknown field", name + Len(3, "abc"), true},
      {"the name twice: the last counts", Len(1, "first") + Len(1, "second"), true},
      {"the name as a varint: an unknown field", Varint(1, 5), true},
      {"a tensor's packed dims", name + Len(5, Len(1, "\x02\x03") + Varint(2, 7)), true},
      {"a tensor's packed dims cut off", name + Len(5, Len(1, "\x02\x83")), false},
      {"a tensor's float data with a byte over", name + Len(5, Len(4, std::string(6, 'x'))), false},
      {"a tensor's double data in whole numbers", name + Len(5, Len(10, std::string(16, 'x'))),
       true},
      {"a tensor's double data with bytes over", name + Len(5, Len(10, std::string(12, 'x'))),
       false},
      {"a tensor's int64 data cut off", name + Len(5, Len(7, "\x01\xff")), false},
      {"a tensor's uint64 data", name + Len(5, Len(11, "\x01\x7f")), true},
      {"a tensor's int32 data cut off", name + Len(5, Len(5, "\x80")), false},
      {"a tensor's segment", name + Len(5, Len(3, Varint(1, 0) + Varint(2, 4))), true},
      {"a tensor's segment, broken inside", name + Len(5, Len(3, Tag(1, 2) + "\x09")), false},
      {"a tensor's external data entry", name + Len(5, Len(13, Len(1, "location"))), true},
      {"a tensor's external data entry, broken", name + Len(5, Len(13, Tag(2, 2) + "\x05" + "ab")),
       false},
      {"a tensor's strings, not UTF-8", name + Len(5, Len(6, "\xff\xfe")), true},
      {"a tensor with an unknown group",
       name + Len(5, Tag(20, 3) + Varint(1, 1) + Tag(20, 4) + Varint(2, 7)), true},
      {"a tensor with a group left open", name + Len(5, Tag(20, 3) + Varint(1, 1)), false},
      {"a tensor with field 0", name + Len(5, Varint(0, 1)), false},
      {"tensors, the second broken", name + Len(10, Varint(2, 7)) + Len(10, Tag(9, 2) + "\x05"),
       false},
      {"field 0", name + Varint(0, 1), false},
      {"wire type 6", name + Tag(9, 6), false},
      {"an end tag with no group", name + Tag(9, 4), false},
      {"the name longer than the bytes", Tag(1, 2) + "\x7f" + "ab", false},
      {"an int, then another: the last counts", name + Varint(20, 2) + Varint(3, 5) + Varint(3, 9),
       true},
      {"a type that names no AttributeType keeps the one before",
       name + Varint(20, 2) + Varint(20, 99), true},
      {"a type that names none, alone", name + Varint(20, 99), true},
      {"a type given as a string: an unknown field", name + Len(20, "\x02"), true},
      {"a type over 32 bits, taken to its low bits", name + Tag(20, 0) + "\x82\x80\x80\x80\x10",
       true},
      {"a negative int", name + Varint(20, 2) + Tag(3, 0) + std::string(9, '\xff') + "\x01", true},
      {"ints unpacked, packed, unpacked",
       name + Varint(20, 7) + Varint(8, 1) + Len(8, "\x02\x03") + Varint(8, 4), true},
      {"a float", name + Varint(20, 1) + Tag(2, 5) + std::string("\x00\x00\xc0\x3f", 4), true},
      {"a float given as a varint: an unknown field", name + Varint(20, 1) + Varint(2, 3), true},
      {"an int given as fixed64: an unknown field", name + Tag(3, 1) + std::string(8, '\x01'),
       true},
      {"a string twice: the last counts", name + Varint(20, 3) + Len(4, "ab") + Len(4, "cd"), true},
  };
  for (const Case& c : cases) {
    INFO(c.what);
    AttributeProto parsed;
    CHECK(parsed.ParseFromString(c.bytes) == c.parses);
    std::string why;
    CHECK(Agree(c.bytes, &why));
    INFO(why);
  }
  WireAttribute wire;
  const std::string twice = Len(1, "first") + Len(1, "second");  // the name views into it
  REQUIRE(ReadWireAttribute(twice, wire));
  CHECK(wire.name == "second");
  CHECK_FALSE(wire.nested);
  // A graph, a type or a sparse tensor is left to protobuf.
  for (int field : {6, 11, 14, 15, 22, 23}) {
    INFO(field);
    REQUIRE(ReadWireAttribute(name + Len(field, ""), wire));
    CHECK(wire.nested);
  }
}

}  // namespace
}  // namespace shapelint::ir
