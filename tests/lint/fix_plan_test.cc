// lint::Fix as one plan: the fixes of a run never undo each other (an unsafe declaration does not
// pin a symbol another fix made the graph follow), the fixed model keeps no initializer that
// nothing reads, says in its metadata which recorded specializations a fix repaired, and is
// written elsewhere with its external data found (MoveExternalData).
#include <onnx/onnx_pb.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <string>
#include <vector>

#include "shapelint/ir/load.h"
#include "shapelint/lint/fix.h"
#include "shapelint/lint/lint.h"
#include "shapelint/lint/probe.h"
#include "test_files.h"

namespace shapelint::lint {
namespace {

using ONNX_NAMESPACE::ModelProto;
using ONNX_NAMESPACE::TensorProto;

void AddValue(google::protobuf::RepeatedPtrField<ONNX_NAMESPACE::ValueInfoProto>* to,
              const std::string& name, const std::vector<std::string>& dims) {
  auto* v = to->Add();
  v->set_name(name);
  auto* t = v->mutable_type()->mutable_tensor_type();
  t->set_elem_type(TensorProto::FLOAT);
  for (const std::string& d : dims) {
    auto* dim = t->mutable_shape()->add_dim();
    if (std::isdigit(static_cast<unsigned char>(d[0]))) {
      dim->set_dim_value(std::stoll(d));
    } else {
      dim->set_dim_param(d);
    }
  }
}

// x.view(int(x.size(0)), -1) through the dynamo exporter at batch 2: the target [2, -1] is the
// initializer 'val_9', torch.export's record specializes the batch s77 to 2, and the output is
// declared [2, d] (as in tests/corpus/torch2/view_int_batch.dynamo.onnx, which torch 2.15
// wrote): the graph mixes samples at batch 3 rather than fail, so SL011 warns beside SL002.
std::string ViewIntBatch() {
  ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(17);
  auto* record = m.add_metadata_props();
  record->set_key("pkg.torch.export.ExportedProgram.range_constraints");
  record->set_value("{s77: VR[2, 2], s27: VR[2, int_oo]}");
  auto* g = m.mutable_graph();
  g->set_name("g");
  AddValue(g->mutable_input(), "x", {"s77", "s27"});
  AddValue(g->mutable_output(), "y", {"2", "d"});  // as the exporter declared it
  auto* target = g->add_initializer();
  target->set_name("val_9");
  target->set_data_type(TensorProto::INT64);
  target->add_dims(2);
  target->add_int64_data(2);
  target->add_int64_data(-1);
  auto* view = g->add_node();
  view->set_op_type("Reshape");
  view->set_name("node_view");
  view->add_input("x");
  view->add_input("val_9");
  view->add_output("y");
  return m.SerializeAsString();
}

std::unique_ptr<ir::Model> Load(const std::string& bytes) {
  auto model = ir::LoadModelFromBytes(bytes, "fixed.onnx", ir::ModelFormat::kBinary);
  REQUIRE(model.ok());
  return *std::move(model);
}

std::string MetadataOf(const std::string& bytes, const std::string& key) {
  ModelProto m;
  REQUIRE(m.ParseFromString(bytes));
  for (const auto& e : m.metadata_props()) {
    if (e.key() == key) return e.value();
  }
  return "";
}

TEST_CASE("fix: an unsafe declaration never pins what another fix made follow", "[lint][fix]") {
  // SL002's repair makes the target [Shape(x)[0], -1]; SL011's unsafe declaration "s77 = 2"
  // would then make ONNX Runtime refuse batch 3, undoing it.
  auto result = Fix(ViewIntBatch(), "view.onnx", {.unsafe_fixes = true});
  REQUIRE(result.ok());
  REQUIRE(result->fixed.size() == 1);
  CHECK(result->fixed[0].rule == "SL002");
  ModelProto fixed;
  REQUIRE(fixed.ParseFromString(result->model));
  CHECK(fixed.graph().input(0).type().tensor_type().shape().dim(0).dim_param() == "s77");
  // The fixed model runs at batch 3 and 5 and returns [N, 4] there (x.view(x.size(0), -1)).
  auto model = Load(result->model);
  for (int64_t n : {3, 5}) {
    auto spec = ParseSizes("s77=" + std::to_string(n) + ",s27=4", kProbeSizes);
    REQUIRE(spec.ok());
    auto probe = Probe(*model, {{"", *spec}});
    REQUIRE(probe.ok());
    CHECK_FALSE(probe->front().breaks);
    CHECK(probe->front().at.outputs[0].actual == std::vector<int64_t>{n, 4});
  }
}

TEST_CASE("fix: the fixed model says which specializations a fix repaired", "[lint][fix]") {
  auto result = Fix(ViewIntBatch(), "view.onnx");
  REQUIRE(result.ok());
  CHECK(MetadataOf(result->model, "onnx_shapelint.fix.followed") == "s77");
  // The record is kept; SL011 reads it as the record of the graph before the fix: a note,
  // without the declaration that would undo the repair.
  CHECK(MetadataOf(result->model, "pkg.torch.export.ExportedProgram.range_constraints") ==
        "{s77: VR[2, 2], s27: VR[2, int_oo]}");
  auto findings = Lint(*Load(result->model));
  REQUIRE(findings.ok());
  REQUIRE(findings->size() == 1);
  CHECK((*findings)[0].rule == "SL011");
  CHECK((*findings)[0].severity == Severity::kNote);
  CHECK_FALSE((*findings)[0].fix_it);
  // The note the fix reports is the written model's.
  bool said = false;
  for (const std::string& note : result->notes) {
    said = said || note.find("the fixed model has a new note, SL011") == 0;
  }
  CHECK(said);
  // The original, without the marker, keeps its warning.
  auto original = Lint(*Load(ViewIntBatch()));
  REQUIRE(original.ok());
  bool warned = false;
  for (const Finding& f : *original)
    warned = warned || (f.rule == "SL011" && f.severity == Severity::kWarning);
  CHECK(warned);
}

TEST_CASE("fix: an initializer the fix left unread is removed", "[lint][fix]") {
  auto result = Fix(ViewIntBatch(), "view.onnx");
  REQUIRE(result.ok());
  ModelProto fixed;
  REQUIRE(fixed.ParseFromString(result->model));
  CHECK(fixed.graph().initializer_size() == 0);
  CHECK(std::find(result->diff.begin(), result->diff.end(),
                  "- initializer 'val_9' (no longer read)") != result->diff.end());
}

// y = x + w, with w's data in the external file `location`.
std::string ExternalWeights(const std::string& location) {
  ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(17);
  auto* g = m.mutable_graph();
  g->set_name("g");
  AddValue(g->mutable_input(), "x", {"3"});
  AddValue(g->mutable_output(), "y", {"3"});
  auto* w = g->add_initializer();
  w->set_name("w");
  w->set_data_type(TensorProto::FLOAT);
  w->add_dims(3);
  w->set_data_location(TensorProto::EXTERNAL);
  auto* where = w->add_external_data();
  where->set_key("location");
  where->set_value(location);
  auto* length = w->add_external_data();
  length->set_key("length");
  length->set_value("12");
  auto* add = g->add_node();
  add->set_op_type("Add");
  add->add_input("x");
  add->add_input("w");
  add->add_output("y");
  return m.SerializeAsString();
}

std::vector<std::pair<std::string, std::string>> ExternalDataOf(const std::string& bytes) {
  ModelProto m;
  REQUIRE(m.ParseFromString(bytes));
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& e : m.graph().initializer(0).external_data())
    out.emplace_back(e.key(), e.value());
  return out;
}

TEST_CASE("fix: MoveExternalData names the same files from where the model goes", "[lint][fix]") {
  testing::TempDir dir;
  const std::filesystem::path models = dir.path() / "models";
  std::filesystem::create_directories(models / "deeper");
  const std::string bytes = ExternalWeights("w.bin");
  const std::string from = (models / "m.onnx").string();
  using Entries = std::vector<std::pair<std::string, std::string>>;

  SECTION("the same directory: unchanged") {
    auto moved = MoveExternalData(bytes, from, (models / "fixed.onnx").string());
    REQUIRE(moved.ok());
    CHECK(*moved == bytes);
  }
  SECTION("a directory above: the location goes through the input's directory") {
    auto moved = MoveExternalData(bytes, from, (dir.path() / "fixed.onnx").string());
    REQUIRE(moved.ok());
    CHECK(ExternalDataOf(*moved) == Entries{{"location", "models/w.bin"}, {"length", "12"}});
    auto up = MoveExternalData(bytes, (models / "deeper" / "m.onnx").string(),
                               (dir.path() / "fixed.onnx").string());
    REQUIRE(up.ok());
    CHECK(ExternalDataOf(*up) == Entries{{"location", "models/deeper/w.bin"}, {"length", "12"}});
  }
  SECTION("a directory beside or below: refused, saying where it can go") {
    for (const std::filesystem::path& to :
         {models / "deeper" / "fixed.onnx", dir.path() / "other" / "fixed.onnx"}) {
      auto moved = MoveExternalData(bytes, from, to.string());
      REQUIRE_FALSE(moved.ok());
      CHECK(std::string(moved.status().message())
                .find("write the fixed model into '" + models.string() + "'") != std::string::npos);
    }
  }
  SECTION("a model without external data goes anywhere unchanged") {
    const std::string plain = ViewIntBatch();
    auto moved = MoveExternalData(plain, from, (dir.path() / "other" / "f.onnx").string());
    REQUIRE(moved.ok());
    CHECK(*moved == plain);
  }
}

}  // namespace
}  // namespace shapelint::lint
