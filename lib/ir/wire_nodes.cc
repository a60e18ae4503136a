#include "ir/wire_nodes.h"

#include <cstdint>

#include "absl/strings/str_cat.h"
#include "ir/skim.h"
#include "ir/wire.h"

namespace shapelint::ir {
namespace {

// Field numbers from onnx.proto.
constexpr uint64_t kModelGraph = 7;
constexpr uint64_t kModelFunctions = 25;
constexpr uint64_t kGraphNode = 1;
constexpr uint64_t kNodeInput = 1;
constexpr uint64_t kNodeOutput = 2;
constexpr uint64_t kNodeName = 3;
constexpr uint64_t kNodeOpType = 4;
constexpr uint64_t kNodeAttribute = 5;
constexpr uint64_t kNodeDomain = 7;

void AppendVarint(uint64_t v, std::string& out) {
  while (v >= 0x80) {
    out.push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
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
    if (f.number != kGraphNode || f.wire_type != wire::kLengthDelimited) continue;
    kept.append(graph->content.substr(copied, f.begin - copied));
    split.nodes.push_back(f.content);
    copied = graph_fields.position();
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
      default:
        break;
    }
  }
  return !fields.broken();
}

}  // namespace shapelint::ir
