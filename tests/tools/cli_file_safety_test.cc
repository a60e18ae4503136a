// The tool never writes to a file it reads: a report, a baseline or a fixed model is refused
// where it would replace a model of the run or a file a model keeps its weights in, whatever
// the path it is named by (a symbolic or a hard link, a directory argument). And a target it
// may write is replaced as the docs say: links followed, read-only files left alone.
#include <catch2/catch.hpp>
#include <filesystem>
#include <string>
#include <vector>

#include "onnx/onnx_pb.h"
#include "tools/cli_test_util.h"

namespace shapelint::cli {
namespace {

using Catch::Matchers::Contains;
using ONNX_NAMESPACE::TensorProto;

const std::string kPool = SHAPELINT_SOURCE_DIR "/tests/corpus/torch/adaptive_avg_pool2d.onnx";

// y = x + w, with w's three floats in the external file `weights` next to the model.
std::string ModelWithExternalWeights(const std::string& weights) {
  ONNX_NAMESPACE::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(17);
  auto* g = m.mutable_graph();
  g->set_name("g");
  for (const char* name : {"x", "y"}) {
    auto* v = name[0] == 'x' ? g->add_input() : g->add_output();
    v->set_name(name);
    auto* t = v->mutable_type()->mutable_tensor_type();
    t->set_elem_type(TensorProto::FLOAT);
    t->mutable_shape()->add_dim()->set_dim_value(3);
  }
  auto* w = g->add_initializer();
  w->set_name("w");
  w->set_data_type(TensorProto::FLOAT);
  w->add_dims(3);
  w->set_data_location(TensorProto::EXTERNAL);
  auto* location = w->add_external_data();
  location->set_key("location");
  location->set_value(weights);
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

// A model and its weights in a directory, and other names for both.
struct Files {
  TempDir dir;
  std::string model, weights, model_bytes, weights_bytes = std::string(12, '\x01');
  Files() {
    model_bytes = ModelWithExternalWeights("w.bin");
    model = dir.Write("m.onnx", model_bytes);
    weights = dir.Write("w.bin", weights_bytes);
  }
  std::string Path(const std::string& name) const { return (dir.path() / name).string(); }
  void CheckUntouched() const {
    CHECK(ReadFile(model) == model_bytes);
    CHECK(ReadFile(weights) == weights_bytes);
  }
};

TEST_CASE("cli: --output and --write-baseline refuse a model of the run", "[cli][files]") {
  Files f;
  fs::create_symlink(f.model, f.Path("link.onnx"));
  fs::create_hard_link(f.model, f.Path("hard.onnx"));
  fs::create_symlink(f.weights, f.Path("wlink.bin"));
  const std::string dir = f.dir.path().string();
  for (const std::string option : {"--output", "--write-baseline"}) {
    for (const auto& [target, input] : std::vector<std::pair<std::string, std::string>>{
             {f.model, f.model},
             {f.Path("link.onnx"), f.model},
             {f.Path("hard.onnx"), f.model},
             {f.model, dir},  // a model found under a directory argument
             {f.weights, f.model},
             {f.Path("wlink.bin"), f.model}}) {
      INFO(option << " " << target << " " << input);
      const Outcome o = RunCli({"--quiet", option, target, input});
      CHECK(o.code == kExitError);
      CHECK_THAT(o.err, Contains("refusing to write '" + target + "'"));
      CHECK(o.out.empty());
      f.CheckUntouched();
    }
  }
  // Another file in the same directory is written as before.
  CHECK(RunCli({"--quiet", "--output", f.Path("report.txt"), f.model}).code == kExitClean);
  CHECK(fs::exists(f.Path("report.txt")));
}

TEST_CASE("cli: fix -o refuses the input and the files its weights are in", "[cli][files]") {
  Files f;
  fs::create_symlink(f.weights, f.Path("wlink.bin"));
  fs::create_hard_link(f.weights, f.Path("whard.bin"));
  for (const std::string& target : {f.model, f.weights, f.Path("wlink.bin"), f.Path("whard.bin")}) {
    INFO(target);
    const Outcome o = RunCli({"fix", f.model, "-o", target});
    CHECK(o.code == kExitError);
    CHECK_THAT(o.err, Contains("refusing to write '" + target + "'"));
    f.CheckUntouched();
  }
  CHECK(RunCli({"fix", f.model, "-o", f.Path("fixed.onnx")}).code == kExitClean);
  CHECK(ReadFile(f.Path("fixed.onnx")) == f.model_bytes);
}

TEST_CASE("cli: fix -o elsewhere keeps the external weights found, or says where to write",
          "[cli][files]") {
  TempDir dir;
  fs::create_directories(dir.path() / "models");
  fs::create_directories(dir.path() / "out");
  const std::string model = dir.Write("models/m.onnx", ModelWithExternalWeights("w.bin"));
  dir.Write("models/w.bin", std::string(12, '\x01'));
  // Above the model's directory: the location now goes through it; no weight byte is copied.
  const std::string above = (dir.path() / "fixed.onnx").string();
  CHECK(RunCli({"fix", model, "-o", above}).code == kExitClean);
  ONNX_NAMESPACE::ModelProto written;
  REQUIRE(written.ParseFromString(ReadFile(above)));
  CHECK(written.graph().initializer(0).external_data(0).value() == "models/w.bin");
  CHECK(written.graph().initializer(0).external_data(1).value() == "12");
  CHECK_FALSE(fs::exists(dir.path() / "w.bin"));
  // Beside it: ONNX reads external data only below the model's directory. Nothing is written.
  const std::string beside = (dir.path() / "out" / "fixed.onnx").string();
  const Outcome refused = RunCli({"fix", model, "-o", beside});
  CHECK(refused.code == kExitError);
  CHECK_THAT(refused.err, Contains("write the fixed model into '"));
  CHECK_FALSE(fs::exists(beside));
}

TEST_CASE("cli: -o on a dangling link writes its target; a read-only file is refused",
          "[cli][files]") {
  TempDir dir;
  const fs::path target = dir.path() / "made.onnx", link = dir.path() / "link.onnx";
  fs::create_symlink(target, link);
  const Outcome fixed = RunCli({"fix", kPool, "-o", link.string()});
  CHECK(fixed.code != kExitError);
  CHECK(fs::is_symlink(link));
  CHECK(ReadFile(target.string()).size() > 100);
  // --output the same, through a relative link.
  const fs::path report = dir.path() / "report.txt", relative = dir.path() / "rel.txt";
  fs::create_symlink("report.txt", relative);
  CHECK(RunCli({"--quiet", "--output", relative.string(), kPool}).code == kExitFindings);
  CHECK(fs::is_symlink(relative));
  CHECK_THAT(ReadFile(report.string()), Contains("error[SL001]"));
  // A file without write permission keeps its bytes, also for root, who could write it.
  const std::string read_only = dir.Write("r.txt", "keep");
  fs::permissions(read_only, fs::perms::owner_read | fs::perms::group_read);
  const Outcome refused = RunCli({"--quiet", "--output", read_only, kPool});
  CHECK(refused.code == kExitError);
  CHECK_THAT(refused.err, Contains("cannot write '" + read_only + "'"));
  CHECK(ReadFile(read_only) == "keep");
  fs::permissions(read_only, fs::perms::owner_all);
}

}  // namespace
}  // namespace shapelint::cli
