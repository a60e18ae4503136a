// Reading the protobuf wire format by hand, where the generated parser would copy too much.
#ifndef SHAPELINT_LIB_IR_WIRE_H_
#define SHAPELINT_LIB_IR_WIRE_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace shapelint::ir::wire {

enum WireType : uint64_t {
  kVarint = 0,
  kFixed64 = 1,
  kLengthDelimited = 2,
  kStartGroup = 3,
  kEndGroup = 4,
  kFixed32 = 5,
};

// Groups nested deeper than this are refused, as protobuf's parser refuses deep messages.
inline constexpr int kMaxGroupDepth = 100;

// The varint at `pos` in `bytes` before `end`; `pos` moves past it. nullopt when it is cut off
// or longer than ten bytes.
inline std::optional<uint64_t> ReadVarint(std::string_view bytes, size_t& pos, size_t end) {
  uint64_t v = 0;
  for (int shift = 0; shift < 64 && pos < end; shift += 7) {
    const auto byte = static_cast<uint8_t>(bytes[pos++]);
    v |= static_cast<uint64_t>(byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) return v;
  }
  return std::nullopt;
}

// The tag at `pos`, as protobuf's parser reads one: at most five bytes, its value kept to 32
// bits. nullopt when it is cut off or longer, or names field 0, which protobuf refuses.
inline std::optional<uint32_t> ReadTag(std::string_view bytes, size_t& pos, size_t end) {
  uint32_t v = 0;
  for (int shift = 0; shift < 35 && pos < end; shift += 7) {
    const auto byte = static_cast<uint8_t>(bytes[pos++]);
    v |= static_cast<uint32_t>(byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) return (v >> 3) == 0 ? std::nullopt : std::optional<uint32_t>(v);
  }
  return std::nullopt;
}

// Appends `v` as a varint.
inline void AppendVarint(uint64_t v, std::string& out) {
  while (v >= 0x80) {
    out.push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
}

// One field of a message: its number and wire type, the varint value or the content of a
// length-delimited field, and where it starts.
struct Field {
  uint64_t number = 0;
  uint64_t wire_type = 0;
  uint64_t varint = 0;
  std::string_view content;
  size_t begin = 0;  // offset of the tag in the message
};

// The fields of one serialized message, in order. A group (wire types 3 and 4: no ONNX field
// is one, but protobuf keeps them as unknown fields) is one field whose content is its bytes
// up to the end tag.
class FieldReader {
 public:
  explicit FieldReader(std::string_view message) : bytes_(message) {}

  // The next field; false at the end of the message or when the bytes are broken.
  bool Next(Field& field) {
    if (!Read(field, 0)) return false;
    return field.wire_type != kEndGroup || Fail();  // an end tag with no group open
  }

  bool broken() const { return broken_; }
  size_t position() const { return pos_; }

 private:
  // Reads one field at group nesting `depth`; an end tag is returned as a field of its own,
  // for the group being read to close.
  bool Read(Field& field, int depth) {
    if (pos_ >= bytes_.size()) return false;
    const size_t end = bytes_.size();
    field.begin = pos_;
    std::optional<uint32_t> tag = ReadTag(bytes_, pos_, end);
    if (!tag) return Fail();
    field.number = *tag >> 3;
    field.wire_type = *tag & 7;
    switch (field.wire_type) {
      case kVarint: {
        std::optional<uint64_t> v = ReadVarint(bytes_, pos_, end);
        if (!v) return Fail();
        field.varint = *v;
        return true;
      }
      case kFixed64:
      case kFixed32: {
        const size_t width = field.wire_type == kFixed64 ? 8 : 4;
        if (end - pos_ < width) return Fail();
        pos_ += width;
        return true;
      }
      case kLengthDelimited: {
        std::optional<uint64_t> length = ReadVarint(bytes_, pos_, end);
        if (!length || *length > end - pos_) return Fail();
        field.content = bytes_.substr(pos_, *length);
        pos_ += *length;
        return true;
      }
      case kStartGroup:
        return ReadGroup(field, depth + 1);
      case kEndGroup:
        return true;
      default:
        return Fail();  // wire types 6 and 7 do not exist
    }
  }

  // Reads the fields of the group that `field` starts, nested groups included, up to its end
  // tag; the group's content is what lies between.
  bool ReadGroup(Field& field, int depth) {
    if (depth > kMaxGroupDepth) return Fail();
    const size_t content = pos_;
    Field inner;
    for (;;) {
      if (pos_ >= bytes_.size()) return Fail();  // no end tag
      if (!Read(inner, depth)) return false;
      if (inner.wire_type != kEndGroup) continue;
      if (inner.number != field.number) return Fail();
      field.content = bytes_.substr(content, inner.begin - content);
      return true;
    }
  }

  bool Fail() {
    broken_ = true;
    pos_ = bytes_.size();
    return false;
  }

  std::string_view bytes_;
  size_t pos_ = 0;
  bool broken_ = false;
};

}  // namespace shapelint::ir::wire

#endif  // SHAPELINT_LIB_IR_WIRE_H_
