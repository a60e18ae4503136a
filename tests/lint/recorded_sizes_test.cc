// Export sizes from the exporter's record of a decomposed adaptive pool (lint/recorded_sizes.h):
// the output size read from the recorded PyTorch line, and the sizes it gives the lint.
#include "lint/recorded_sizes.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "google/protobuf/unknown_field_set.h"
#include "onnx/onnx_pb.h"
#include "shapelint/infer/engine.h"
#include "shapelint/ir/load.h"
#include "shapelint/lint/lint.h"

namespace shapelint::lint {
namespace {

using Sizes = std::vector<std::optional<int64_t>>;

TEST_CASE("adaptive output size: read from the literal of the recorded call", "[lint]") {
  CHECK(AdaptiveOutputSize("return F.adaptive_avg_pool2d(x, (2, 3))", 2) == Sizes{2, 3});
  CHECK(AdaptiveOutputSize("y = nn.functional.adaptive_max_pool1d(y, output_size=4)", 1) ==
        Sizes{4});
  CHECK(AdaptiveOutputSize("F.adaptive_avg_pool2d(x, 7)", 2) == Sizes{7, 7});
  CHECK(AdaptiveOutputSize("F.adaptive_avg_pool2d(x, [None, 3])", 2) == Sizes{std::nullopt, 3});
  CHECK(AdaptiveOutputSize("torch.nn.functional.adaptive_avg_pool3d(f(x, 2), [1, 2, 3])", 3) ==
        Sizes{1, 2, 3});
  CHECK(AdaptiveOutputSize("F.adaptive_avg_pool1d(x, (4,))", 1) == Sizes{4});
  CHECK(AdaptiveOutputSize("F.adaptive_avg_pool2d(input=x, output_size=(5, 6))", 2) == Sizes{5, 6});
  // Nothing to read: a variable, a module call, the wrong rank, a line cut short, no pool.
  CHECK(AdaptiveOutputSize("F.adaptive_avg_pool2d(x, self.size)", 2).empty());
  CHECK(AdaptiveOutputSize("return self.pool(x)", 2).empty());
  CHECK(AdaptiveOutputSize("F.adaptive_avg_pool2d(x, (2, 3, 4))", 2).empty());
  CHECK(AdaptiveOutputSize("F.adaptive_avg_pool2d(x, (2,", 2).empty());
  CHECK(AdaptiveOutputSize("F.avg_pool2d(x, (2, 3))", 2).empty());
  CHECK(AdaptiveOutputSize("F.adaptive_avg_pool2d(x, 0)", 2).empty());
  CHECK(AdaptiveOutputSize("F.adaptive_avg_pool2d(x, 99999999999999999999)", 2).empty());
}

// x[s0, s1, s2, s3] -> one pool per entry of `pools`: {kernel, strides, recorded line}.
struct Pool {
  std::vector<int64_t> kernel, strides;
  std::string code;
};

std::string ModelBytes(const std::vector<Pool>& pools) {
  ONNX_NAMESPACE::ModelProto m;
  m.set_ir_version(10);
  m.add_opset_import()->set_version(18);
  auto* x = m.mutable_graph()->add_input();
  x->set_name("x");
  auto* tt = x->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(ONNX_NAMESPACE::TensorProto::FLOAT);
  for (const char* d : {"s0", "s1", "s2", "s3"}) tt->mutable_shape()->add_dim()->set_dim_param(d);
  for (size_t i = 0; i < pools.size(); ++i) {
    auto* n = m.mutable_graph()->add_node();
    n->set_op_type("AveragePool");
    n->add_input("x");
    const std::string out = "y" + std::to_string(i);
    n->add_output(out);
    for (const auto& [name, values] :
         {std::pair{"kernel_shape", pools[i].kernel}, std::pair{"strides", pools[i].strides}}) {
      auto* a = n->add_attribute();
      a->set_name(name);
      a->set_type(ONNX_NAMESPACE::AttributeProto::INTS);
      for (int64_t v : values) a->add_ints(v);
    }
    // NodeProto.metadata_props (field 9, IR 10) is newer than the onnx.proto this builds
    // against: written as the unknown field the loader reads it from.
    ONNX_NAMESPACE::StringStringEntryProto entry;
    entry.set_key("pkg.torch.onnx.stack_trace");
    entry.set_value("File \"net.py\", line 3, in forward\n    " + pools[i].code);
    n->GetReflection()->MutableUnknownFields(n)->AddLengthDelimited(9, entry.SerializeAsString());
    m.mutable_graph()->add_output()->set_name(out);
  }
  return m.SerializeAsString();
}

std::map<std::string, int64_t> Recorded(const std::vector<Pool>& pools) {
  auto model = ir::LoadModelFromBytes(ModelBytes(pools), "pool.onnx");
  REQUIRE(model.ok());
  const infer::Inference inference = infer::Infer(**model);
  return RecordedPoolSizes(**model, inference);
}

TEST_CASE("recorded pool sizes: window times the recorded output size", "[lint]") {
  const Pool seed{{4, 3}, {4, 3}, "return F.adaptive_avg_pool2d(x, (2, 3))"};
  CHECK(Recorded({seed}) == std::map<std::string, int64_t>{{"s2", 8}, {"s3", 9}});
  // Lookalikes that record nothing: windows that overlap (not a decomposition), a size that is
  // not a literal, a plain pool.
  CHECK(Recorded({{{4, 3}, {2, 3}, seed.code}}).empty());
  CHECK(Recorded({{{4, 3}, {4, 3}, "return F.adaptive_avg_pool2d(x, self.out)"}}).empty());
  CHECK(Recorded({{{4, 3}, {4, 3}, "return F.avg_pool2d(x, (4, 3))"}}).empty());
  // Two pools that disagree on s2 (8 and 12) leave it out; s3 they agree on.
  CHECK(Recorded({seed, {{4, 3}, {4, 3}, "F.adaptive_max_pool2d(x, (3, 3))"}}) ==
        std::map<std::string, int64_t>{{"s3", 9}});
}

TEST_CASE("recorded pool sizes: SL001 shows adaptive pooling's output next to the pool's",
          "[lint]") {
  auto model = ir::LoadModelFromBytes(
      ModelBytes({{{4, 3}, {4, 3}, "return F.adaptive_avg_pool2d(x, (2, 3))"}}), "pool.onnx");
  REQUIRE(model.ok());
  auto findings = Lint(**model, {});
  REQUIRE(findings.ok());
  auto sl001 = std::find_if(findings->begin(), findings->end(),
                            [](const Finding& f) { return f.rule == "SL001"; });
  REQUIRE(sl001 != findings->end());
  CHECK(sl001->severity == Severity::kError);
  REQUIRE(sl001->counterexample);
  // By hand: exported at s2 = 4 * 2 = 8, s3 = 3 * 3 = 9. The first spatial symbol grown until
  // the pooled size changes is s2 = 12 (floor(12 / 4) = 3 rows), where adaptive pooling still
  // returns 2 x 3.
  const std::map<std::string, int64_t> at(sl001->counterexample->binding.begin(),
                                          sl001->counterexample->binding.end());
  CHECK(at.at("s2") == 12);
  CHECK(at.at("s3") == 9);
  const std::string b = std::to_string(at.at("s0")), c = std::to_string(at.at("s1"));
  CHECK(sl001->counterexample->failure ==
        "the pool returns [" + b + ", " + c + ", 3, 3] here, where adaptive pooling returns [" + b +
            ", " + c + ", 2, 3] (its pooled size at the export size)");
}

}  // namespace
}  // namespace shapelint::lint
