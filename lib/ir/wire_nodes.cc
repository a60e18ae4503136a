#include "ir/wire_nodes.h"

#include <onnx/onnx_pb.h>

#include <bit>
#include <cstdint>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "google/protobuf/io/coded_stream.h"
#include "ir/skim.h"
#include "ir/wire.h"
#include "ir/wire_fields.h"

namespace shapelint::ir {
namespace {

using wire::kExternal;
using wire::kGraphInitializer;
using wire::kGraphNode;
using wire::kModelFunctions;
using wire::kModelGraph;
using wire::kNodeInput;
using wire::kTensorDataLocation;
using wire::kTensorExternalData;

// Field numbers from onnx.proto (the shared ones in wire_fields.h).
constexpr uint64_t kNodeOutput = 2;
constexpr uint64_t kNodeName = 3;
constexpr uint64_t kNodeOpType = 4;
constexpr uint64_t kNodeAttribute = 5;
constexpr uint64_t kNodeDomain = 7;
constexpr uint64_t kNodeMetadata = 9;  // IR 10, newer than the onnx headers
// Fields of AttributeProto and TensorProto that need more than a well-formed wire format
// (messages, and repeated numbers that may come packed), and the plain values of attributes.
constexpr uint64_t kAttributeName = 1;
constexpr uint64_t kAttributeFloat = 2;
constexpr uint64_t kAttributeInt = 3;
constexpr uint64_t kAttributeString = 4;
constexpr uint64_t kAttributeType = 20;
constexpr uint64_t kAttributeTensor = 5;
constexpr uint64_t kAttributeGraph = 6;
constexpr uint64_t kAttributeFloats = 7;
constexpr uint64_t kAttributeInts = 8;
constexpr uint64_t kAttributeTensors = 10;
constexpr uint64_t kAttributeGraphs = 11;
constexpr uint64_t kAttributeTypeProto = 14;
constexpr uint64_t kAttributeTypeProtos = 15;
constexpr uint64_t kAttributeSparseTensor = 22;
constexpr uint64_t kAttributeSparseTensors = 23;
constexpr uint64_t kTensorDims = 1;
constexpr uint64_t kTensorSegment = 3;
constexpr uint64_t kTensorFloatData = 4;
constexpr uint64_t kTensorInt32Data = 5;
constexpr uint64_t kTensorInt64Data = 7;
constexpr uint64_t kTensorDoubleData = 10;
constexpr uint64_t kTensorUint64Data = 11;

using wire::AppendVarint;

// Appends initializer `tensor` (its content) to `out` as a graph field, without its
// external_data entries when it is stored as external data: linting never reads where the bytes
// are, and a model with external weights has three string pairs per weight, which cost ten times
// their size once parsed. False when the tensor breaks the wire format.
bool AppendInitializer(std::string_view tensor, std::string& out) {
  wire::FieldReader fields(tensor);
  wire::Field f;
  bool external = false;
  size_t external_bytes = 0;
  while (fields.Next(f)) {
    if (f.number == kTensorDataLocation && f.wire_type == wire::kVarint) {
      external = f.varint == kExternal;  // the last one counts, as when parsing
    } else if (f.number == kTensorExternalData && f.wire_type == wire::kLengthDelimited) {
      external_bytes += fields.position() - f.begin;
    }
  }
  if (fields.broken()) return false;
  AppendVarint(kGraphInitializer << 3 | wire::kLengthDelimited, out);
  if (!external || external_bytes == 0) {
    AppendVarint(tensor.size(), out);
    out.append(tensor);
    return true;
  }
  AppendVarint(tensor.size() - external_bytes, out);
  wire::FieldReader again(tensor);
  while (again.Next(f)) {
    if (f.number == kTensorExternalData && f.wire_type == wire::kLengthDelimited) continue;
    out.append(tensor.substr(f.begin, again.position() - f.begin));
  }
  return true;
}

}  // namespace

std::string NotAProtobufMessage() {
  return absl::StrCat(
      "cannot be parsed as an ONNX model (not a protobuf, truncated, or messages nested deeper "
      "than ",
      kMaxMessageDepth, " levels)");
}

std::optional<SplitModel> SplitMainGraphNodes(std::string_view model) {
  wire::FieldReader fields(model);
  wire::Field f;
  std::optional<wire::Field> graph;
  size_t graph_end = 0;
  while (fields.Next(f)) {
    if (f.number == kModelFunctions) return std::nullopt;
    if (f.number != kModelGraph) continue;
    if (graph || f.wire_type != wire::kLengthDelimited) return std::nullopt;
    graph = f;
    graph_end = fields.position();
  }
  if (fields.broken() || !graph) return std::nullopt;

  SplitModel split;
  std::string kept;  // the graph's fields other than nodes
  wire::FieldReader graph_fields(graph->content);
  size_t copied = 0;  // graph bytes up to here are in `kept` or are nodes
  while (graph_fields.Next(f)) {
    if (f.wire_type != wire::kLengthDelimited) continue;
    if (f.number == kGraphNode) {
      kept.append(graph->content.substr(copied, f.begin - copied));
      split.nodes.push_back(f.content);
      copied = graph_fields.position();
    } else if (f.number == kGraphInitializer) {
      kept.append(graph->content.substr(copied, f.begin - copied));
      if (!AppendInitializer(f.content, kept)) return std::nullopt;
      copied = graph_fields.position();
    }
  }
  if (graph_fields.broken()) return std::nullopt;
  kept.append(graph->content.substr(copied));

  split.without_nodes.reserve(model.size() - graph->content.size() + kept.size());
  split.without_nodes.append(model.substr(0, graph->begin));
  AppendVarint(kModelGraph << 3 | wire::kLengthDelimited, split.without_nodes);
  AppendVarint(kept.size(), split.without_nodes);
  split.without_nodes.append(kept);
  split.without_nodes.append(model.substr(graph_end));
  return split;
}

bool ReadWireNode(std::string_view bytes, WireNode& node) {
  node.name = node.op_type = node.domain = {};
  node.inputs.clear();
  node.outputs.clear();
  node.attributes.clear();
  node.metadata.clear();
  wire::FieldReader fields(bytes);
  wire::Field f;
  while (fields.Next(f)) {
    if (f.wire_type != wire::kLengthDelimited) continue;
    switch (f.number) {
      case kNodeInput:
        node.inputs.push_back(f.content);
        break;
      case kNodeOutput:
        node.outputs.push_back(f.content);
        break;
      case kNodeName:
        node.name = f.content;
        break;
      case kNodeOpType:
        node.op_type = f.content;
        break;
      case kNodeAttribute:
        node.attributes.push_back(f.content);
        break;
      case kNodeDomain:
        node.domain = f.content;
        break;
      case kNodeMetadata:
        node.metadata.push_back(f.content);
        break;
      default:
        break;
    }
  }
  return !fields.broken();
}

namespace {

// A packed repeated varint field: varints to its last byte, none cut off. Appends them to
// `out` as int64s unless it is null.
bool ReadPackedVarints(std::string_view content, std::vector<int64_t>* out) {
  size_t pos = 0;
  while (pos < content.size()) {
    std::optional<uint64_t> v = wire::ReadVarint(content, pos, content.size());
    if (!v) return false;
    if (out != nullptr) out->push_back(static_cast<int64_t>(*v));
  }
  return true;
}

bool PackedVarintsWellFormed(std::string_view content) {
  return ReadPackedVarints(content, nullptr);
}

// A message whose fields are all numbers or strings (TensorProto.Segment, a StringStringEntry):
// any well-formed wire format parses.
bool WellFormed(std::string_view message) {
  wire::FieldReader fields(message);
  wire::Field f;
  while (fields.Next(f)) {
  }
  return !fields.broken();
}

// Protobuf's parser takes a packed field of fixed-width numbers only in whole numbers.
bool TensorWellFormed(std::string_view tensor) {
  wire::FieldReader fields(tensor);
  wire::Field f;
  while (fields.Next(f)) {
    if (f.wire_type != wire::kLengthDelimited) continue;
    switch (f.number) {
      case kTensorDims:
      case kTensorInt32Data:
      case kTensorInt64Data:
      case kTensorUint64Data:
        if (!PackedVarintsWellFormed(f.content)) return false;
        break;
      case kTensorFloatData:
        if (f.content.size() % 4 != 0) return false;
        break;
      case kTensorDoubleData:
        if (f.content.size() % 8 != 0) return false;
        break;
      case kTensorSegment:
      case kTensorExternalData:
        if (!WellFormed(f.content)) return false;
        break;
      default:
        break;
    }
  }
  return !fields.broken();
}

}  // namespace

bool ReadWireAttribute(std::string_view bytes, WireAttribute& attribute) {
  attribute = {};
  wire::FieldReader fields(bytes);
  wire::Field f;
  while (fields.Next(f)) {
    // A field of another wire type than its declaration's is kept as an unknown field.
    if (f.wire_type != wire::kLengthDelimited) continue;
    switch (f.number) {
      case kAttributeName:
        attribute.name = f.content;
        break;
      case kAttributeTensor:
      case kAttributeTensors:
        if (!TensorWellFormed(f.content)) return false;
        break;
      case kAttributeFloats:
        if (f.content.size() % 4 != 0) return false;
        break;
      case kAttributeInts:
        if (!PackedVarintsWellFormed(f.content)) return false;
        break;
      case kAttributeGraph:
      case kAttributeGraphs:
      case kAttributeTypeProto:
      case kAttributeTypeProtos:
      case kAttributeSparseTensor:
      case kAttributeSparseTensors:
        attribute.nested = true;
        break;
      default:
        break;
    }
  }
  return !fields.broken();
}

bool ReadWirePlainAttribute(std::string_view bytes, WirePlainAttribute& attribute,
                            std::vector<int64_t>* ints) {
  attribute = {};
  if (ints != nullptr) ints->clear();
  wire::FieldReader fields(bytes);
  wire::Field f;
  while (fields.Next(f)) {
    switch (f.number) {
      case kAttributeFloat:
        if (f.wire_type == wire::kFixed32) {
          // The four bytes before the reader's position, little-endian as the host.
          static_assert(std::endian::native == std::endian::little);
          std::memcpy(&attribute.f, bytes.data() + fields.position() - 4, 4);
        }
        break;
      case kAttributeInt:
        if (f.wire_type == wire::kVarint) attribute.i = static_cast<int64_t>(f.varint);
        break;
      case kAttributeString:
        if (f.wire_type == wire::kLengthDelimited) attribute.s = f.content;
        break;
      case kAttributeType:
        // An enum field keeps a value it does not know as an unknown field, after taking it to
        // 32 bits.
        if (f.wire_type == wire::kVarint &&
            ONNX_NAMESPACE::AttributeProto::AttributeType_IsValid(static_cast<int>(f.varint))) {
          attribute.type = static_cast<int>(f.varint);
        }
        break;
      case kAttributeInts:
        if (ints == nullptr) break;
        if (f.wire_type == wire::kVarint) {
          ints->push_back(static_cast<int64_t>(f.varint));
        } else if (f.wire_type == wire::kLengthDelimited && !ReadPackedVarints(f.content, ints)) {
          return false;
        }
        break;
      default:
        break;
    }
  }
  return !fields.broken();
}

bool ParseWireAttribute(std::string_view bytes, ONNX_NAMESPACE::AttributeProto& attribute) {
  google::protobuf::io::CodedInputStream stream(reinterpret_cast<const uint8_t*>(bytes.data()),
                                                static_cast<int>(bytes.size()));
  stream.SetRecursionLimit(kMaxMessageDepth - 3);
  return attribute.MergeFromCodedStream(&stream) && stream.ConsumedEntireMessage();
}

}  // namespace shapelint::ir
