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

TEST_CASE("fix: the dims a weight leaves free stay dynamic", "[lint][fix]") {
  // self.mlp(x.flatten(0, 1)).view_as(x): the Linear fixes D to 8, and the view back relates
  // B * T * 8 to B * T * D, which holds at every B and T once D is 8. Declaring only D repairs
  // it (the old repair asked B and T for sizes of their own and gave up).
  FixResult r = FixOf(FixtureBytes("SL004/weight_fixes_features_batch_cancels.onnxtxt"));
  REQUIRE(r.fixed.size() == 1);
  CHECK(r.fixed[0].rule == "SL004");
  auto fixed = Load(r.model);
  CHECK(CountRule(*fixed, "SL004") == 0);
  const auto& x = fixed->graph().proto().input(0).type().tensor_type().shape();
  CHECK(x.dim(0).dim_param() == "B");
  CHECK(x.dim(1).dim_param() == "T");
  CHECK(x.dim(2).dim_value() == 8);
  // By hand: every batch and length runs, [B, T, 8] in and out.
  CheckShapes(*fixed, "y",
              {{"B=2,T=3", {2, 3, 8}}, {"B=5,T=7", {5, 7, 8}}, {"B=1,T=1", {1, 1, 8}}});
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

// cls.expand(int(x.size(0)), -1, -1) through TorchScript: the -1s become 1 in a Where before
// the Expand, so the literal batch 2 reaches it through other ops.
constexpr char kExpandThroughWhere[] = R"(<ir_version: 8, opset_import: ["" : 17]>
g (float[B,T,8] x) => (float[B,?,8] y) {
  cls = Constant <value = float[1,1,8] {1, 2, 3, 4, 5, 6, 7, 8}> ()
  three = Constant <value = int64[1] {3}> ()
  ones = ConstantOfShape <value = int64[1] {1}> (three)
  minus = Constant <value = int64 {-1}> ()
  neg = Mul (ones, minus)
  shape = Constant <value = int64[3] {2, -1, -1}> ()
  is_neg = Equal (shape, neg)
  target = Where (is_neg, ones, shape)
  e = Expand (cls, target)
  y = Concat <axis = 1> (e, x)
}
)";

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

TEST_CASE("fix: an Expand shape computed from a literal through other ops", "[lint][fix]") {
  FixResult r = FixOf(TextBytes(kExpandThroughWhere));
  REQUIRE(r.fixed.size() == 1);
  CHECK(r.fixed[0].rule == "SL005");
  // The Where that turned the literal into the shape, and what fed it, go with it.
  int removed = 0;
  for (const std::string& line : r.diff) removed += line.rfind("- ", 0) == 0;
  CHECK(removed == 7);
  // torch.cat([cls.expand(B, -1, -1), x], 1) of x [B, T, 8]: [B, T + 1, 8].
  CheckShapes(*Load(r.model), "y",
              {{"B=3,T=5", {3, 6, 8}}, {"B=1,T=1", {1, 2, 8}}, {"B=4,T=2", {4, 3, 8}}});
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
    // An LSTM's zero state folded at batch 1: rebuilt along its batch axis (axis 1), not its
    // direction axis; y = LSTM(x) of x [T, B, 8] is [T, 1, B, 16].
    FixResult r = FixOf(FixtureBytes("SL005/lstm_state_batch_one.onnxtxt"));
    REQUIRE(r.fixed.size() == 1);
    CHECK_THAT(r.fixed[0].fix_it->description, Catch::Matchers::Contains("axis 1 = B"));
    CheckShapes(
        *Load(r.model), "y",
        {{"T=5,B=3", {5, 1, 3, 16}}, {"T=1,B=1", {1, 1, 1, 16}}, {"T=2,B=7", {2, 1, 7, 16}}});
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

// Fix options with the export sizes `sizes` ("x=2x5x8"), as `--export-dims` gives them.
FixOptions Told(const std::string& sizes, bool unsafe_fixes = false) {
  auto spec = ParseSizes(sizes, kExportSizes);
  REQUIRE(spec.ok());
  FixOptions options;
  options.lint.export_dims = *std::move(spec);
  options.unsafe_fixes = unsafe_fixes;
  return options;
}

TEST_CASE("fix: a literal computed from the example size follows the input", "[lint][fix]") {
  {
    // x[:, int(x.size(1)) - 1] at T = 5: the index 4 becomes -1, the last row at every T.
    // An error (T = 4 fails), so the fix is safe. y = x[:, -1] of x [B, T, 8] is [B, 8].
    FixResult r = FixOf(FixtureBytes("SL007/last_row_gather.onnxtxt"), Told("x=2x5x8"));
    REQUIRE(r.fixed.size() == 1);
    CHECK(r.fixed[0].rule == "SL007");
    CHECK(r.fixed[0].fix_it->applicability == Applicability::kSafe);
    CHECK_THAT(r.fixed[0].fix_it->description, Catch::Matchers::Contains("becomes -1"));
    auto fixed = Load(r.model);
    CheckShapes(*fixed, "y",
                {{"B=2,T=4,D=8", {2, 8}}, {"B=1,T=1,D=8", {1, 8}}, {"B=3,T=9,D=8", {3, 8}}});
  }
  {
    // torch.topk(x, int(x.size(-1)) // 2) at D = 8: k = D // 2, [B, T, 3] at D = 6 (and D = 7),
    // [B, T, 1] at D = 3, where the original fails.
    FixResult r = FixOf(FixtureBytes("SL007/topk_half_dim.onnxtxt"), Told("x=2x5x8"));
    REQUIRE(r.fixed.size() == 1);
    CHECK(r.fixed[0].fix_it->applicability == Applicability::kSafe);
    CheckShapes(
        *Load(r.model), "y",
        {{"B=2,T=5,D=6", {2, 5, 3}}, {"B=2,T=5,D=7", {2, 5, 3}}, {"B=1,T=2,D=3", {1, 2, 1}}});
  }
}

TEST_CASE("fix: a literal no size makes fail is fixed only as unsafe", "[lint][fix]") {
  // x[..., :int(x.size(-1)) // 2] at W = 10 runs at every W, returning 5 columns: a warning,
  // whose literal could be the module's own 5.
  const std::string bytes = FixtureBytes("SL007/slice_half_width.onnxtxt");
  FixResult safe = FixOf(bytes, Told("x=2x4x8x10"));
  CHECK(safe.fixed.empty());
  REQUIRE(safe.unfixed.size() == 1);
  CHECK_THAT(safe.unfixed[0].reason, Catch::Matchers::Contains("--unsafe-fixes"));
  FixResult r = FixOf(bytes, Told("x=2x4x8x10", true));
  REQUIRE(r.fixed.size() == 1);
  CHECK(r.fixed[0].fix_it->applicability == Applicability::kUnsafe);
  // Eager: W // 2 columns, 3 at W = 7, 6 at 12, 10 at 21.
  CheckShapes(*Load(r.model), "y",
              {{"N=2,C=4,H=8,W=7", {2, 4, 8, 3}},
               {"N=2,C=4,H=8,W=12", {2, 4, 8, 6}},
               {"N=1,C=1,H=1,W=21", {1, 1, 1, 10}}});
  {
    // The same Slice as torch.export writes it, the output declared with the 5 it traced: the
    // declaration follows the fixed graph (else the fix would leave a contradiction, SL003).
    constexpr char kDeclaredHalf[] = R"(<ir_version: 8, opset_import: ["" : 17]>
half (float[N,C,H,W] x) => (float[N,C,H,5] y) {
  starts = Constant <value = int64[1] {0}> ()
  ends = Constant <value = int64[1] {5}> ()
  axes = Constant <value = int64[1] {3}> ()
  y = Slice (x, starts, ends, axes)
}
)";
    FixResult declared = FixOf(TextBytes(kDeclaredHalf), Told("x=2x4x8x10", true));
    REQUIRE(declared.fixed.size() == 1);
    auto fixed = Load(declared.model);
    CHECK(CountRule(*fixed, "SL003") == 0);
    const auto& dim = fixed->graph().proto().output(0).type().tensor_type().shape().dim(3);
    CHECK_FALSE(dim.has_dim_value());
    CheckShapes(*fixed, "y",
                {{"N=2,C=4,H=8,W=7", {2, 4, 8, 3}}, {"N=1,C=1,H=1,W=4", {1, 1, 1, 2}}});
  }
  {
    // F.pad(x, (0, (4 - int(W) % 4) % 4)) at W = 10: W padded up to a multiple of 4.
    FixResult pad = FixOf(FixtureBytes("SL007/pad_to_multiple.onnxtxt"), Told("x=2x4x8x10", true));
    REQUIRE(pad.fixed.size() == 1);
    CheckShapes(*Load(pad.model), "y",
                {{"N=2,C=4,H=8,W=7", {2, 4, 8, 8}},
                 {"N=2,C=4,H=8,W=8", {2, 4, 8, 8}},
                 {"N=1,C=1,H=3,W=13", {1, 1, 3, 16}}});
  }
  {
    // F.avg_pool2d(x, (int(H), int(W))): a global pool, [N, C, 1, 1] at every size.
    FixResult pool = FixOf(FixtureBytes("SL007/pool_whole_map.onnxtxt"), Told("x=2x4x8x10", true));
    REQUIRE(pool.fixed.size() == 1);
    CheckShapes(*Load(pool.model), "y",
                {{"N=2,C=4,H=16,W=12", {2, 4, 1, 1}},
                 {"N=1,C=3,H=3,W=5", {1, 3, 1, 1}},
                 {"N=2,C=4,H=8,W=10", {2, 4, 1, 1}}});
  }
  {
    // F.interpolate(x, size=(int(H) * 2, int(W) * 2)): [N, C, 2H, 2W]; N and C, which the graph
    // computes, are read back from the sizes operand.
    FixResult up = FixOf(FixtureBytes("SL007/resize_to_double.onnxtxt"), Told("x=2x4x8x10", true));
    REQUIRE(up.fixed.size() == 1);
    CheckShapes(*Load(up.model), "y",
                {{"N=2,C=4,H=5,W=7", {2, 4, 10, 14}},
                 {"N=3,C=1,H=1,W=1", {3, 1, 2, 2}},
                 {"N=1,C=2,H=12,W=3", {1, 2, 24, 6}}});
  }
}

// torch.index_select(x, 1, torch.arange(0, int(x.size(1)), 2)) at T = 5: rows [0, 2, 4].
constexpr char kEveryOtherRow[] = R"(<ir_version: 8, opset_import: ["" : 17]>
g (float[B,T,D] x) => (float[B,?,D] y) {
  rows = Constant <value = int64[3] {0, 2, 4}> ()
  y = Gather <axis = 1> (x, rows)
}
)";

// h = x[:, 0]; for t in range(1, int(x.size(1))): h = h + x[:, t], unrolled at T = 4.
constexpr char kUnrolledLoop[] = R"(<ir_version: 8, opset_import: ["" : 17]>
g (float[B,T,D] x) => (float[B,D] y) {
  i0 = Constant <value = int64 {0}> ()
  i1 = Constant <value = int64 {1}> ()
  i2 = Constant <value = int64 {2}> ()
  i3 = Constant <value = int64 {3}> ()
  x0 = Gather <axis = 1> (x, i0)
  x1 = Gather <axis = 1> (x, i1)
  x2 = Gather <axis = 1> (x, i2)
  x3 = Gather <axis = 1> (x, i3)
  h1 = Add (x0, x1)
  h2 = Add (h1, x2)
  y = Add (h2, x3)
}
)";

TEST_CASE("fix: folded rows become a range; an unrolled loop is left", "[lint][fix]") {
  FixResult rows = FixOf(TextBytes(kEveryOtherRow), Told("x=2x5x8"));
  REQUIRE(rows.fixed.size() == 1);
  CHECK_THAT(rows.fixed[0].fix_it->description,
             Catch::Matchers::Contains("indices [0, 2, 4] become range(0, T, 2)"));
  // arange(0, T, 2) has ceil(T / 2) rows: 4 at T = 7, 3 at T = 6, 1 at T = 1 and 2.
  CheckShapes(*Load(rows.model), "y",
              {{"B=2,T=7,D=8", {2, 4, 8}},
               {"B=2,T=6,D=8", {2, 3, 8}},
               {"B=1,T=1,D=3", {1, 1, 3}},
               {"B=1,T=2,D=3", {1, 1, 3}}});
  // Fixing the last step to x[:, -1] would leave the loop at 4 steps and read other rows.
  FixResult loop = FixOf(TextBytes(kUnrolledLoop), Told("x=2x4x8"));
  CHECK(loop.fixed.empty());
  // Left with it: SL010's warning that the graph needs 4 steps (the Gather of index 3), a limit
  // no fix lifts.
  REQUIRE(loop.unfixed.size() == 2);
  CHECK(loop.unfixed[0].finding.rule == "SL007");
  CHECK_THAT(loop.unfixed[0].reason, Catch::Matchers::Contains("a loop unrolled"));
  CHECK(loop.unfixed[1].finding.rule == "SL010");
}

TEST_CASE("fix: a scale equal to the export size is computed, as an unsafe fix", "[lint][fix]") {
  // x.sum(-1) / int(x.size(-1)) at D = 8: Div by Cast(Shape(x)[2]). Only values change, which
  // tools/models/check_fixes.py proves against eager; here: unsafe, what it computes, and that
  // the fixed model lints clean with its shapes kept.
  const std::string bytes = FixtureBytes("SL008/mean_by_literal.onnxtxt");
  FixResult safe = FixOf(bytes, Told("x=2x5x8"));
  CHECK(safe.fixed.empty());
  FixResult r = FixOf(bytes, Told("x=2x5x8", true));
  REQUIRE(r.fixed.size() == 1);
  CHECK(r.fixed[0].fix_it->applicability == Applicability::kUnsafe);
  CHECK(r.fixed[0].fix_it->description ==
        "the literal 8 becomes D, computed from the input's shape");
  auto fixed = Load(r.model);
  CHECK(CountRule(*fixed, "SL008") == 0);
  // math.sqrt(int(x.size(-1))) at D = 8: the root of the cast size.
  FixResult root = FixOf(FixtureBytes("SL008/attention_scale.onnxtxt"), Told("x=2x5x8", true));
  REQUIRE(root.fixed.size() == 1);
  CHECK_THAT(root.fixed[0].fix_it->description, Catch::Matchers::Contains("becomes sqrt(D)"));
  bool sqrt_added = false;
  for (const std::string& line : root.diff) sqrt_added = sqrt_added || line.rfind("+ Sqrt", 0) == 0;
  CHECK(sqrt_added);
}

TEST_CASE("fix: a literal that derives two ways, or through sqrt, is left", "[lint][fix]") {
  // 4 is sqrt(16) of the channels and of the tokens alike.
  FixResult both =
      FixOf(FixtureBytes("SL007/tokens_to_square_grid_divisible.onnxtxt"), Told("x=2x16x16", true));
  CHECK(both.fixed.empty());
  REQUIRE(both.unfixed.size() == 1);
  CHECK_THAT(both.unfixed[0].reason, Catch::Matchers::Contains("derives from C and from T"));
  FixResult grid = FixOf(FixtureBytes("SL007/tokens_to_square_grid.onnxtxt"), Told("x=2x16x8"));
  CHECK(grid.fixed.empty());
  REQUIRE(grid.unfixed.size() == 1);
  CHECK_THAT(grid.unfixed[0].reason, Catch::Matchers::Contains("floating point"));
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
