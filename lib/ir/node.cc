// Node: a node's fields and attributes, read from its graph's tables (lib/ir/graph_storage.h).
#include <memory>
#include <optional>
#include <utility>

#include "ir/graph_storage.h"
#include "ir/metadata.h"
#include "ir/wire_nodes.h"
#include "shapelint/ir/model.h"

namespace shapelint::ir {
namespace {

using ONNX_NAMESPACE::AttributeProto;
using ONNX_NAMESPACE::TensorProto;
using AttributeType = AttributeProto::AttributeType;

// An attribute as the proto the graph holds, or its bytes parsed into `*scratch` (cleared
// first) or, without one, into a message of the returned handle's own.
AttributeRef Parse(const GraphStorage::AttributeRecord& a, AttributeProto* scratch) {
  if (a.parsed != nullptr) return AttributeRef(a.parsed);
  if (scratch != nullptr) {
    scratch->Clear();
    // The bytes passed the check at load, which refuses what protobuf refuses: this cannot fail.
    if (!ParseWireAttribute(a.bytes, *scratch)) return AttributeRef();
    return AttributeRef(static_cast<const AttributeProto*>(scratch));
  }
  auto parsed = std::make_unique<AttributeProto>();
  // As above: this cannot fail.
  if (!ParseWireAttribute(a.bytes, *parsed)) return AttributeRef();
  return AttributeRef(std::move(parsed));
}

// The first of node `node`'s attributes named `name`, or nullptr.
const GraphStorage::AttributeRecord* FindRecord(const GraphStorage& storage, int node,
                                                std::string_view name) {
  const int32_t end = storage.AttributesEnd(node);
  for (int32_t k = storage.AttributesBegin(node); k < end; ++k) {
    if (*storage.attributes[k].name == name) return &storage.attributes[k];
  }
  return nullptr;
}

// `get` of a parsed attribute if it has `type`.
template <typename T, typename Get>
AttributeValue<T> ProtoValue(const AttributeProto& a, AttributeType type, const Get& get) {
  if (a.type() != type) return AttributeValue<T>::OfOtherType(a.type());
  return AttributeValue<T>(get(a));
}

// A read of `type` that a plain attribute's bytes answer: `from_wire` of what
// ReadWirePlainAttribute read (the `ints` entries in `*ints`), or `from_proto` of the proto the
// graph holds.
template <typename T, typename FromWire, typename FromProto>
AttributeValue<T> ReadPlain(const GraphStorage::AttributeRecord* a, AttributeType type,
                            const FromWire& from_wire, const FromProto& from_proto,
                            std::vector<int64_t>* ints = nullptr) {
  if (a == nullptr) return AttributeValue<T>();
  if (a->parsed != nullptr) return ProtoValue<T>(*a->parsed, type, from_proto);
  WirePlainAttribute plain;
  // The bytes passed ReadWireAttribute at load, which refuses whatever this refuses (and a parse
  // would refuse them too): this cannot fail.
  if (!ReadWirePlainAttribute(a->bytes, plain, ints)) return AttributeValue<T>();
  if (plain.type != type) {
    return AttributeValue<T>::OfOtherType(static_cast<AttributeType>(plain.type));
  }
  return AttributeValue<T>(from_wire(plain));
}

// A read of `type` that needs the attribute parsed: `get` of the proto the graph holds, or of
// the attribute's bytes parsed into the message `parse_into` gives, once they are known to be
// of `type`.
template <typename T, typename Get>
AttributeValue<T> ReadParsed(const GraphStorage::AttributeRecord* a, AttributeType type,
                             Node::ParseInto parse_into, const Get& get) {
  if (a == nullptr) return AttributeValue<T>();
  if (a->parsed != nullptr) return ProtoValue<T>(*a->parsed, type, get);
  WirePlainAttribute plain;
  // As in ReadPlain, neither this nor the parse below can fail.
  if (!ReadWirePlainAttribute(a->bytes, plain, nullptr)) return AttributeValue<T>();
  if (plain.type != type) {
    return AttributeValue<T>::OfOtherType(static_cast<AttributeType>(plain.type));
  }
  AttributeProto* parsed = parse_into(a->bytes.size());
  parsed->Clear();
  if (!ParseWireAttribute(a->bytes, *parsed)) return AttributeValue<T>();
  return AttributeValue<T>(get(*parsed));
}

}  // namespace

const std::string& Node::op_type() const { return *graph_->storage_->nodes[index_].op_type; }

const std::string& Node::domain() const {
  const GraphStorage& s = *graph_->storage_;
  return *s.domains[s.nodes[index_].domain];
}

std::string_view Node::name() const { return graph_->storage_->nodes[index_].name; }
int Node::input_size() const { return static_cast<int>(graph_->storage_->InputIds(index_).size()); }

int Node::output_size() const {
  return static_cast<int>(graph_->storage_->OutputIds(index_).size());
}

std::string_view Node::input(int i) const {
  const GraphStorage& s = *graph_->storage_;
  const ValueId id = s.InputIds(index_)[i];
  return id == kNoValue ? std::string_view() : s.values[id].name;
}

std::string_view Node::output(int i) const {
  const GraphStorage& s = *graph_->storage_;
  const ValueId id = s.OutputIds(index_)[i];
  return id == kNoValue ? std::string_view() : s.values[id].name;
}

std::string_view Node::NameOf::operator()(ValueId id) const {
  return id == kNoValue ? std::string_view() : graph->storage_->values[id].name;
}

Node::Names Node::input() const {
  return Names(graph_->storage_->InputIds(index_), NameOf{graph_});
}

Node::Names Node::output() const {
  return Names(graph_->storage_->OutputIds(index_), NameOf{graph_});
}

int Node::attribute_size() const {
  const GraphStorage& s = *graph_->storage_;
  return s.AttributesEnd(index_) - s.AttributesBegin(index_);
}

std::string_view Node::attribute_name(int i) const {
  const GraphStorage& s = *graph_->storage_;
  return *s.attributes[s.AttributesBegin(index_) + i].name;
}

AttributeRef Node::attribute(int i) const { return attribute(i, nullptr); }

size_t Node::attribute_serialized_size(int i) const { return attribute_bytes(i).size(); }

std::string_view Node::attribute_bytes(int i) const {
  const GraphStorage& s = *graph_->storage_;
  const GraphStorage::AttributeRecord& a = s.attributes[s.AttributesBegin(index_) + i];
  return a.parsed != nullptr ? std::string_view() : a.bytes;
}

AttributeRef Node::attribute(int i, AttributeProto* scratch) const {
  const GraphStorage& s = *graph_->storage_;
  return Parse(s.attributes[s.AttributesBegin(index_) + i], scratch);
}

AttributeRef Node::FindAttribute(std::string_view name) const {
  const GraphStorage::AttributeRecord* a = FindRecord(*graph_->storage_, index_, name);
  return a != nullptr ? Parse(*a, nullptr) : AttributeRef();
}

AttributeValue<int64_t> Node::IntAttribute(std::string_view name) const {
  return ReadPlain<int64_t>(
      FindRecord(*graph_->storage_, index_, name), AttributeProto::INT,
      [](const WirePlainAttribute& p) { return p.i; },
      [](const AttributeProto& a) { return a.i(); });
}

AttributeValue<std::vector<int64_t>> Node::IntsAttribute(std::string_view name) const {
  std::vector<int64_t> ints;
  return ReadPlain<std::vector<int64_t>>(
      FindRecord(*graph_->storage_, index_, name), AttributeProto::INTS,
      [&](const WirePlainAttribute&) { return std::move(ints); },
      [](const AttributeProto& a) {
        return std::vector<int64_t>(a.ints().begin(), a.ints().end());
      },
      &ints);
}

AttributeValue<float> Node::FloatAttribute(std::string_view name) const {
  return ReadPlain<float>(
      FindRecord(*graph_->storage_, index_, name), AttributeProto::FLOAT,
      [](const WirePlainAttribute& p) { return p.f; },
      [](const AttributeProto& a) { return a.f(); });
}

AttributeValue<std::string_view> Node::StringAttribute(std::string_view name) const {
  // The bytes and the protos live as long as the model.
  return ReadPlain<std::string_view>(
      FindRecord(*graph_->storage_, index_, name), AttributeProto::STRING,
      [](const WirePlainAttribute& p) { return p.s; },
      [](const AttributeProto& a) { return std::string_view(a.s()); });
}

AttributeValue<std::vector<float>> Node::FloatsAttribute(std::string_view name) const {
  std::optional<AttributeProto> parsed;  // built only when it is needed
  return ReadParsed<std::vector<float>>(
      FindRecord(*graph_->storage_, index_, name), AttributeProto::FLOATS,
      [&](size_t) { return &parsed.emplace(); },
      [](const AttributeProto& a) {
        return std::vector<float>(a.floats().begin(), a.floats().end());
      });
}

AttributeValue<const TensorProto*> Node::TensorAttribute(std::string_view name,
                                                         ParseInto parse_into) const {
  return ReadParsed<const TensorProto*>(FindRecord(*graph_->storage_, index_, name),
                                        AttributeProto::TENSOR, parse_into,
                                        [](const AttributeProto& a) { return &a.t(); });
}

AttributeValue<const TensorProto*> Node::TensorAttribute(std::string_view name,
                                                         AttributeProto& scratch) const {
  return TensorAttribute(name, [&](size_t) { return &scratch; });
}

std::optional<std::string_view> Node::Metadata(std::string_view key) const {
  const auto& all = graph_->storage_->node_metadata;
  auto it = all.find(index_);
  if (it == all.end()) return std::nullopt;
  for (const auto& [k, v] : it->second) {
    if (k == key) return v;
  }
  return std::nullopt;
}

std::optional<std::string_view> Graph::ValueMetadata(std::string_view value,
                                                     std::string_view key) const {
  const ONNX_NAMESPACE::ValueInfoProto* info = ValueInfo(value);
  if (info == nullptr) return std::nullopt;
  for (const auto& [k, v] : UnknownStringEntries(*info, kValueMetadataField)) {
    if (k == key) return v;
  }
  return std::nullopt;
}

std::optional<std::string_view> Graph::Metadata(std::string_view key) const {
  for (const auto& [k, v] : storage_->graph_metadata) {
    if (k == key) return v;
  }
  return std::nullopt;
}

}  // namespace shapelint::ir
