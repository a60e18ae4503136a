// A buffer is module state no optimizer trains: torch.export's graph signature lists it as
// "b_inner_grid: BUFFER target='inner.grid'". YOLOv5's detection head caches its grid of cell
// offsets in one and rebuilds it in forward only where the map's size differs; exported at the
// cached 8 x 10 (tests/corpus/cloaked/yolov5_cached_grid_shape_check.dynamo, where ONNX Runtime
// fails at 9 x 7 and eager PyTorch runs), the graph adds the cached [1, 1, 8, 10, 2] to the map,
// and torch.export specialized both sizes. The specialized sizes reach the graph through a
// literal that is not a trained parameter: an error (docs/severity.md, exporter-record). The
// lookalikes keep the layer's reading (SL004, a note): the same table listed as a parameter,
// and a per-channel buffer (running statistics) against channels torch.export specialized.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "onnx/onnx_pb.h"
#include "recorded_model.h"
#include "shapelint/ir/load.h"
#include "shapelint/lint/lint.h"

namespace shapelint::lint {
namespace {

using ONNX_NAMESPACE::ModelProto;
using ONNX_NAMESPACE::TensorProto;

struct Export {
  std::string kind = "BUFFER";                      // how the signature lists the table
  std::vector<int64_t> dims = {1, 1, 8, 10};        // the table's shape
  std::string channels = "VR[0, int_oo]";           // torch.export's range of s27
  std::string ranges = "VR[8, 8], s0: VR[10, 10]";  // and of s53 and s0
};

// x[s77, s27, s53, s0] + table 'inner.grid'.
std::string GridExport(const Export& e) {
  ModelProto m = ModelWithInput({"s77", "s27", "s53", "s0"});
  auto* g = m.mutable_graph();
  g->set_name("main");
  auto* w = g->add_initializer();
  w->set_name("inner.grid");
  w->set_data_type(TensorProto::FLOAT);
  int64_t count = 1;
  for (int64_t d : e.dims) {
    w->add_dims(d);
    count *= d;
  }
  w->mutable_float_data()->Resize(static_cast<int>(count), 0.5f);
  AddNode(g, "Add", {"x", "inner.grid"}, "y")->set_name("node_add");
  g->add_output()->set_name("y");
  g->mutable_output(0)->mutable_type()->mutable_tensor_type()->set_elem_type(TensorProto::FLOAT);
  const std::string prefix = e.kind == "BUFFER" ? "b_" : "p_";
  AddMetadata(g, 16, "pkg.torch.export.ExportedProgram.graph_signature",
              absl::StrCat(prefix, "inner_grid: ", e.kind, " target='inner.grid'",
                           e.kind == "BUFFER" ? " persistent=True" : "", "\nx: USER_INPUT\n"));
  AddMetadata(g, 16, "pkg.torch.export.ExportedProgram.range_constraints",
              absl::StrCat("{s77: VR[0, int_oo], s27: ", e.channels, ", s53: ", e.ranges, "}"));
  return m.SerializeAsString();
}

std::vector<Finding> LintBytes(const std::string& bytes) {
  auto model = ir::LoadModelFromBytes(bytes, "grid.onnx");
  REQUIRE(model.ok());
  auto findings = Lint(**model, {});
  REQUIRE(findings.ok());
  return *std::move(findings);
}

// "RULE:severity" of each finding, in order.
std::vector<std::string> Findings(const std::string& bytes) {
  std::vector<std::string> out;
  for (const Finding& f : LintBytes(bytes)) {
    out.push_back(absl::StrCat(f.rule, ":", std::string(SeverityName(f.severity))));
  }
  return out;
}

TEST_CASE("a buffer holding the specialized sizes is the example's, not the layer's", "[lint]") {
  const std::vector<Finding> findings = LintBytes(GridExport({}));
  REQUIRE(findings.size() == 1);
  const Finding& f = findings.front();
  CHECK(f.rule == "SL005");
  CHECK(f.severity == Severity::kError);
  CHECK(absl::StrContains(f.message, "initializer 'inner.grid' of shape [1, 1, 8, 10]"));
  // By hand: moving one axis off 8 x 10 breaks the Add (9 against the table's 8, or 11 against
  // its 10).
  REQUIRE(f.counterexample);
  INFO(f.counterexample->failure);
  CHECK((absl::StrContains(f.counterexample->failure, "9 and 8") ||
         absl::StrContains(f.counterexample->failure, "11 and 10")));
}

TEST_CASE("a trained table and a per-channel buffer stay the layer's", "[lint]") {
  SECTION("the same table listed as a parameter") {
    Export e;
    e.kind = "PARAMETER";
    CHECK(Findings(GridExport(e)) == std::vector<std::string>{"SL004:note"});
  }
  SECTION("a per-channel buffer against the channels") {
    Export e;
    e.dims = {1, 3, 1, 1};
    e.channels = "VR[3, 3]";
    e.ranges = "VR[0, int_oo], s0: VR[0, int_oo]";
    CHECK(Findings(GridExport(e)) == std::vector<std::string>{"SL004:note"});
  }
}

}  // namespace
}  // namespace shapelint::lint
