// lint::Fix on rule fixtures: each fixed model lints without the finding, keeps its output
// shapes where the original works, and gives at other sizes the shapes the PyTorch code would,
// derived by hand in each case's comment.
#include "shapelint/lint/fix.h"

#include <catch2/catch.hpp>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "shapelint/ir/load.h"
#include "shapelint/lint/lint.h"
#include "shapelint/lint/probe.h"
#include "test_files.h"

namespace shapelint::lint {
namespace {

// A fixture in binary form (fix rewrites serialized models).
std::string FixtureBytes(const std::string& relative) {
  auto model = ir::LoadModel(absl::StrCat(SHAPELINT_SOURCE_DIR, "/tests/rules/", relative));
  REQUIRE(model.ok());
  return (*model)->CompleteProto().SerializeAsString();
}

std::unique_ptr<ir::Model> Load(const std::string& bytes) {
  auto model = ir::LoadModelFromBytes(bytes, "fixed.onnx", ir::ModelFormat::kBinary);
  REQUIRE(model.ok());
  return *std::move(model);
}

FixResult FixOf(const std::string& bytes, const FixOptions& options = {}) {
  auto result = Fix(bytes, "model.onnx", options);
  INFO(result.status().message());
  REQUIRE(result.ok());
  return *std::move(result);
}

// The shape of output `output` at `sizes` ("N=5,H=3"), and whether the model breaks there.
std::pair<std::vector<int64_t>, bool> OutputAt(const ir::Model& model, const std::string& sizes,
                                               const std::string& output) {
  auto spec = ParseSizes(sizes, kProbeSizes);
  REQUIRE(spec.ok());
  auto probes = Probe(model, {{sizes, *spec}});
  REQUIRE(probes.ok());
  const ProbeResult& p = probes->front();
  for (const ShapeAt& s : p.at.outputs) {
    if (s.value == output) return {s.actual, p.breaks};
  }
  FAIL("no output " << output);
  return {};
}

int CountRule(const ir::Model& model, const std::string& rule) {
  auto findings = Lint(model);
  REQUIRE(findings.ok());
  int n = 0;
  for (const Finding& f : *findings) n += f.rule == rule;
  return n;
}

void CheckShapes(const ir::Model& model, const std::string& output,
                 const std::map<std::string, std::vector<int64_t>>& expected) {
  for (const auto& [sizes, shape] : expected) {
    INFO("at " << sizes);
    auto [actual, breaks] = OutputAt(model, sizes, output);
    CHECK(actual == shape);
    CHECK_FALSE(breaks);
  }
}

TEST_CASE("fix: x.view(int(x.size(0)), -1) follows the batch", "[lint][fix]") {
  const std::string bytes = FixtureBytes("SL002/reshape_traced_int.onnxtxt");
  // The original gives [2, 120] at N = 5, where PyTorch's x.flatten(1) gives [5, 48].
  auto [before, broke] = OutputAt(*Load(bytes), "N=5", "y");
  CHECK(before == std::vector<int64_t>{2, 120});
  CHECK(broke);
  FixResult r = FixOf(bytes);
  REQUIRE(r.fixed.size() == 1);
  CHECK(r.fixed[0].rule == "SL002");
  CHECK(r.fixed[0].fix_it->applicability == Applicability::kSafe);
  CHECK(r.unfixed.empty());
  CHECK(r.changed);
  auto fixed = Load(r.model);
  CHECK(CountRule(*fixed, "SL002") == 0);
  // x: [N, 3, 4, 4], y = x.flatten(1): [N, 48].
  CheckShapes(*fixed, "y", {{"N=1", {1, 48}}, {"N=5", {5, 48}}, {"N=7", {7, 48}}});
}

TEST_CASE("fix: with allowzero=1 (torch.export's Reshape) the batch is computed", "[lint][fix]") {
  constexpr char kAllowZero[] = R"(<ir_version: 8, opset_import: ["" : 18]>
g (float[N,3,4,4] x) => (float[N,48] y) {
  shape = Constant <value = int64[2] {2, -1}> ()
  y = Reshape <allowzero = 1> (x, shape)
}
)";
  auto text = ir::LoadModelFromBytes(kAllowZero, "allowzero.onnxtxt", ir::ModelFormat::kText);
  REQUIRE(text.ok());
  FixResult r = FixOf((*text)->CompleteProto().SerializeAsString());
  REQUIRE(r.fixed.size() == 1);
  // A 0 would be a dim of 0 here: the target is Shape(x)[0] and -1, not [0, -1].
  bool shape_read = false;
  for (const std::string& line : r.diff) shape_read = shape_read || line.find("+ Shape") == 0;
  CHECK(shape_read);
  CheckShapes(*Load(r.model), "y", {{"N=1", {1, 48}}, {"N=5", {5, 48}}, {"N=7", {7, 48}}});
}

TEST_CASE("fix: kron's three views, the last revealed by the first two", "[lint][fix]") {
  FixResult r = FixOf(FixtureBytes("SL002/kron_decomposed.onnxtxt"));
  // torch.kron(a, b) for a: [s0, s1], b: [s2, s3] is [s0*s2, s1*s3].
  REQUIRE(r.fixed.size() == 3);
  CHECK(r.unfixed.empty());
  auto fixed = Load(r.model);
  auto findings = Lint(*fixed);
  REQUIRE(findings.ok());
  CHECK(findings->empty());
  CheckShapes(*fixed, "y",
              {{"s0=3,s1=2,s2=4,s3=5", {12, 10}},
               {"s0=1,s1=1,s2=1,s3=1", {1, 1}},
               {"s0=2,s1=7,s2=3,s3=2", {6, 14}}});
  // The declared output [8, 15] follows too.
  const auto& dims = fixed->graph().proto().output(0).type().tensor_type().shape();
  CHECK(dims.dim(0).dim_param() == "s0*s2");
  CHECK(dims.dim(1).dim_param() == "s1*s3");
}

TEST_CASE("fix: a literal last entry follows the last dim", "[lint][fix]") {
  FixResult r = FixOf(FixtureBytes("SL002/literal_last_dim.onnxtxt"));
  REQUIRE(r.fixed.size() == 1);
  auto fixed = Load(r.model);
  CHECK(CountRule(*fixed, "SL002") == 0);
  // x.reshape(-1, int(x.size(-1))) of x: [N, C, H, W] is [N*C*H, W] in eager PyTorch (the
  // corpus's reshape_int_last: (162, 7) at x (3, 6, 9, 7)). The witness alone cannot tell W
  // from H*W (at H = 1 they are the same); the finding's own sizes (W = 10) do.
  CheckShapes(
      *fixed, "y",
      {{"N=2,C=3,H=4,W=5", {24, 5}}, {"N=1,C=1,H=3,W=3", {3, 3}}, {"N=3,C=6,H=9,W=7", {162, 7}}});
}

TEST_CASE("fix: a head split's baked sequence length, and its declaration", "[lint][fix]") {
  FixResult r = FixOf(FixtureBytes("SL002/head_split_with_baked_seq.onnxtxt"));
  REQUIRE(r.fixed.size() == 1);
  auto fixed = Load(r.model);
  auto findings = Lint(*fixed);
  REQUIRE(findings.ok());
  CHECK(findings->empty());
  // x.view(B, S, 8, 64) of x: [B, S, 512].
  CheckShapes(*fixed, "split",
              {{"B=3,S=5", {3, 5, 8, 64}}, {"B=1,S=1", {1, 1, 8, 64}}, {"B=2,S=9", {2, 9, 8, 64}}});
  CHECK(fixed->graph().proto().output(0).type().tensor_type().shape().dim(1).dim_param() == "S");
}

TEST_CASE("fix: a dim a weight fixes is declared static", "[lint][fix]") {
  FixResult r = FixOf(FixtureBytes("SL004/conv_channels.onnxtxt"));
  REQUIRE(r.fixed.size() == 1);
  CHECK(r.fixed[0].rule == "SL004");
  auto fixed = Load(r.model);
  CHECK(CountRule(*fixed, "SL004") == 0);
  const auto& x = fixed->graph().proto().input(0).type().tensor_type().shape();
  CHECK(x.dim(1).dim_value() == 3);
}

TEST_CASE("fix: a weight that fixes only a sum is left, with why", "[lint][fix]") {
  const std::string bytes = FixtureBytes("SL004/concat_fills_weight.onnxtxt");
  FixResult r = FixOf(bytes);
  CHECK(r.fixed.empty());
  REQUIRE(r.unfixed.size() == 1);
  CHECK_THAT(r.unfixed[0].reason, Catch::Matchers::Contains("relation"));
  CHECK_FALSE(r.changed);
  CHECK(r.model == bytes);
}

TEST_CASE("fix: a target that does not regroup the input is left, with why", "[lint][fix]") {
  const std::string bytes = FixtureBytes("SL002/conflicting_targets.onnxtxt");
  FixResult r = FixOf(bytes);
  CHECK(r.fixed.empty());
  REQUIRE_FALSE(r.unfixed.empty());
  CHECK_FALSE(r.unfixed[0].reason.empty());
  CHECK(r.model == bytes);
}

TEST_CASE("fix: Expand's and Tile's shape operands follow the batch", "[lint][fix]") {
  {
    // torch.zeros(1, int(x.size(0)), 16).expand(...): Expand(x, [1, 2, 16]) of x [1, B, 16].
    FixResult r = FixOf(FixtureBytes("SL005/expand_to_example_batch.onnxtxt"));
    REQUIRE(r.fixed.size() == 1);
    CHECK(r.fixed[0].rule == "SL005");
    auto fixed = Load(r.model);
    CHECK(CountRule(*fixed, "SL005") == 0);
    CheckShapes(*fixed, "y", {{"B=3", {1, 3, 16}}, {"B=1", {1, 1, 16}}, {"B=7", {1, 7, 16}}});
  }
  {
    // mem.repeat(int(x.size(0)), 1, 1) of mem [1, 4, 8], met by x [B, T, 8] in a MatMul:
    // scores = x @ mem.transpose(1, 2) is [B, T, 4].
    FixResult r = FixOf(FixtureBytes("SL005/tile_far_from_failure.onnxtxt"));
    REQUIRE(r.fixed.size() == 1);
    auto fixed = Load(r.model);
    CHECK(CountRule(*fixed, "SL005") == 0);
    CheckShapes(*fixed, "scores",
                {{"B=3,T=5", {3, 5, 4}}, {"B=1,T=1", {1, 1, 4}}, {"B=4,T=2", {4, 2, 4}}});
  }
  {
    // cls.expand(int(x.size(0)), 1, 1) of cls [1, 1, 8], concatenated before x [B, T, 8] on
    // axis 1: [B, T + 1, 8].
    FixResult r = FixOf(FixtureBytes("SL005/expand_parameter_to_batch.onnxtxt"));
    REQUIRE(r.fixed.size() == 1);
    CheckShapes(*Load(r.model), "y",
                {{"B=3,T=5", {3, 6, 8}}, {"B=1,T=1", {1, 2, 8}}, {"B=6,T=9", {6, 10, 8}}});
  }
}

// torch.triu(torch.ones(T, T, dtype=torch.bool), 1) folded at T = 4: True above the diagonal.
constexpr char kCausalMask[] = R"(<ir_version: 8, opset_import: ["" : 17]>
g (float[B,T,T] x) => (float[B,T,T] y) {
  mask = Constant <value = bool[4,4] {0, 1, 1, 1, 0, 0, 1, 1, 0, 0, 0, 1, 0, 0, 0, 0}> ()
  ninf = Constant <value = float {-1e9}> ()
  y = Where (mask, ninf, x)
}
)";

// torch.ones(int(x.size(0)), 1, 8) folded at B = 2 and put before x [B, T, 8]; the exporter
// declared the batch it traced, 2, on the output.
constexpr char kOnesBeforeX[] = R"(<ir_version: 8, opset_import: ["" : 17]>
g (float[B,T,8] x) => (float[2,U,8] y) {
  ones = Constant <value = float[2,1,8] {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}> ()
  y = Concat <axis = 1> (ones, x)
}
)";

// A position table sliced to T = 3 and folded: its rows follow no pattern.
constexpr char kTable[] = R"(<ir_version: 8, opset_import: ["" : 17]>
g (float[B,T,2] x) => (float[B,T,2] y) {
  table = Constant <value = float[1,3,2] {0.1, 0.7, -0.3, 0.2, 0.9, -0.5}> ()
  y = Add (x, table)
}
)";

std::string TextBytes(const char* text) {
  auto model = ir::LoadModelFromBytes(text, "model.onnxtxt", ir::ModelFormat::kText);
  REQUIRE(model.ok());
  return (*model)->CompleteProto().SerializeAsString();
}

TEST_CASE("fix: a tensor folded at the example size is rebuilt from its pattern", "[lint][fix]") {
  {
    // arange(int(x.size(1)))[None, :] < lens[:, None]: the [1, 5] arange becomes Range(T);
    // y = x * mask keeps x's shape [B, T, 8] at every T.
    FixResult r = FixOf(FixtureBytes("SL005/length_mask_arange.onnxtxt"));
    REQUIRE(r.fixed.size() == 1);
    CHECK_THAT(r.fixed[0].fix_it->description, Catch::Matchers::Contains("a range along axis 1"));
    auto fixed = Load(r.model);
    CHECK(CountRule(*fixed, "SL005") == 0);
    CheckShapes(
        *fixed, "y",
        {{"B=2,T=7,L=2", {2, 7, 8}}, {"B=1,T=1,L=1", {1, 1, 8}}, {"B=3,T=5,L=3", {3, 5, 8}}});
  }
  {
    // The mask's 4 x 4 becomes T x T: below, on and above the diagonal as at 4.
    FixResult r = FixOf(TextBytes(kCausalMask));
    REQUIRE(r.fixed.size() == 1);
    CHECK_THAT(r.fixed[0].fix_it->description,
               Catch::Matchers::Contains("below, on and above the diagonal"));
    auto fixed = Load(r.model);
    CHECK(CountRule(*fixed, "SL005") == 0);
    CheckShapes(*fixed, "y",
                {{"B=2,T=6", {2, 6, 6}}, {"B=1,T=1", {1, 1, 1}}, {"B=3,T=4", {3, 4, 4}}});
  }
  {
    // Ones repeated along the batch: y is [B, T + 1, 8], and the declared batch of 2, which the
    // exporter wrote for the same bake, follows it.
    FixResult r = FixOf(TextBytes(kOnesBeforeX));
    REQUIRE(r.fixed.size() == 1);
    auto fixed = Load(r.model);
    CHECK(CountRule(*fixed, "SL005") == 0);
    CHECK(CountRule(*fixed, "SL003") == 0);
    CHECK(fixed->graph().proto().output(0).type().tensor_type().shape().dim(0).dim_param() == "B");
  }
  {
    FixResult r = FixOf(TextBytes(kTable));
    CHECK(r.fixed.empty());
    REQUIRE(r.unfixed.size() == 1);
    CHECK_THAT(r.unfixed[0].reason, Catch::Matchers::Contains("follow no pattern"));
  }
}

// Two layers of a view traced at B = 2, S = 3: the first layer's bake makes the second's input
// static, so blame names only the first; the fix repairs both at once.
constexpr char kTwoLayers[] = R"(<ir_version: 8, opset_import: ["" : 17]>
g (float[B,S,64] x) => (float[B,S,64] y) <int64[3] flat = {0, 0, 64}> {
  t0 = Constant <value = int64[4] {2, 3, 4, 16}> ()
  h0 = Reshape (x, t0)
  m0 = Reshape (h0, flat)
  t1 = Constant <value = int64[4] {2, 3, 4, 16}> ()
  h1 = Reshape (m0, t1)
  y = Reshape (h1, flat)
}
)";

TEST_CASE("fix: the same bake in every layer is fixed in one go", "[lint][fix]") {
  auto text = ir::LoadModelFromBytes(kTwoLayers, "layers.onnxtxt", ir::ModelFormat::kText);
  REQUIRE(text.ok());
  const std::string bytes = (*text)->CompleteProto().SerializeAsString();
  auto findings = Lint(*Load(bytes));
  REQUIRE(findings.ok());
  CHECK(findings->size() == 1);  // the second layer's bake is hidden behind the first's
  FixResult r = FixOf(bytes);
  REQUIRE(r.fixed.size() == 1);
  REQUIRE(r.fixed[0].fix_it->siblings.size() == 1);
  CHECK_THAT(r.fixed[0].fix_it->description, Catch::Matchers::Contains("1 other Reshape"));
  auto fixed = Load(r.model);
  auto after = Lint(*fixed);
  REQUIRE(after.ok());
  CHECK(after->empty());
  // x.view(B, S, 4, 16).view(B, S, 64), twice: [B, S, 64].
  CheckShapes(*fixed, "y",
              {{"B=5,S=7", {5, 7, 64}}, {"B=1,S=1", {1, 1, 64}}, {"B=2,S=9", {2, 9, 64}}});
}

TEST_CASE("fix: a decomposed adaptive pool pools to its size at every input size", "[lint][fix]") {
  {
    // adaptive_avg_pool2d(x, (2, 3)) decomposed at 6x6 as AveragePool(kernel [3, 2]): PyTorch
    // gives [N, C, 2, 3] at every size (the original gives [2, 3, 2, 4] at 8x9).
    FixResult r = FixOf(FixtureBytes("SL001/adaptive_pool_dynamo.onnxtxt"));
    REQUIRE(r.fixed.size() == 1);
    CHECK(r.fixed[0].rule == "SL001");
    auto fixed = Load(r.model);
    CHECK(CountRule(*fixed, "SL001") == 0);
    CheckShapes(*fixed, "y",
                {{"s0=2,s1=3,s2=8,s3=9", {2, 3, 2, 3}},
                 {"s0=1,s1=1,s2=12,s3=12", {1, 1, 2, 3}},
                 {"s0=1,s1=2,s2=7,s3=7", {1, 2, 2, 3}},
                 {"s0=1,s1=2,s2=31,s3=17", {1, 2, 2, 3}}});
  }
  {
    // VGG's AdaptiveAvgPool2d((7, 7)) decomposed at 224 (kernel 1): pooled to 7x7 whatever
    // H/32 and W/32 are, so the classifier's 8*7*7 = 392 features fit at 256 and 448 too.
    FixResult r = FixOf(FixtureBytes("SL001/vgg_tail.onnxtxt"));
    REQUIRE(r.fixed.size() == 1);
    auto fixed = Load(r.model);
    auto after = Lint(*fixed);
    REQUIRE(after.ok());
    CHECK(after->empty());
    CheckShapes(
        *fixed, "y",
        {{"N=1,H=256,W=256", {1, 10}}, {"N=2,H=448,W=448", {2, 10}}, {"N=1,H=64,W=96", {1, 10}}});
  }
}

TEST_CASE("fix: an unsafe fix only with unsafe_fixes", "[lint][fix]") {
  const std::string bytes = FixtureBytes("SL009/squeeze_traced_axis.onnxtxt");
  FixResult safe = FixOf(bytes);
  CHECK(safe.fixed.empty());
  REQUIRE(safe.unfixed.size() == 1);
  CHECK_THAT(safe.unfixed[0].reason, Catch::Matchers::Contains("--unsafe-fixes"));
  CHECK(safe.model == bytes);
  FixOptions unsafe;
  unsafe.unsafe_fixes = true;
  FixResult r = FixOf(bytes, unsafe);
  REQUIRE(r.fixed.size() == 1);
  CHECK(r.fixed[0].fix_it->applicability == Applicability::kUnsafe);
  auto fixed = Load(r.model);
  auto after = Lint(*fixed);
  REQUIRE(after.ok());
  CHECK(after->empty());
}

TEST_CASE("fix: fixing a fixed model changes nothing", "[lint][fix]") {
  for (const char* fixture : {"SL002/kron_decomposed.onnxtxt", "SL004/conv_channels.onnxtxt",
                              "SL002/reshape_traced_int.onnxtxt"}) {
    INFO(fixture);
    FixResult once = FixOf(FixtureBytes(fixture));
    FixResult twice = FixOf(once.model);
    CHECK(twice.fixed.empty());
    CHECK_FALSE(twice.changed);
    CHECK(twice.model == once.model);
  }
}

TEST_CASE("fix: --select leaves the other rules' findings", "[lint][fix]") {
  FixOptions options;
  options.lint.select = std::vector<std::string>{"SL004"};
  FixResult r = FixOf(FixtureBytes("SL002/reshape_traced_int.onnxtxt"), options);
  CHECK(r.fixed.empty());
  CHECK_FALSE(r.changed);
}

TEST_CASE("fix: what it cannot rewrite is an error, not a guess", "[lint][fix]") {
  auto text =
      Fix("<ir_version: 8, opset_import: [\"\" : 17]>\ng (float[N] x) => (float[N] y) "
          "{ y = Relu(x) }",
          "model.onnxtxt");
  REQUIRE_FALSE(text.ok());
  CHECK_THAT(std::string(text.status().message()), Catch::Matchers::Contains("binary"));
  // Text that opens with comments, as the rule fixtures do, is text too.
  auto commented =
      Fix("# a comment\n\n  # another\n<ir_version: 8, opset_import: [\"\" : 17]>\n"
          "g (float[N] x) => (float[N] y) { y = Relu(x) }",
          "fixture.onnxtxt");
  REQUIRE_FALSE(commented.ok());
  CHECK_THAT(std::string(commented.status().message()), Catch::Matchers::Contains("binary"));
  auto junk = Fix("not a model at all", "junk.onnx");
  REQUIRE_FALSE(junk.ok());
  CHECK_THAT(std::string(junk.status().message()), Catch::Matchers::Contains("junk.onnx"));
}

}  // namespace
}  // namespace shapelint::lint
