// Metadata entries (StringStringEntryProto) of nodes, graphs and values: fields of IR version 10
// that Debian's onnx 1.12 headers do not declare, read from the wire format or from the fields
// protobuf kept unknown. The exporters write their provenance there (torch.onnx's
// pkg.torch.onnx.stack_trace, torch.export's range constraints).
#ifndef SHAPELINT_LIB_IR_METADATA_H_
#define SHAPELINT_LIB_IR_METADATA_H_

#include <google/protobuf/message.h>

#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

namespace shapelint::ir {

inline constexpr uint64_t kNodeMetadataField = 9;    // NodeProto.metadata_props
inline constexpr uint64_t kGraphMetadataField = 16;  // GraphProto.metadata_props
inline constexpr uint64_t kValueMetadataField = 4;   // ValueInfoProto.metadata_props

using MetadataEntry = std::pair<std::string_view, std::string_view>;  // key, value

// The keys the linter reads; a node's other entries are not kept (a dynamo export writes four
// or five per node, stack traces of hundreds of bytes among them).
bool IsKeptNodeMetadataKey(std::string_view key);

// Reads a serialized StringStringEntryProto; false when the bytes break the wire format.
bool ReadStringEntry(std::string_view bytes, MetadataEntry& entry);

// The entries of `message`'s field `number` where protobuf kept it as an unknown field (the
// generated class does not declare it): views into the message.
std::vector<MetadataEntry> UnknownStringEntries(const google::protobuf::Message& message,
                                                int number);

}  // namespace shapelint::ir

#endif  // SHAPELINT_LIB_IR_METADATA_H_
