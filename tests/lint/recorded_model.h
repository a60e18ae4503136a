// Models with torch.export's records, built for the tests of what the linter reads from them:
// the range record and the stack trace of a node.
#ifndef SHAPELINT_TESTS_LINT_RECORDED_MODEL_H_
#define SHAPELINT_TESTS_LINT_RECORDED_MODEL_H_

#include <algorithm>
#include <catch2/catch.hpp>
#include <iterator>
#include <string>
#include <vector>

#include "google/protobuf/unknown_field_set.h"
#include "onnx/onnx_pb.h"
#include "shapelint/ir/load.h"
#include "shapelint/lint/lint.h"

namespace shapelint::lint {

// Records `value` under `key` in the node's metadata. NodeProto.metadata_props (field 9, IR 10)
// is newer than the onnx.proto this builds against: written as the unknown field the loader
// reads it from.
inline void RecordNodeMetadata(ONNX_NAMESPACE::NodeProto* node, const std::string& key,
                               const std::string& value) {
  ONNX_NAMESPACE::StringStringEntryProto entry;
  entry.set_key(key);
  entry.set_value(value);
  node->GetReflection()->MutableUnknownFields(node)->AddLengthDelimited(9,
                                                                        entry.SerializeAsString());
}

// Records `stack` as the node's torch.onnx stack trace.
inline void RecordStack(ONNX_NAMESPACE::NodeProto* node, const std::string& stack) {
  RecordNodeMetadata(node, "pkg.torch.onnx.stack_trace", stack);
}

// The findings of `rule` on the model `bytes`, linted alone or with `options`.
inline std::vector<Finding> FindingsOf(const std::string& bytes, const std::string& rule,
                                       const LintOptions& options = {}) {
  auto model = ir::LoadModelFromBytes(bytes, "model.onnx");
  REQUIRE(model.ok());
  auto findings = Lint(**model, options);
  REQUIRE(findings.ok());
  std::vector<Finding> out;
  std::copy_if(findings->begin(), findings->end(), std::back_inserter(out),
               [&](const Finding& f) { return f.rule == rule; });
  return out;
}

// A model of IR 10, opset 18, with the float input x of the symbolic `dims` and no node yet, as
// torch.onnx's dynamo exporter writes one.
inline ONNX_NAMESPACE::ModelProto ModelWithInput(const std::vector<std::string>& dims) {
  ONNX_NAMESPACE::ModelProto m;
  m.set_ir_version(10);
  m.add_opset_import()->set_version(18);
  auto* x = m.mutable_graph()->add_input();
  x->set_name("x");
  auto* tt = x->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(ONNX_NAMESPACE::TensorProto::FLOAT);
  for (const std::string& d : dims) tt->mutable_shape()->add_dim()->set_dim_param(d);
  return m;
}

// A model of IR 10, opset 18, with the input x[s77, s27, s53] and no node yet, and `ranges` as
// torch.export's range record (empty: none).
inline ONNX_NAMESPACE::ModelProto ModelWithRanges(const std::string& ranges) {
  ONNX_NAMESPACE::ModelProto m = ModelWithInput({"s77", "s27", "s53"});
  if (!ranges.empty()) {
    auto* p = m.add_metadata_props();
    p->set_key("pkg.torch.export.ExportedProgram.range_constraints");
    p->set_value(ranges);
  }
  return m;
}

// Adds a node `op`(`inputs`) -> `output` to `graph`, and returns it for its attributes.
inline ONNX_NAMESPACE::NodeProto* AddNode(ONNX_NAMESPACE::GraphProto* graph, const std::string& op,
                                          const std::vector<std::string>& inputs,
                                          const std::string& output) {
  auto* node = graph->add_node();
  node->set_op_type(op);
  for (const std::string& in : inputs) node->add_input(in);
  node->add_output(output);
  return node;
}

// Adds Transpose(`input`) -> `output` swapping the last two of three axes (perm [0, 2, 1]).
inline void AddSwapLastAxes(ONNX_NAMESPACE::GraphProto* graph, const std::string& input,
                            const std::string& output) {
  auto* perm = AddNode(graph, "Transpose", {input}, output)->add_attribute();
  perm->set_name("perm");
  perm->set_type(ONNX_NAMESPACE::AttributeProto::INTS);
  for (int p : {0, 2, 1}) perm->add_ints(p);
}

// Adds a metadata entry to `message`'s field `number` (IR 10's metadata_props of a graph, 16, or
// of a value_info, 4), which the onnx.proto this builds against does not declare: as the unknown
// field the loader reads.
inline void AddMetadata(google::protobuf::Message* message, int number, const std::string& key,
                        const std::string& value) {
  ONNX_NAMESPACE::StringStringEntryProto entry;
  entry.set_key(key);
  entry.set_value(value);
  message->GetReflection()->MutableUnknownFields(message)->AddLengthDelimited(
      number, entry.SerializeAsString());
}

}  // namespace shapelint::lint

#endif  // SHAPELINT_TESTS_LINT_RECORDED_MODEL_H_
