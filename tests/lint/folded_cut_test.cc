// A weight the optimizer folded from a parameter cut by the trace: F.linear(x.transpose(1, 2),
// self.w[:T, :T]) with T = int(x.size(1)), exported by torch.export at T = 5 with Dim.AUTO. The
// graph holds val_34 [5, 5] folded from 'inner.w' and the slices' bounds; torch.export
// specialized T to 5 while the input declares it dynamic (tests/corpus/fresh/
// mixer_token_slice_int.dynamo, where ONNX Runtime fails at T = 7 and 12 and eager PyTorch runs,
// its buffer being 16 x 16). The cut is the example's size reaching a literal that is not the
// parameter itself: an error (docs/severity.md, exporter-record). The lookalikes keep the
// layer's reading (SL004, a note): the weight folded from the parameter alone (a transposed
// Linear weight) or with a constant that cuts nothing, and a cut where the record leaves the
// size free.
#include <algorithm>
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/unknown_field_set.h"
#include "onnx/onnx_pb.h"
#include "recorded_model.h"
#include "shapelint/ir/load.h"
#include "shapelint/lint/lint.h"

namespace shapelint::lint {
namespace {

using ONNX_NAMESPACE::ModelProto;
using ONNX_NAMESPACE::TensorProto;

struct Export {
  std::string t_range = "VR[5, 5]";  // torch.export's range of T (s27)
  std::string folded_from = "['inner.w', 'slice_1', 'slice_2', 'val_3', 'val_4']";
  int rows = 5, cols = 5;  // the folded weight's shape
};

// x[s77, s27, s53] -> Transpose -> MatMul with the folded weight val_34.
std::string MixerExport(const Export& e) {
  ModelProto m = ModelWithInput({"s77", "s27", "s53"});
  auto* g = m.mutable_graph();
  g->set_name("main");
  auto* w = g->add_initializer();
  w->set_name("val_34");
  w->set_data_type(TensorProto::FLOAT);
  w->add_dims(e.rows);
  w->add_dims(e.cols);
  w->mutable_float_data()->Resize(e.rows * e.cols, 0.25f);
  AddSwapLastAxes(g, "x", "t");
  AddNode(g, "MatMul", {"t", "val_34"}, "y")->set_name("node_MatMul_35");
  g->add_output()->set_name("y");
  g->mutable_output(0)->mutable_type()->mutable_tensor_type()->set_elem_type(TensorProto::FLOAT);
  auto* folded = g->add_value_info();
  folded->set_name("val_34");
  AddMetadata(folded, 4, "pkg.onnxscript.optimizer.folded_from", e.folded_from);
  AddMetadata(g, 16, "pkg.torch.export.ExportedProgram.graph_signature",
              "b_inner_w: BUFFER target='inner.w' persistent=True\nx: USER_INPUT\n");
  AddMetadata(g, 16, "pkg.torch.export.ExportedProgram.range_constraints",
              absl::StrCat("{s77: VR[0, int_oo], s27: ", e.t_range, ", s53: VR[0, int_oo]}"));
  return m.SerializeAsString();
}

// "RULE:severity" of each finding, in order.
std::vector<std::string> Findings(const std::string& bytes) {
  auto model = ir::LoadModelFromBytes(bytes, "mixer.onnx");
  REQUIRE(model.ok());
  auto findings = Lint(**model, {});
  REQUIRE(findings.ok());
  std::vector<std::string> out;
  for (const Finding& f : *findings)
    out.push_back(absl::StrCat(f.rule, ":", std::string(SeverityName(f.severity))));
  return out;
}

// The one finding of the model `bytes`, linted alone.
Finding OnlyFinding(const std::string& bytes) {
  auto model = ir::LoadModelFromBytes(bytes, "mixer.onnx");
  REQUIRE(model.ok());
  auto findings = Lint(**model, {});
  REQUIRE(findings.ok());
  REQUIRE(findings->size() == 1);
  return findings->front();
}

TEST_CASE("a parameter cut to the specialized size is the example's, not the layer's", "[lint]") {
  const Finding f = OnlyFinding(MixerExport({}));
  CHECK(f.rule == "SL005");
  CHECK(f.severity == Severity::kError);
  CHECK(absl::StrContains(f.message, "initializer 'val_34' of shape [5, 5]"));
  bool cut_named = false;
  for (const auto& n : f.notes) {
    cut_named |= absl::StrContains(n.message, "folded 'val_34' from 'inner.w' cut by the trace");
  }
  CHECK(cut_named);
  // By hand: at T = 6 the MatMul contracts 6 with the weight's 5 rows.
  REQUIRE(f.counterexample);
  CHECK(absl::StrContains(f.counterexample->failure, "6 vs 5"));
}

TEST_CASE("a weight's own sizes stay the layer's", "[lint]") {
  SECTION("folded from the parameter alone (a transposed weight)") {
    Export e;
    e.folded_from = "['inner.w']";
    CHECK(Findings(MixerExport(e)) == std::vector<std::string>{"SL004:note"});
  }
  SECTION("folded from the parameter and a transpose's constant, no cut") {
    Export e;
    e.folded_from = "['inner.w', 'val_3']";
    CHECK(Findings(MixerExport(e)) == std::vector<std::string>{"SL004:note"});
  }
  SECTION("a cut, but torch.export left the size free") {
    Export e;
    e.t_range = "VR[0, int_oo]";
    const std::vector<std::string> got = Findings(MixerExport(e));
    CHECK(std::find(got.begin(), got.end(), "SL005:error") == got.end());
  }
}

TEST_CASE("a constant made to a size in forward says so", "[lint]") {
  // torch.eye(int(x.size(1))) in place of the weight: folded from an eye of the trace, no
  // parameter. By hand: the same [5, 5] at T = 5, an error, and the record rules out a table
  // the module holds (the note of a float table folded with no record names both readings).
  Export e;
  e.folded_from = "['eye', 'val_3']";
  const Finding f = OnlyFinding(MixerExport(e));
  CHECK(f.rule == "SL005");
  CHECK(f.severity == Severity::kError);
  bool built = false, table = false;
  for (const auto& n : f.notes) {
    built |=
        absl::StrContains(n.message, "folded 'val_34' from an op that makes a tensor of a size");
    table |= absl::StrContains(n.message, "if the module holds it as a buffer");
  }
  CHECK(built);
  CHECK_FALSE(table);
}

// x[s77, s27, s53] * a folded float vector of 16 on the last axis, torch.export's range of s53
// pinned to 16: x * torch.hann_window(x.size(-1)) exported at D = 16 (tests/corpus/veiled/
// hann_taper_window_of_length.dynamo, where ONNX Runtime fails at D = 12 and 20 and eager runs).
struct Window {
  std::string name = "hann_window";
  std::string signature = "x: USER_INPUT\n";
  std::string folded_from = "['val_0']";  // empty: no record (a post-processor dropped it)
};

std::string WindowExport(const Window& e) {
  ModelProto m = ModelWithRanges("{s77: VR[0, int_oo], s27: VR[0, int_oo], s53: VR[16, 16]}");
  auto* g = m.mutable_graph();
  g->set_name("main");
  auto* w = g->add_initializer();
  w->set_name(e.name);
  w->set_data_type(TensorProto::FLOAT);
  w->add_dims(16);
  w->mutable_float_data()->Resize(16, 0.5f);
  auto* mul = g->add_node();
  mul->set_op_type("Mul");
  mul->set_name("node_mul");
  mul->add_input("x");
  mul->add_input(e.name);
  mul->add_output("y");
  g->add_output()->set_name("y");
  g->mutable_output(0)->mutable_type()->mutable_tensor_type()->set_elem_type(TensorProto::FLOAT);
  if (!e.folded_from.empty()) {
    auto* folded = g->add_value_info();
    folded->set_name(e.name);
    AddMetadata(folded, 4, "pkg.onnxscript.optimizer.folded_from", e.folded_from);
  }
  AddMetadata(g, 16, "pkg.torch.export.ExportedProgram.graph_signature", e.signature);
  return m.SerializeAsString();
}

TEST_CASE("a vector the trace made is no per-channel weight", "[lint]") {
  // By hand: the signature lists no parameter or buffer 'hann_window' and the optimizer folded
  // it from the trace's own val_0 alone; at D = 17 the Mul broadcasts 17 against 16 and fails,
  // where eager makes a window of 17: an error, with the two records' reading as its note.
  const Finding f = OnlyFinding(WindowExport({}));
  CHECK(f.rule == "SL005");
  CHECK(f.severity == Severity::kError);
  bool built = false;
  for (const auto& n : f.notes) {
    built |= absl::StrContains(n.message, "lists no parameter or buffer 'hann_window'");
  }
  CHECK(built);
  REQUIRE(f.counterexample);
  CHECK(absl::StrContains(f.counterexample->failure, "17 and 16 do not broadcast"));
}

TEST_CASE("a vector of the module's, or one nothing records, stays the layer's", "[lint]") {
  SECTION("the signature lists it as a buffer") {
    Window e;
    e.name = "inner.win";
    e.signature = "b_inner_win: BUFFER target='inner.win' persistent=True\nx: USER_INPUT\n";
    e.folded_from = "";
    CHECK(Findings(WindowExport(e)) == std::vector<std::string>{"SL004:note"});
  }
  SECTION("folded from a parameter (a scale folded with the trace's constant)") {
    Window e;
    e.name = "val_5";
    e.signature = "p_inner_scale: PARAMETER target='inner.scale'\nx: USER_INPUT\n";
    e.folded_from = "['inner.scale', 'val_0']";
    CHECK(Findings(WindowExport(e)) == std::vector<std::string>{"SL004:note"});
  }
  SECTION("a post-processor dropped the optimizer's record") {
    Window e;
    e.name = "val_5";
    e.folded_from = "";
    CHECK(Findings(WindowExport(e)) == std::vector<std::string>{"SL004:note"});
  }
}

}  // namespace
}  // namespace shapelint::lint
