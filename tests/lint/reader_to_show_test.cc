// Where a finding about an input itself is shown (lint/provenance.h, ReaderToShow): the first of
// the input's readers whose recorded stack names a line outside torch's own code, as SL011 and
// SL014 show the exporter's record, not torch's runtime assert that reads every dynamic input
// first.
#include <catch2/catch.hpp>
#include <string>

#include "lint/provenance.h"
#include "recorded_model.h"
#include "shapelint/ir/load.h"

namespace shapelint::lint {
namespace {

constexpr char kAssert[] =
    "File \"torch/fx/passes/runtime_assert.py\", line 24, in insert_deferred_runtime_asserts\n"
    "    node = graph.call_function(torch.ops.aten.sym_size.int, (x, 2))";
constexpr char kAssertInstalled[] =
    "File \"/usr/lib/python3/site-packages/torch/fx/passes/runtime_assert.py\", line 24, in "
    "insert_deferred_runtime_asserts\n    node = graph.call_function(fn, args)";
constexpr char kUser[] = "File \"model.py\", line 7, in forward\n    return F.relu(x) * 2";

// x read by a Shape recorded as `first`, then by a Relu recorded as `second`.
std::unique_ptr<ir::Model> TwoReaders(const std::string& first, const std::string& second) {
  ONNX_NAMESPACE::ModelProto m = ModelWithInput({"B", "T"});
  auto* out = m.mutable_graph()->add_output();
  out->set_name("y");
  auto* shape = m.mutable_graph()->add_node();
  shape->set_op_type("Shape");
  shape->add_input("x");
  shape->add_output("s");
  if (!first.empty()) RecordStack(shape, first);
  auto* relu = m.mutable_graph()->add_node();
  relu->set_op_type("Relu");
  relu->add_input("x");
  relu->add_output("y");
  if (!second.empty()) RecordStack(relu, second);
  auto model = ir::LoadModelFromBytes(m.SerializeAsString(), "model.onnx");
  REQUIRE(model.ok());
  return *std::move(model);
}

TEST_CASE("an input's finding is shown at its first reader on a user's line", "[lint][source]") {
  // torch's runtime assert reads x first, scrubbed (the corpora's traces) or installed: the
  // Relu, on model.py's line, is the one shown.
  CHECK(ReaderToShow(TwoReaders(kAssert, kUser)->graph(), "x") == 1);
  CHECK(ReaderToShow(TwoReaders(kAssertInstalled, kUser)->graph(), "x") == 1);
  // Lookalikes: the first reader is on a user's line; no reader records one (the first is
  // shown); nothing recorded at all.
  CHECK(ReaderToShow(TwoReaders(kUser, kAssert)->graph(), "x") == 0);
  CHECK(ReaderToShow(TwoReaders(kAssert, kAssert)->graph(), "x") == 0);
  CHECK(ReaderToShow(TwoReaders("", "")->graph(), "x") == 0);
}

}  // namespace
}  // namespace shapelint::lint
