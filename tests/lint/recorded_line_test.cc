// SL007 on the exporter's record of a line (lint/provenance.h TakesIntOfSize): a literal in a
// size's place, whatever arithmetic gave it, where torch.export specialized the dim's symbol and
// the node's recorded PyTorch line takes int() of a size.
#include <algorithm>
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "google/protobuf/unknown_field_set.h"
#include "lint/provenance.h"
#include "onnx/onnx_pb.h"
#include "shapelint/ir/load.h"
#include "shapelint/lint/lint.h"

namespace shapelint::lint {
namespace {

TEST_CASE("a recorded line that takes int() of a size", "[lint]") {
  CHECK(TakesIntOfSize("return torch.topk(x, int(x.size(-1)) - 2, dim=-1)[0]"));
  CHECK(TakesIntOfSize("return x.view(int(x.size(0)), -1)"));
  CHECK(TakesIntOfSize("size=(int(h.shape[2]) * 2, int(h.shape[3]) * 2)"));
  CHECK(TakesIntOfSize("n = int(math.sqrt(x.size(1)))"));
  // No size inside the int(), no int() call, another function ending in int, a cut line.
  CHECK_FALSE(TakesIntOfSize("return torch.topk(x, int(self.k), dim=-1)[0]"));
  CHECK_FALSE(TakesIntOfSize("return torch.topk(x, x.size(-1) - 2, dim=-1)[0]"));
  CHECK_FALSE(TakesIntOfSize("print(x.size(0)); y = self.to_int(x.shape)"));
  CHECK_FALSE(TakesIntOfSize("k = int("));
  CHECK_FALSE(TakesIntOfSize(""));
}

// x[s77, s27, s53] -> TopK(x, k) on the last axis, recorded at `code`; `ranges` is torch.export's
// range record (empty: none).
std::string TopKModel(int64_t k, const std::string& code, const std::string& ranges) {
  ONNX_NAMESPACE::ModelProto m;
  m.set_ir_version(10);
  m.add_opset_import()->set_version(18);
  if (!ranges.empty()) {
    auto* p = m.add_metadata_props();
    p->set_key("pkg.torch.export.ExportedProgram.range_constraints");
    p->set_value(ranges);
  }
  auto* g = m.mutable_graph();
  auto* x = g->add_input();
  x->set_name("x");
  auto* tt = x->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(ONNX_NAMESPACE::TensorProto::FLOAT);
  for (const char* d : {"s77", "s27", "s53"}) tt->mutable_shape()->add_dim()->set_dim_param(d);
  auto* kt = g->add_initializer();
  kt->set_name("k");
  kt->set_data_type(ONNX_NAMESPACE::TensorProto::INT64);
  kt->add_dims(1);
  kt->add_int64_data(k);
  auto* n = g->add_node();
  n->set_op_type("TopK");
  n->set_name("topk");
  n->add_input("x");
  n->add_input("k");
  n->add_output("y");
  n->add_output("i");
  // NodeProto.metadata_props (field 9, IR 10) is newer than the onnx.proto this builds
  // against: written as the unknown field the loader reads it from.
  ONNX_NAMESPACE::StringStringEntryProto entry;
  entry.set_key("pkg.torch.onnx.stack_trace");
  entry.set_value("File \"net.py\", line 2, in forward\n    " + code);
  n->GetReflection()->MutableUnknownFields(n)->AddLengthDelimited(9, entry.SerializeAsString());
  g->add_output()->set_name("y");
  return m.SerializeAsString();
}

std::vector<Finding> Sl007(const std::string& bytes) {
  auto model = ir::LoadModelFromBytes(bytes, "topk.onnx");
  REQUIRE(model.ok());
  auto findings = Lint(**model, {});
  REQUIRE(findings.ok());
  std::vector<Finding> out;
  std::copy_if(findings->begin(), findings->end(), std::back_inserter(out),
               [](const Finding& f) { return f.rule == "SL007"; });
  return out;
}

constexpr char kSpecialized[] = "{s77: VR[0, int_oo], s27: VR[0, int_oo], s53: VR[8, 8]}";

TEST_CASE("SL007: any literal of a recorded int() line on a specialized dim", "[lint]") {
  // torch.topk(x, int(x.size(-1)) - 2) exported by torch.export at D = 8 with Dim.AUTO: k = 6,
  // which no derivation of SL007's (D, D - 1, D // 2, ...) gives. By hand: the record pins s53
  // to 8 and the line takes int() of a size; at s53 = 4 the TopK of 6 fails in ONNX Runtime
  // (eager would take 2), the failure nearest the export size: an error on the contradiction.
  const auto findings =
      Sl007(TopKModel(6, "return torch.topk(x, int(x.size(-1)) - 2, dim=-1)[0]", kSpecialized));
  REQUIRE(findings.size() == 1);
  CHECK(findings[0].severity == Severity::kError);
  CHECK(absl::StrContains(findings[0].message,
                          "TopK k 6, computed from s53 on the recorded line, with s53 = 8"));
  REQUIRE(findings[0].counterexample);
  CHECK(absl::StrContains(findings[0].counterexample->failure, "it must be at least 6"));
}

TEST_CASE("SL007: a recorded line without int(), or no record, says nothing of k", "[lint]") {
  // torch.topk(x, 6): the module's own k on a dim specialized elsewhere (SL011 says that).
  CHECK(Sl007(TopKModel(6, "return torch.topk(x, 6, dim=-1)[0]", kSpecialized)).empty());
  // The int() line without torch.export's record (no specialization recorded, no export size).
  CHECK(Sl007(TopKModel(6, "return torch.topk(x, int(x.size(-1)) - 2, dim=-1)[0]", "")).empty());
  // The record and the line, but k = 1: no size needs to explain a 1.
  CHECK(Sl007(TopKModel(1, "return torch.topk(x, int(x.size(-1)) - 7, dim=-1)[0]", kSpecialized))
            .empty());
}

}  // namespace
}  // namespace shapelint::lint
