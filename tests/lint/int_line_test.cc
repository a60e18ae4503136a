// The exporter's record that a line turned a size into a Python int, where torch.export's
// ranges do not show it: SL011 on a specialized size that such a line wrote into a literal
// where nothing fails, and the design reading of a restriction over traced sizes (SL010) left
// for a line that takes int() of a value (int(h * w) guards a product, which no range shows),
// and for the same restriction restated below such a line or one that asks to resample.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdint>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "onnx/onnx_pb.h"
#include "recorded_model.h"
#include "shapelint/lint/lint.h"
#include "shapelint/lint/probe.h"

namespace shapelint::lint {
namespace {

// Adds an int64 initializer `name` holding `values`, of one axis.
void AddInts(ONNX_NAMESPACE::GraphProto* g, const std::string& name,
             const std::vector<int64_t>& values) {
  auto* t = g->add_initializer();
  t->set_name(name);
  t->set_data_type(ONNX_NAMESPACE::TensorProto::INT64);
  t->add_dims(static_cast<int64_t>(values.size()));
  for (int64_t v : values) t->add_int64_data(v);
}

// Adds `op` of `inputs` to `output`, with an int attribute when `attribute` is named.
ONNX_NAMESPACE::NodeProto* AddOp(ONNX_NAMESPACE::GraphProto* g, const std::string& op,
                                 const std::vector<std::string>& inputs, const std::string& output,
                                 const std::string& attribute = "", int64_t value = 0) {
  auto* n = g->add_node();
  n->set_op_type(op);
  n->set_name("node_" + output);
  for (const auto& in : inputs) n->add_input(in);
  n->add_output(output);
  if (!attribute.empty()) {
    auto* a = n->add_attribute();
    a->set_name(attribute);
    a->set_type(ONNX_NAMESPACE::AttributeProto::INT);
    a->set_i(value);
  }
  return n;
}

// x[s77, s27, s53] -> zeros of [x.size(0), `width`] from a Concat recorded at `code`, with s27
// specialized to 6: torch.zeros(x.size(0), int(x.size(1))) as torch.export writes it.
std::string ZerosModel(int64_t width, const std::string& code,
                       const std::string& folded_from = "") {
  ONNX_NAMESPACE::ModelProto m =
      ModelWithRanges("{s77: VR[0, int_oo], s27: VR[6, 6], s53: VR[0, int_oo]}");
  auto* g = m.mutable_graph();
  AddInts(g, "val_4", {width});
  if (!folded_from.empty()) {
    auto* folded = g->add_value_info();
    folded->set_name("val_4");
    AddMetadata(folded, 4, "pkg.onnxscript.optimizer.folded_from", folded_from);
  }
  AddOp(g, "Shape", {"x"}, "n", "end", 1);
  RecordStack(AddOp(g, "Concat", {"n", "val_4"}, "dims", "axis", 0),
              "File \"net.py\", line 2, in forward\n    " + code);
  AddOp(g, "ConstantOfShape", {"dims"}, "y");
  g->add_output()->set_name("y");
  return m.SerializeAsString();
}

TEST_CASE("SL011: a specialized size the int() line wrote into the graph is an error", "[lint]") {
  // torch.zeros(x.size(0), int(x.size(1))) exported at C = 6 with Dim.AUTO
  // (tests/corpus/fresh/onehot_scatter_int.dynamo): nothing fails at C = 7, the zeros stay 6
  // wide. By hand: the record pins s27 to 6, the line takes int() of a size and the Concat
  // holds the 6, which the line does not write: the specialization reached a literal.
  const auto findings =
      FindingsOf(ZerosModel(6, "return torch.zeros(x.size(0), int(x.size(1)))"), "SL011");
  REQUIRE(findings.size() == 1);
  CHECK(findings[0].severity == Severity::kError);
  CHECK(findings[0].evidence == Evidence::kExporterRecord);
  CHECK(findings[0].node.index == 1);  // the Concat, the user's line
  REQUIRE(findings[0].counterexample);
  CHECK(findings[0].counterexample->failure ==
        "'val_4' still holds 6, the size s27 had at export, where s27 is 7 here");
}

TEST_CASE("SL011: a specialization with no number of its line in the graph stays a warning",
          "[lint]") {
  // The line writes the 6 (the module's own width), or takes no int(): no record that the trace
  // wrote it. A literal other than 6 the line computed from the size (6 - 1) is a value this
  // rule does not derive: the specialization alone, a warning.
  for (const auto& [width, code] : std::vector<std::pair<int64_t, std::string>>{
           {6, "return torch.zeros(x.size(0), 6)"},
           {6, "return torch.zeros(x.size(0), self.width)"},
           {5, "return torch.zeros(x.size(0), int(x.size(1)) - 1)"}}) {
    INFO(code);
    const auto findings = FindingsOf(ZerosModel(width, code), "SL011");
    REQUIRE(findings.size() == 1);
    CHECK(findings[0].severity == Severity::kWarning);
    CHECK_FALSE(findings[0].counterexample);
  }
}

TEST_CASE("SL011: a specialized size in a constant the trace made to a size is an error",
          "[lint]") {
  // offsets = torch.arange(0, B * T, T) with T = int(ids.size(1)) on a line of its own: the
  // node that reads the folded [0, 5] is recorded at the embedding_bag call, which takes no
  // int() (tests/corpus/classes/embbag_offsets_int.dynamo). The optimizer's record that an
  // arange went into the constant says what the line would. By hand: 6 is the specialized
  // size and the constant holds it.
  const std::string code = "return self.bag(ids.reshape(-1), offsets)";
  auto findings = FindingsOf(ZerosModel(6, code, "['arange', 'val_0', 'val_1']"), "SL011");
  REQUIRE(findings.size() == 1);
  CHECK(findings[0].severity == Severity::kError);
  REQUIRE(findings[0].counterexample);
  CHECK(absl::StrContains(findings[0].counterexample->failure, "'val_4' still holds 6"));
  // Folded from no such op (a slice end of the trace's, val_0): the record says nothing.
  findings = FindingsOf(ZerosModel(6, code, "['val_0']"), "SL011");
  REQUIRE(findings.size() == 1);
  CHECK(findings[0].severity == Severity::kWarning);
}

// x[s77, s27, s53] -> Reshape to the literal [1, -1], recorded at `code`, with torch.export's
// range record `ranges`: x.view(int(x.size(0)), -1) exported at batch 1.
std::string BatchOneModel(const std::string& ranges, const std::string& code) {
  ONNX_NAMESPACE::ModelProto m = ModelWithRanges(ranges);
  auto* g = m.mutable_graph();
  AddInts(g, "val_5", {1, -1});
  RecordStack(AddOp(g, "Reshape", {"x", "val_5"}, "y"),
              "File \"net.py\", line 2, in forward\n    " + code);
  g->add_output()->set_name("y");
  return m.SerializeAsString();
}

constexpr char kBatchReadAtOne[] = "{s77: VR[1, 2], s27: VR[0, int_oo], s53: VR[0, int_oo]}";

TEST_CASE("SL011: a batch of 1 read as an int and written into a shape is an error", "[lint]") {
  // x.view(int(x.size(0)), -1) exported at batch 1 with Dim.AUTO
  // (tests/corpus/torch2/view_int_batch.dynamo-b1): torch 2.15 narrows the batch to [1, 2]
  // and the target is [1, -1]. ONNX Runtime returns [1, 2 * n] at batch 2 where eager returns
  // [2, n] (the corpus label's runs). By hand: the line takes int() of axis 0 and writes no
  // 1, the Reshape reads the literal 1 as its target.
  const auto findings =
      FindingsOf(BatchOneModel(kBatchReadAtOne, "return x.view(int(x.size(0)), -1)"), "SL011");
  REQUIRE(findings.size() == 1);
  CHECK(findings[0].severity == Severity::kError);
  CHECK(findings[0].evidence == Evidence::kExporterRecord);
  CHECK(absl::StrContains(findings[0].message, "s77 in [1, 2]"));
  REQUIRE(findings[0].counterexample);
  const auto& binding = findings[0].counterexample->binding;
  CHECK(std::find(binding.begin(), binding.end(), std::pair<std::string, int64_t>{"s77", 2}) !=
        binding.end());
  CHECK(findings[0].counterexample->failure ==
        "'val_5' still holds 1, the size s77 had at export, where s77 is 2 here");
}

TEST_CASE("SL011: a literal 1 with no read of its axis on its line is no record", "[lint]") {
  // The same graph where the line writes the 1 (x.reshape(1, -1) flattens to one row at any
  // batch, also where the line reads the batch for another op), reads another axis, or takes no
  // int(); or where the record keeps the batch symbolic (VR[0, int_oo]) or the sizes given say the
  // export batch was 2. A 1 alone says nothing: silent.
  for (const auto& [ranges, code] : std::vector<std::pair<std::string, std::string>>{
           {kBatchReadAtOne, "return x.reshape(1, -1)"},
           {kBatchReadAtOne, "return x.reshape(1, -1).expand(int(x.size(0)), -1)"},
           {kBatchReadAtOne, "return x.view(int(x.size(1)), -1)"},
           {kBatchReadAtOne, "return x.view(x.size(0), -1)"},
           {"{s77: VR[0, int_oo], s27: VR[0, int_oo], s53: VR[0, int_oo]}",
            "return x.view(int(x.size(0)), -1)"}}) {
    INFO(ranges << " " << code);
    CHECK(FindingsOf(BatchOneModel(ranges, code), "SL011").empty());
  }
  LintOptions told;
  told.export_dims = ProbeSpec{{}, {{"x", {2, 3, 4}}}, {}, 0, 0};
  CHECK(
      FindingsOf(BatchOneModel(kBatchReadAtOne, "return x.view(int(x.size(0)), -1)"), "SL011", told)
          .empty());
}

// x[s77, s27, s53] -> Reshape to [x's batch, 5, -1], recorded at `code`, with every size traced
// symbolically: d.view(d.size(0), int(d.size(1) / 2), -1) exported at 10 rows, where torch.export
// keeps int() of float arithmetic on a size without recording it.
std::string HalvedViewModel(const std::string& code) {
  ONNX_NAMESPACE::ModelProto m =
      ModelWithRanges("{s77: VR[0, int_oo], s27: VR[0, int_oo], s53: VR[0, int_oo]}");
  auto* g = m.mutable_graph();
  AddInts(g, "val_9", {5});
  AddInts(g, "val_10", {-1});
  AddOp(g, "Shape", {"x"}, "b", "end", 1);
  AddOp(g, "Concat", {"b", "val_9", "val_10"}, "target", "axis", 0);
  RecordStack(AddOp(g, "Reshape", {"x", "target"}, "y"),
              "File \"net.py\", line 3, in forward\n    " + code);
  g->add_output()->set_name("y");
  return m.SerializeAsString();
}

// x[s77, s27, s53] padded at the end of `axis` by `number` - x.size(axis), the Sub recorded at
// `code`, with s53 specialized to 10: n = 1 << (x.size(-1) - 1).bit_length();
// F.pad(x, (0, n - x.size(-1))) as torch.export writes it (the Sub of 16 and the size).
std::string PadToComputedModel(int64_t number, const std::string& code, int64_t axis = 2,
                               const std::string& file = "net.py") {
  ONNX_NAMESPACE::ModelProto m =
      ModelWithRanges("{s77: VR[0, int_oo], s27: VR[0, int_oo], s53: VR[10, 10]}");
  auto* g = m.mutable_graph();
  AddInts(g, "val_1", {number});
  AddInts(g, "val_2", {0, 0, 0, 0, 0});
  auto* end = AddOp(g, "Shape", {"x"}, "size", "start", axis)->add_attribute();
  end->set_name("end");
  end->set_type(ONNX_NAMESPACE::AttributeProto::INT);
  end->set_i(axis + 1);
  RecordStack(AddOp(g, "Sub", {"val_1", "size"}, "sub"),
              "File \"" + file + "\", line 3, in forward\n    " + code);
  AddOp(g, "Concat", {"val_2", "sub"}, "pads", "axis", 0);
  AddOp(g, "Pad", {"x", "pads"}, "y");
  g->add_output()->set_name("y");
  return m.SerializeAsString();
}

// x[s77, s27, s53] sliced with the literal `step` on `axis`, recorded at `code`, with s53
// specialized to 8: step = max(int(x.size(2)) // 4, 1); x[:, :, ::step].
std::string StepModel(int64_t step, const std::string& code, int64_t axis = 2) {
  ONNX_NAMESPACE::ModelProto m =
      ModelWithRanges("{s77: VR[0, int_oo], s27: VR[0, int_oo], s53: VR[8, 8]}");
  auto* g = m.mutable_graph();
  AddInts(g, "starts", {0});
  AddInts(g, "ends", {INT64_MAX});
  AddInts(g, "axes", {axis});
  AddInts(g, "steps", {step});
  RecordStack(AddOp(g, "Slice", {"x", "starts", "ends", "axes", "steps"}, "y"),
              "File \"net.py\", line 3, in forward\n    " + code);
  g->add_output()->set_name("y");
  return m.SerializeAsString();
}

TEST_CASE("SL011: a number forward computed from a specialized size beside it is an error",
          "[lint]") {
  // tests/corpus/veiled/next_pow2_bit_length.dynamo: ONNX Runtime pads to 16 at every length,
  // eager to the next power of two (32 at 20, the label's runs). By hand: the record pins s53
  // to 10, the Sub computes with the size, and its 16 is no number the line writes (`n`).
  auto findings =
      FindingsOf(PadToComputedModel(16, "return F.pad(x, (0, n - x.size(-1)))"), "SL011");
  REQUIRE(findings.size() == 1);
  CHECK(findings[0].severity == Severity::kError);
  CHECK(findings[0].evidence == Evidence::kExporterRecord);
  CHECK(findings[0].node.index == 1);  // the Sub, the user's line
  REQUIRE(findings[0].counterexample);
  CHECK(findings[0].counterexample->failure ==
        "'val_1' still holds 16, the number forward computed from s53 = 10 (its line names a "
        "Python value there), where s53 is 20 here");
  // The size bound to a name on a line before: the line writes the Sub's operator.
  findings = FindingsOf(PadToComputedModel(16, "y = F.pad(x, (0, n - L))"), "SL011");
  REQUIRE(findings.size() == 1);
  CHECK(findings[0].severity == Severity::kError);
  // tests/corpus/obscured/clip_sampling_python_stride.dynamo: the step of 2 = 8 // 4 on the
  // specialized axis, a name (`step`) on the line.
  findings = FindingsOf(StepModel(2, "clip = x[:, :, ::step][:, :, :4]"), "SL011");
  REQUIRE(findings.size() == 1);
  CHECK(findings[0].severity == Severity::kError);
  REQUIRE(findings[0].counterexample);
  CHECK(absl::StrContains(findings[0].counterexample->failure, "'steps' still holds 2"));
}

TEST_CASE("SL011: a number the line writes, or one away from the specialized size, is none",
          "[lint]") {
  // The line spells the 16 or the step out (the module's numbers), or the literal computes
  // with another axis than the specialized one, or is a unit step: a specialization nothing
  // shows reached a literal, a warning.
  // (slice: a Slice's step, else the Pad's Sub), the literal, the line, the axis.
  for (const auto& [slice, number, code, axis] :
       std::vector<std::tuple<bool, int64_t, std::string, int>>{
           {false, 16, "return F.pad(x, (0, 16 - x.size(-1)))", 2},
           {false, 16, "return F.pad(x, (0, n - x.size(-1)))", 1},
           {false, 1, "return F.pad(x, (0, n - x.size(-1)))", 2},
           // A module's forward line that reads no size: the Sub is a helper's it calls
           // (timm's Swin records a roll's Mod at `x = x + self.drop_path1(...)`).
           {false, 16, "x = x + self.drop_path1(self._attn(self.norm1(x)))", 2},
           {true, 2, "clip = x[:, :, ::2]", 2},
           {true, 2, "clip = x[:, ::step]", 1},
           {true, 1, "y = x[:, :, ::s]", 2}}) {
    INFO(code << " at axis " << axis << " with " << number);
    const auto findings = FindingsOf(
        slice ? StepModel(number, code, axis) : PadToComputedModel(number, code, axis), "SL011");
    REQUIRE(findings.size() == 1);
    CHECK(findings[0].severity == Severity::kWarning);
  }
  // Torch's own code (its runtime asserts compute with numbers of their own).
  const auto internal =
      FindingsOf(PadToComputedModel(16, "return F.pad(x, (0, n - x.size(-1)))", 2,
                                    "site-packages/torch/fx/passes/runtime_assert.py"),
                 "SL011");
  REQUIRE(internal.size() == 1);
  CHECK(internal[0].severity == Severity::kWarning);
  // Without the record the same graph holds no specialization at all.
  ONNX_NAMESPACE::ModelProto m;
  REQUIRE(m.ParseFromString(PadToComputedModel(16, "return F.pad(x, (0, n - x.size(-1)))")));
  m.clear_metadata_props();
  CHECK(FindingsOf(m.SerializeAsString(), "SL011").empty());
}

TEST_CASE("SL007: a view's literal an int() line computed from a size, told the sizes", "[lint]") {
  // tests/corpus/hidden/tacotron2_decoder_inputs_int_true_div.dynamo at mel 2 x 4 x 10: the
  // target's 5 leaves the -1 no whole quotient (it splits a dim), the line takes int() of a size
  // and does not write 5, and 5 = 10 // 2. By hand: at s27 = 8 the input has 2*8*4 = 64 elements,
  // not a multiple of 2*5, so the Reshape fails where eager views 4 rows (the label's run).
  LintOptions told;
  told.export_dims = ProbeSpec{{}, {{"x", {2, 10, 4}}}, {}, 0, 0};
  const std::string code = "d = d.view(d.size(0), int(d.size(1) / 2), -1)";
  auto findings = FindingsOf(HalvedViewModel(code), "SL007", told);
  REQUIRE(findings.size() == 1);
  CHECK(findings[0].severity == Severity::kError);
  CHECK(absl::StrContains(findings[0].message, "shape 5 = s27 // 2 with s27 = 10 at export"));
  // The line writes the 5 (the module's own groups), or takes no int(): only a square root of a
  // size is read from a view's literal, as before. Alone, no size to derive from: silent.
  for (const char* own : {"d = d.view(d.size(0), 5, -1)", "d = d.view(d.size(0), self.g, -1)"}) {
    INFO(own);
    CHECK(FindingsOf(HalvedViewModel(own), "SL007", told).empty());
  }
  CHECK(FindingsOf(HalvedViewModel(code), "SL007").empty());
}

// x[s77, s27, s53] (b, h, w) -> Reshape to [b, `tokens`] from a Concat of x's batch and the
// literal, recorded at `code`, with every size traced symbolically.
std::string TokensModel(int64_t tokens, const std::string& code) {
  ONNX_NAMESPACE::ModelProto m =
      ModelWithRanges("{s77: VR[0, int_oo], s27: VR[0, int_oo], s53: VR[0, int_oo]}");
  auto* g = m.mutable_graph();
  AddInts(g, "val_8", {tokens});
  AddOp(g, "Shape", {"x"}, "b", "end", 1);
  AddOp(g, "Concat", {"b", "val_8"}, "target", "axis", 0);
  RecordStack(AddOp(g, "Reshape", {"x", "target"}, "y"),
              "File \"net.py\", line 3, in forward\n    " + code);
  g->add_output()->set_name("y");
  return m.SerializeAsString();
}

TEST_CASE("a restriction over traced sizes at a line that takes int() of a value is blamed",
          "[lint]") {
  // b, h, w = x.shape; x.reshape(b, int(h * w)) exported at 8 x 10 with Dim.DYNAMIC: the
  // ranges stay free (torch guards s27*s53 == 80, no one range), the target holds 80
  // (tests/corpus/unseen/nonlocal_reshape_int.dynamo, where ONNX Runtime fails at 9 x 7 and
  // eager runs). By hand: the Reshape needs s27*s53 == 80, at 9 x 7 it fails, and the line
  // wrote the number: an error on the target, not the module's design.
  auto model = ir::LoadModelFromBytes(TokensModel(80, "t = x.reshape(b, int(h * w))"), "m.onnx");
  REQUIRE(model.ok());
  auto findings = Lint(**model, {});
  REQUIRE(findings.ok());
  bool error = false;
  for (const Finding& f : *findings) {
    CHECK(f.rule != "SL010");
    error |= f.severity == Severity::kError && f.rule == "SL002";
  }
  CHECK(error);
}

TEST_CASE("a restriction over traced sizes at a line without int() of a value is the module's",
          "[lint]") {
  // The line writes the 80, or takes int() of the module's own attribute: the ranges vouch that
  // no size of the example reached the graph, the 80 is the module's (a note).
  for (const char* code : {"t = x.reshape(b, 80)", "t = x.reshape(b, int(self.tokens))"}) {
    INFO(code);
    auto model = ir::LoadModelFromBytes(TokensModel(80, code), "m.onnx");
    REQUIRE(model.ok());
    auto findings = Lint(**model, {});
    REQUIRE(findings.ok());
    REQUIRE(findings->size() == 1);
    CHECK(findings->front().rule == "SL010");
    CHECK(findings->front().severity == Severity::kNote);
  }
}

TEST_CASE("a restriction restated below a recorded line's is not read as the module's design",
          "[lint]") {
  // transformers' ViT through torch.export: the position table is added where the stack asks to
  // resample (SL004's warning: the module resamples in a branch the trace did not take), and a
  // view of the sum restates the same grid with every size traced symbolically. By hand: the
  // view needs s77*5*s53 == s77*s27*s53, the Add's s27 == 5 again; SL010's design reading of
  // it would say eager PyTorch fails past 5 too, the opposite of SL004's.
  ONNX_NAMESPACE::ModelProto m =
      ModelWithRanges("{s77: VR[0, int_oo], s27: VR[0, int_oo], s53: VR[0, int_oo]}");
  auto* g = m.mutable_graph();
  auto* table = g->add_initializer();
  table->set_name("embeddings.position_embeddings");
  table->set_data_type(ONNX_NAMESPACE::TensorProto::FLOAT);
  for (int64_t d : {1, 5, 1}) table->add_dims(d);
  for (int i = 0; i < 5; ++i) table->add_float_data(0.5F);
  RecordStack(AddOp(g, "Add", {"x", "embeddings.position_embeddings"}, "y"),
              "File \"vit.py\", line 122, in forward\n    embeddings = embeddings + "
              "self.interpolate_pos_encoding(embeddings, height, width)");
  AddOp(g, "Shape", {"x"}, "dims");
  RecordStack(AddOp(g, "Reshape", {"y", "dims"}, "z"),
              "File \"vit.py\", line 130, in forward\n    hidden = embeddings.view(b, t, d)");
  g->add_output()->set_name("z");
  auto model = ir::LoadModelFromBytes(m.SerializeAsString(), "vit.onnx");
  REQUIRE(model.ok());
  auto findings = Lint(**model, {});
  REQUIRE(findings.ok());
  REQUIRE_FALSE(findings->empty());
  CHECK(findings->front().rule == "SL004");
  CHECK(findings->front().severity == Severity::kWarning);
  // What stays of the view is the relation at sizes the Add broadcasts (T = 1, a note that
  // eager may share it or not), not the module's size.
  for (const Finding& f : *findings) {
    INFO(f.message);
    CHECK_FALSE(absl::StrContains(f.message, "restricted by a size of the model's own"));
  }
}

TEST_CASE("a restriction a bake's counterexample breaks is that bake's, not the module's",
          "[lint]") {
  // F.adaptive_avg_pool2d(x, 2) then Linear(16, 5), exported by torch.export at 8 x 10 with
  // Dim.DYNAMIC (tests/corpus/classes/aap2d_feat_head.dynamo): the pool decomposed at the
  // example into AveragePool(kernel 4 x 5), the ranges free. By hand: the Gemm needs
  // 4 * floor(H / 4) * floor(W / 5) == 16, at H = 12 it sees 24 features; SL001 reports the
  // pool with that failure. Eager's adaptive pool gives 2 x 2 at every size: SL010's note that
  // the 16 is the module's own and eager fails past it too would contradict the error.
  ONNX_NAMESPACE::ModelProto m;
  m.set_ir_version(10);
  m.add_opset_import()->set_version(18);
  auto* p = m.add_metadata_props();
  p->set_key("pkg.torch.export.ExportedProgram.range_constraints");
  p->set_value("{s77: VR[0, int_oo], s53: VR[0, int_oo], s0: VR[0, int_oo]}");
  auto* g = m.mutable_graph();
  auto* x = g->add_input();
  x->set_name("x");
  auto* tt = x->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(ONNX_NAMESPACE::TensorProto::FLOAT);
  tt->mutable_shape()->add_dim()->set_dim_param("s77");
  tt->mutable_shape()->add_dim()->set_dim_value(4);
  tt->mutable_shape()->add_dim()->set_dim_param("s53");
  tt->mutable_shape()->add_dim()->set_dim_param("s0");
  auto* w = g->add_initializer();
  w->set_name("inner.fc.weight");
  w->set_data_type(ONNX_NAMESPACE::TensorProto::FLOAT);
  w->add_dims(5);
  w->add_dims(16);
  w->mutable_float_data()->Resize(80, 0.25F);
  auto* pool = AddOp(g, "AveragePool", {"x"}, "pooled");
  for (const char* name : {"kernel_shape", "strides"}) {
    auto* a = pool->add_attribute();
    a->set_name(name);
    a->set_type(ONNX_NAMESPACE::AttributeProto::INTS);
    a->add_ints(4);
    a->add_ints(5);
  }
  RecordNodeMetadata(pool, "pkg.torch.onnx.class_hierarchy",
                     "['export_torch2.Positional', 'aten._adaptive_avg_pool2d.default', "
                     "'aten.avg_pool2d.default']");
  RecordStack(pool,
              "File \"net.py\", line 2, in forward\n    return "
              "self.fc(F.adaptive_avg_pool2d(self.conv(x), 2).flatten(1))");
  AddOp(g, "Flatten", {"pooled"}, "f", "axis", 1);
  auto* gemm = AddOp(g, "Gemm", {"f", "inner.fc.weight"}, "y", "transB", 1);
  RecordStack(gemm,
              "File \"net.py\", line 2, in forward\n    return "
              "self.fc(F.adaptive_avg_pool2d(self.conv(x), 2).flatten(1))");
  g->add_output()->set_name("y");
  auto model = ir::LoadModelFromBytes(m.SerializeAsString(), "head.onnx");
  REQUIRE(model.ok());
  auto findings = Lint(**model, {});
  REQUIRE(findings.ok());
  bool pool_error = false;
  for (const Finding& f : *findings) {
    INFO(f.rule << ": " << f.message);
    pool_error |= f.rule == "SL001" && f.severity == Severity::kError;
    CHECK_FALSE(absl::StrContains(f.message, "restricted by a size of the model's own"));
  }
  CHECK(pool_error);
}

}  // namespace
}  // namespace shapelint::lint
