// The nodes of a binary model's main graph, read from the wire format without NodeProtos.
#ifndef SHAPELINT_LIB_IR_WIRE_NODES_H_
#define SHAPELINT_LIB_IR_WIRE_NODES_H_

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace shapelint::ir {

// The message for bytes that are not a well-formed ModelProto, after the source's name.
std::string NotAProtobufMessage();

// A serialized ModelProto split in two: the model with its main graph's nodes left out, and
// each of those nodes' bytes (views into the input), in order. The main graph's initializers
// stored as external data lose their external_data entries on the way, which linting never
// reads (see AppendInitializer).
struct SplitModel {
  std::string without_nodes;
  std::vector<std::string_view> nodes;
};

// nullopt when the model should be parsed whole instead: the bytes break the wire format at
// the top two levels, the model has no graph or several graph fields (which protobuf merges), or
// it defines functions (they are inlined into the nodes, which needs NodeProtos).
std::optional<SplitModel> SplitMainGraphNodes(std::string_view model);

// The fields of one serialized NodeProto that the linter reads; views into its bytes.
struct WireNode {
  std::string_view name, op_type, domain;
  std::vector<std::string_view> inputs, outputs, attributes;
  std::vector<std::string_view> metadata;  // serialized StringStringEntryProtos (ir/metadata.h)
};

// Reads `bytes` into `node` (cleared first). False when they break the wire format. Repeated
// singular fields keep the last value, fields of the wrong wire type are skipped, as protobuf's
// parser does with them.
bool ReadWireNode(std::string_view bytes, WireNode& node);

// What the loader needs of one serialized AttributeProto of such a node, read without building
// the message.
struct WireAttribute {
  std::string_view name;  // a view into its bytes
  // It holds a graph, a type or a sparse tensor: messages nested without bound, which this
  // reader leaves to protobuf's parser (a Loop's or an If's body, rare elsewhere).
  bool nested = false;
};

// Reads `bytes` into `attribute`. False exactly where protobuf's parser refuses the bytes as an
// AttributeProto, tensors inside included; when `nested` is set, only protobuf's parser can say.
// (One difference, as in the nodes: unknown groups nested over 100 deep, which no writer
// produces, are refused.) The loader checks every attribute with this at load, and parses one
// only when an op reads it: a full parse of each at load was a fifteenth of a large model's run.
bool ReadWireAttribute(std::string_view bytes, WireAttribute& attribute);

// The value of an attribute as protobuf's parser would give it, read from its serialized bytes,
// for the plain types that ops read most (INT, INTS, FLOAT, STRING): no message is built. As in
// protobuf, the last of a repeated singular field counts, `ints` entries append in order whether
// packed or not, a field of another wire type than its declaration's is ignored, and a `type`
// that names no AttributeType leaves the type as it was.
struct WirePlainAttribute {
  int type = 0;  // an AttributeProto::AttributeType; 0 (UNDEFINED) when the bytes set none
  int64_t i = 0;
  float f = 0;
  std::string_view s;  // a view into the bytes
};

// Reads `bytes` into `attribute`, and the `ints` entries into `ints` unless it is null. False
// only when the bytes are broken, which ReadWireAttribute has refused at load.
bool ReadWirePlainAttribute(std::string_view bytes, WirePlainAttribute& attribute,
                            std::vector<int64_t>* ints);

// Parses the serialized AttributeProto of a main-graph node into `attribute` (merged into it, as
// protobuf merges), with the nesting that the levels above it (model, graph, node) leave. False
// where protobuf's parser refuses the bytes.
bool ParseWireAttribute(std::string_view bytes, ONNX_NAMESPACE::AttributeProto& attribute);

}  // namespace shapelint::ir

#endif  // SHAPELINT_LIB_IR_WIRE_NODES_H_
