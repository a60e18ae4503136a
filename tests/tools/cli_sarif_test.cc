// --format sarif from the command line: the PyTorch file a finding's size came from, which the
// exporter records with an absolute path, is named relative to the repository the command runs
// in (docs/sarif.md, "Source files").
#include <onnx/onnx_pb.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "tools/cli_test_util.h"

namespace shapelint::cli {
namespace {

using nlohmann::json;

// An adaptive pool to 2x3 decomposed at a 6x6 export (one SL001 error), whose node records the
// PyTorch line `source` as the dynamo exporter does.
std::string PoolModel(const std::string& source) {
  ONNX_NAMESPACE::ModelProto m;
  m.set_ir_version(10);
  m.add_opset_import()->set_version(18);
  auto* g = m.mutable_graph();
  auto* tt = g->add_input()->mutable_type()->mutable_tensor_type();
  g->mutable_input(0)->set_name("x");
  tt->set_elem_type(ONNX_NAMESPACE::TensorProto::FLOAT);
  for (const char* d : {"s0", "s1", "s2", "s3"}) tt->mutable_shape()->add_dim()->set_dim_param(d);
  auto* y = g->add_output();
  y->set_name("y");
  auto* yt = y->mutable_type()->mutable_tensor_type();
  yt->set_elem_type(ONNX_NAMESPACE::TensorProto::FLOAT);
  for (const char* d : {"s0", "s1"}) yt->mutable_shape()->add_dim()->set_dim_param(d);
  for (int64_t d : {2, 3}) yt->mutable_shape()->add_dim()->set_dim_value(d);
  auto* n = g->add_node();
  n->set_op_type("AveragePool");
  n->add_input("x");
  n->add_output("y");
  for (const char* name : {"kernel_shape", "strides"}) {
    auto* a = n->add_attribute();
    a->set_name(name);
    a->set_type(ONNX_NAMESPACE::AttributeProto::INTS);
    a->add_ints(3);
    a->add_ints(2);
  }
  // NodeProto.metadata_props (field 9, IR 10) is newer than the onnx.proto this builds against:
  // written as the unknown field the loader reads it from.
  ONNX_NAMESPACE::StringStringEntryProto entry;
  entry.set_key("pkg.torch.onnx.stack_trace");
  entry.set_value("File \"" + source +
                  "\", line 3, in forward\n    return F.adaptive_avg_pool2d(x, (2, 3))");
  n->GetReflection()->MutableUnknownFields(n)->AddLengthDelimited(9, entry.SerializeAsString());
  return m.SerializeAsString();
}

// The SARIF log of the model run from `cwd`, which the test process goes back from after.
json SarifFrom(const fs::path& cwd, const fs::path& model) {
  const fs::path before = fs::current_path();
  fs::current_path(cwd);
  const Outcome o = RunCli({"--isolated", "--format", "sarif", model.string()});
  fs::current_path(before);
  REQUIRE(o.code == 1);
  return json::parse(o.out);
}

const json& SourceArtifact(const json& log) {
  const json& related = log["runs"][0]["results"][0]["relatedLocations"];
  REQUIRE(related.size() == 1);
  CHECK(related[0]["physicalLocation"]["region"]["startLine"] == 3);
  return related[0]["physicalLocation"]["artifactLocation"];
}

TEST_CASE("sarif: the PyTorch file is relative to the checkout the command runs in",
          "[cli][sarif]") {
  TempDir dir;
  const fs::path root = fs::canonical(dir.path());
  fs::create_directories(root / "repo" / ".git");
  fs::create_directories(root / "repo" / "models" / "sub");
  const std::string source = (root / "repo" / "models" / "net.py").string();
  const fs::path model = dir.Write("pool.onnx", PoolModel(source));

  // From a subdirectory of the checkout: relative to the checkout's root.
  json log = SarifFrom(root / "repo" / "models" / "sub", model);
  CHECK(SourceArtifact(log) == json{{"uri", "models/net.py"}, {"uriBaseId", "%SRCROOT%"}});
  CHECK(log["runs"][0]["originalUriBaseIds"] ==
        json{{"%SRCROOT%", {{"uri", "file://" + (root / "repo").string() + "/"}}}});

  // Outside any checkout, the current directory is the root: a file elsewhere keeps its
  // absolute path, as a file URI. (Unless the temporary directory is in a checkout itself.)
  for (fs::path up = root; !up.empty() && up != up.parent_path(); up = up.parent_path()) {
    if (fs::exists(up / ".git")) {
      WARN("not checked: the temporary directory is inside a checkout, " << up);
      return;
    }
  }
  fs::create_directories(root / "elsewhere");
  log = SarifFrom(root / "elsewhere", model);
  CHECK(SourceArtifact(log) == json{{"uri", "file://" + source}});
  CHECK_FALSE(log["runs"][0].contains("originalUriBaseIds"));
}

}  // namespace
}  // namespace shapelint::cli
