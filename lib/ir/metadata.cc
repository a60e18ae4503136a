#include "ir/metadata.h"

#include <google/protobuf/unknown_field_set.h>

#include <algorithm>
#include <array>

#include "ir/wire.h"
#include "ir/wire_fields.h"

namespace shapelint::ir {
namespace {

using wire::kEntryKey;
using wire::kEntryValue;

constexpr std::array<std::string_view, 3> kKeptNodeKeys = {
    "pkg.torch.onnx.class_hierarchy",
    "pkg.torch.onnx.name_scopes",
    "pkg.torch.onnx.stack_trace",
};

}  // namespace

bool IsKeptNodeMetadataKey(std::string_view key) {
  return std::find(kKeptNodeKeys.begin(), kKeptNodeKeys.end(), key) != kKeptNodeKeys.end();
}

bool ReadStringEntry(std::string_view bytes, MetadataEntry& entry) {
  entry = {};
  wire::FieldReader fields(bytes);
  wire::Field f;
  while (fields.Next(f)) {
    if (f.wire_type != wire::kLengthDelimited) continue;
    if (f.number == kEntryKey) entry.first = f.content;
    if (f.number == kEntryValue) entry.second = f.content;
  }
  return !fields.broken();
}

std::vector<MetadataEntry> UnknownStringEntries(const google::protobuf::Message& message,
                                                int number) {
  std::vector<MetadataEntry> entries;
  const google::protobuf::UnknownFieldSet& unknown =
      message.GetReflection()->GetUnknownFields(message);
  for (int i = 0; i < unknown.field_count(); ++i) {
    const google::protobuf::UnknownField& field = unknown.field(i);
    if (field.number() != number ||
        field.type() != google::protobuf::UnknownField::TYPE_LENGTH_DELIMITED) {
      continue;
    }
    MetadataEntry entry;
    if (ReadStringEntry(field.length_delimited(), entry)) entries.push_back(entry);
  }
  return entries;
}

}  // namespace shapelint::ir
