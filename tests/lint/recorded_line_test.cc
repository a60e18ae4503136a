// The exporter's record of a node's line, as evidence: SL007 on a literal in a size's place,
// whatever arithmetic gave it, where torch.export specialized the dim's symbol and the node's
// recorded PyTorch line takes int() of a size (lint/provenance.h TakesIntOfSize); SL004 on a
// position table whose line calls a resampler that the graph does not have; SL010 on a count the
// line writes (the module's) or does not (perhaps the example's); SL002 on a target whose
// literal factors the line writes (the module's heads), and on a view whose literal
// torch.export's record makes the exporter's.
#include <algorithm>
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/unknown_field_set.h"
#include "lint/provenance.h"
#include "onnx/onnx_pb.h"
#include "recorded_model.h"
#include "shapelint/ir/load.h"
#include "shapelint/lint/lint.h"
#include "shapelint/lint/probe.h"

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

TEST_CASE("a recorded line that reads a size, and one that slices", "[lint]") {
  CHECK(ReadsSize("return F.pad(x, (0, n - x.size(-1)))"));
  CHECK(ReadsSize("b, c, h, w = x.shape"));
  CHECK(ReadsSize("n = len(priorities)"));
  CHECK(ReadsSize("k = max(len(x) // 4, 1)"));
  // A module's call, a name ending in len, nothing.
  CHECK_FALSE(ReadsSize("x = x + self.drop_path1(self._attn(self.norm1(x)))"));
  CHECK_FALSE(ReadsSize("y = self.max_len(x) + self.len(x)"));
  CHECK_FALSE(ReadsSize(""));
  CHECK(WritesSlice("clip = x[:, :, ::step][:, :, :4]"));
  CHECK(WritesSlice("y = x.narrow(2, 0, n)"));
  // An index, a dict with a colon, a call.
  CHECK_FALSE(WritesSlice("h = h0[0]"));
  CHECK_FALSE(WritesSlice("d = {'a': x}"));
  CHECK_FALSE(WritesSlice("return self.conv(x)"));
}

TEST_CASE("a recorded line that takes int() of one axis, and one that writes a 1", "[lint]") {
  // Axis 0 of a rank-3 input, as 0 or -3, through size() or shape[].
  CHECK(TakesIntOfAxis("return x.view(int(x.size(0)), -1)", 0, 3));
  CHECK(TakesIntOfAxis("b = int(h.shape[-3]) * 2", 0, 3));
  CHECK_FALSE(TakesIntOfAxis("return x.view(int(x.size(1)), -1)", 0, 3));
  CHECK_FALSE(TakesIntOfAxis("return x.view(x.size(0), -1)", 0, 3));       // no int()
  CHECK_FALSE(TakesIntOfAxis("return x.view(int(x.size(0)), -1)", 3, 3));  // no such axis
  // The -1 of a view and the axes of size()/shape[] are no 1 of the line's; a 1 of its own is.
  CHECK_FALSE(WritesOne("return x.view(int(x.size(0)), -1)"));
  CHECK_FALSE(WritesOne("return x.view(int(x.size(1)), -1, int(x.shape[1]))"));
  CHECK(WritesOne("return x.reshape(1, -1)"));
  CHECK(WritesOne("return torch.ones(int(x.size(0)), 1, 8)"));
  CHECK(WritesOne("return x[-1:].expand(int(x.size(0)), -1)[:, 1]"));
}

// x[s77, s27, s53] -> TopK(x, k) on the last axis, recorded at `code`; `ranges` is torch.export's
// range record (empty: none).
std::string TopKModel(int64_t k, const std::string& code, const std::string& ranges) {
  ONNX_NAMESPACE::ModelProto m = ModelWithRanges(ranges);
  auto* g = m.mutable_graph();
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
  RecordStack(n, "File \"net.py\", line 2, in forward\n    " + code);
  g->add_output()->set_name("y");
  return m.SerializeAsString();
}

std::vector<Finding> Sl007(const std::string& bytes) { return FindingsOf(bytes, "SL007"); }

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

TEST_CASE("SL007: a recorded line without int(), or a 1, says nothing of k", "[lint]") {
  // torch.topk(x, 6): the module's own k on a dim specialized elsewhere (SL011 says that).
  CHECK(Sl007(TopKModel(6, "return torch.topk(x, 6, dim=-1)[0]", kSpecialized)).empty());
  // The record and the line, but k = 1: no size needs to explain a 1.
  CHECK(Sl007(TopKModel(1, "return torch.topk(x, int(x.size(-1)) - 7, dim=-1)[0]", kSpecialized))
            .empty());
}

std::string ViewModel(const std::vector<int64_t>& head, int64_t keep_from, int64_t keep_to,
                      const std::vector<int64_t>& tail, const std::string& code);

// torch.export keeps int() of float arithmetic on a size without a specialization
// (int(heat.size(1) * 0.25) leaves VR[0, int_oo]); a record without ranges gives none either.
constexpr char kFree[] = "{s77: VR[0, int_oo], s27: VR[0, int_oo], s53: VR[0, int_oo]}";

TEST_CASE("SL007: a recorded int() line with no specialization is a hypothesis", "[lint]") {
  // heat.topk(int(heat.size(-1) * 0.75)) exported at D = 8: k = 6 and nothing records D. By
  // hand: the line says the trace computed k from the size, but not from which size: moving the
  // sizes from anywhere but the export sizes could land on them, where eager computes 6 as
  // well, so no counterexample: a warning.
  for (const char* ranges : {kFree, ""}) {
    const auto findings =
        Sl007(TopKModel(6, "return torch.topk(x, int(x.size(-1) * 0.75), dim=-1)[0]", ranges));
    REQUIRE(findings.size() == 1);
    CHECK(findings[0].severity == Severity::kWarning);
    CHECK(findings[0].evidence == Evidence::kHypothesis);
    CHECK(absl::StrContains(findings[0].message,
                            "TopK k 6 in the place of s53, on a recorded line that takes int() "
                            "of a size"));
    CHECK_FALSE(findings[0].counterexample);
  }
  // A Reshape target's number could stand for any of the input's dims: which one the line
  // computed, the record does not say.
  CHECK(Sl007(ViewModel({2}, 1, 2, {-1}, "return x.view(int(x.size(0) * 1.0), x.size(1), -1)"))
            .empty());
  // The line writes the 6 itself, or gives a 1: nothing to say.
  CHECK(Sl007(TopKModel(6, "return torch.topk(x, min(6, int(x.size(-1))), dim=-1)[0]", kFree))
            .empty());
  CHECK(
      Sl007(TopKModel(1, "return torch.topk(x, int(x.size(-1) * 0.1), dim=-1)[0]", kFree)).empty());
}

// The export sizes x = 2 x 4 x 8, as --export-dims gives them.
LintOptions ToldAt8() {
  LintOptions options;
  auto spec = ParseSizes("x=2x4x8", kExportSizes);
  REQUIRE(spec.ok());
  options.export_dims = *std::move(spec);
  return options;
}

TEST_CASE("SL007: told the export sizes, a recorded int() line's literal that stays is an error",
          "[lint]") {
  // heat.topk(int(heat.size(-1) * 0.75)) exported at D = 8 (k = 6), told x = 2 x 4 x 8. By hand:
  // at D = 16 ONNX's TopK still takes 6 where the line computes int(16 * 0.75) = 12; the
  // exporter's record of the line (int() of a size, the 6 not written) with the export size to
  // move from: an error whose counterexample states only what ONNX does, the literal staying.
  for (const char* ranges : {kFree, ""}) {
    const auto findings =
        FindingsOf(TopKModel(6, "return torch.topk(x, int(x.size(-1) * 0.75), dim=-1)[0]", ranges),
                   "SL007", ToldAt8());
    REQUIRE(findings.size() == 1);
    CHECK(findings[0].severity == Severity::kError);
    CHECK(findings[0].evidence == Evidence::kExporterRecord);
    REQUIRE(findings[0].counterexample);
    CHECK_FALSE(findings[0].counterexample->node_fails);
    CHECK(findings[0].counterexample->inputs ==
          std::vector<std::pair<std::string, std::vector<int64_t>>>{{"x", {2, 4, 16}}});
    CHECK(
        absl::StrContains(findings[0].counterexample->failure, "here s53 is 16 and k is still 6"));
  }
  // int(x.size(-1) * 0.5) gives 4 = D // 2 at D = 8, a derivation of SL007's own: the record of
  // the line makes it an error too, the counterexample stating what the derivation gives.
  const auto half =
      FindingsOf(TopKModel(4, "return torch.topk(x, int(x.size(-1) * 0.5), dim=-1)[0]", kFree),
                 "SL007", ToldAt8());
  REQUIRE(half.size() == 1);
  CHECK(half[0].severity == Severity::kError);
  REQUIRE(half[0].counterexample);
  // Lookalikes told the same sizes: the line writes the 6 (the module's own count), or takes
  // no int() (nothing says the trace computed it): no error.
  for (const char* code : {"return torch.topk(x, min(6, int(x.size(-1))), dim=-1)[0]",
                           "return torch.topk(x, 6, dim=-1)[0]"}) {
    for (const Finding& f : FindingsOf(TopKModel(6, code, kFree), "SL007", ToldAt8())) {
      CHECK(f.severity != Severity::kError);
    }
  }
}

TEST_CASE("SL010: a count the recorded line writes is the module's; one it does not may be baked",
          "[lint]") {
  // TopK(k = 3) on the last axis, no range record: the graph fails below s53 = 3. By hand: at
  // s53 = 2 ONNX Runtime refuses k = 3 > 2 in both models. The first line writes 3
  // (torch.topk(x, 3)): the module's own count, which eager shares, a note. The second computes
  // k where the graph keeps a number (topk(x, min(self.k, n)) traced with n >= 3 keeps 3 and
  // eager takes 2 at n = 2): a limit that may be the source's own, a warning (docs/severity.md).
  const auto own = FindingsOf(TopKModel(3, "return torch.topk(x, 3, dim=-1)[0]", ""), "SL010");
  REQUIRE(own.size() == 1);
  CHECK(own[0].severity == Severity::kNote);
  CHECK(absl::StrContains(own[0].message, "s53 works only from 3 on"));
  const auto computed = FindingsOf(
      TopKModel(3, "return torch.topk(x, min(self.k, x.size(-1)), dim=-1)[0]", ""), "SL010");
  REQUIRE(computed.size() == 1);
  CHECK(computed[0].severity == Severity::kWarning);
  CHECK(computed[0].evidence == Evidence::kHypothesis);
  REQUIRE(computed[0].counterexample);
  CHECK(absl::StrContains(computed[0].counterexample->failure, "it must be at least 3"));
  // A number on the line that is not k (the axis, 2 of a 3-D input) is no record of k.
  const auto axis = FindingsOf(TopKModel(3, "return torch.topk(x, self.k, dim=2)[0]", ""), "SL010");
  REQUIRE(axis.size() == 1);
  CHECK(axis[0].severity == Severity::kWarning);
}

// x[s77, s27, s53] -> Reshape(x, Concat(head, Shape(x)[keep_from:keep_to], tail)), recorded at
// `code`: the dynamo exporter's view of a size tuple and literals.
std::string ViewModel(const std::vector<int64_t>& head, int64_t keep_from, int64_t keep_to,
                      const std::vector<int64_t>& tail, const std::string& code) {
  ONNX_NAMESPACE::ModelProto m = ModelWithRanges("");
  auto* g = m.mutable_graph();
  auto add_ints = [&](const std::string& name, const std::vector<int64_t>& values) {
    auto* t = g->add_initializer();
    t->set_name(name);
    t->set_data_type(ONNX_NAMESPACE::TensorProto::INT64);
    t->add_dims(static_cast<int64_t>(values.size()));
    for (int64_t v : values) t->add_int64_data(v);
  };
  auto add_node = [&](const std::string& op, const std::vector<std::string>& ins,
                      const std::string& out) {
    auto* n = g->add_node();
    n->set_op_type(op);
    n->set_name("node_" + out);
    for (const std::string& i : ins) n->add_input(i);
    n->add_output(out);
    return n;
  };
  add_ints("from", {keep_from});
  add_ints("to", {keep_to});
  add_node("Shape", {"x"}, "shape");
  add_node("Slice", {"shape", "from", "to"}, "kept");
  std::vector<std::string> parts;
  if (!head.empty()) {
    add_ints("head", head);
    parts.push_back("head");
  }
  parts.push_back("kept");
  if (!tail.empty()) {
    add_ints("tail", tail);
    parts.push_back("tail");
  }
  auto* concat = add_node("Concat", parts, "target");
  auto* axis = concat->add_attribute();
  axis->set_name("axis");
  axis->set_type(ONNX_NAMESPACE::AttributeProto::INT);
  axis->set_i(0);
  RecordStack(add_node("Reshape", {"x", "target"}, "view"),
              "File \"net.py\", line 2, in forward\n    " + code);
  g->add_output()->set_name("view");
  return m.SerializeAsString();
}

TEST_CASE("SL002: literals the recorded line writes as factors of a split are the module's",
          "[lint]") {
  // x.view(x.shape[:-1] + (2, 4)): the view needs s53 = 8 (2 heads of 4) in eager PyTorch too,
  // so the target holds the module's constants and the axis is dynamic only in its
  // declaration: design, a note. By hand: at s53 = 9 ONNX Runtime's Reshape of 2 * s27 * 9
  // elements to 2 * s27 * 8 fails, and so does eager's view.
  const auto heads =
      FindingsOf(ViewModel({}, 0, 2, {2, 4}, "return x.view(x.shape[:-1] + (2, 4))"), "SL002");
  REQUIRE(heads.size() == 1);
  CHECK(heads[0].severity == Severity::kNote);
  CHECK(heads[0].evidence == Evidence::kDesign);
  // The line computes the head size from the size: the 4 is the example's, an error.
  const auto computed = FindingsOf(
      ViewModel({}, 0, 2, {2, 4}, "return x.view(x.shape[:-1] + (2, int(x.size(-1)) // 2))"),
      "SL002");
  REQUIRE(computed.size() == 1);
  CHECK(computed[0].severity == Severity::kError);
  // A literal that stands for a dynamic dim alone is the example's size, whatever the line
  // writes: the 2 of view(2, s27, 2, 4) for a batch traced at 2 (H // 2 writes a 2 too).
  const auto batch = FindingsOf(
      ViewModel({2}, 1, 2, {2, 4}, "return x.view(b, x.size(1), 2, x.size(2) // 2)"), "SL002");
  REQUIRE(!batch.empty());
  CHECK(batch[0].severity == Severity::kError);
}

// x[s77, s27, s53] -> Reshape(x, [-1, 16]) -> Softmax -> y, with the dynamo exporter's value_info
// [s77, 16] on the view and `ranges` as torch.export's range record (empty: none).
std::string FlattenModel(const std::string& ranges) {
  ONNX_NAMESPACE::ModelProto m = ModelWithRanges(ranges);
  auto* g = m.mutable_graph();
  auto declare = [](ONNX_NAMESPACE::ValueInfoProto* v, const std::string& name,
                    const std::vector<std::string>& dims) {
    v->set_name(name);
    auto* t = v->mutable_type()->mutable_tensor_type();
    t->set_elem_type(ONNX_NAMESPACE::TensorProto::FLOAT);
    for (const std::string& d : dims) {
      if (d == "16") {
        t->mutable_shape()->add_dim()->set_dim_value(16);
      } else {
        t->mutable_shape()->add_dim()->set_dim_param(d);
      }
    }
  };
  auto* target = g->add_initializer();
  target->set_name("target");
  target->set_data_type(ONNX_NAMESPACE::TensorProto::INT64);
  target->add_dims(2);
  target->add_int64_data(-1);
  target->add_int64_data(16);
  auto* view = g->add_node();
  view->set_op_type("Reshape");
  view->set_name("view");
  view->add_input("x");
  view->add_input("target");
  view->add_output("v");
  auto* softmax = g->add_node();
  softmax->set_op_type("Softmax");
  softmax->add_input("v");
  softmax->add_output("y");
  declare(g->add_value_info(), "v", {"s77", "16"});
  g->add_output()->set_name("y");
  return m.SerializeAsString();
}

TEST_CASE("SL002: a view that fails itself where torch.export specialized the size is an error",
          "[lint]") {
  // x.reshape(x.size(0), x.shape[1:].numel()) traced at [2, 2, 8]: the target [-1, 16] and the
  // value_info [s77, 16] the exporter wrote. By hand: at s53 = 9 (2 * 2 * 9 = 36 elements per
  // batch of 2: 72, not a multiple of 16) ONNX Runtime's Reshape fails. Only the value_info pins
  // the batch (a hint); the record that torch.export specialized s27 and s53 makes the literal
  // 16 = s27 * s53 the exporter's, an error. Without the record: a hint.
  const auto recorded =
      FindingsOf(FlattenModel("{s77: VR[0, int_oo], s27: VR[2, 2], s53: VR[8, 8]}"), "SL002");
  REQUIRE(recorded.size() == 1);
  CHECK(recorded[0].severity == Severity::kError);
  CHECK(recorded[0].evidence == Evidence::kExporterRecord);
  REQUIRE(recorded[0].counterexample);
  CHECK(recorded[0].counterexample->node_fails);
  const auto unrecorded = FindingsOf(FlattenModel(""), "SL002");
  for (const Finding& f : unrecorded) CHECK(f.severity != Severity::kError);
}

// x.view(int(x.size(0)), -1) exported by torch.export at batch 2: the target [2, -1] on a
// node whose line takes int() of the batch, which the record specialized to 2.
std::string BatchViewModel() {
  ONNX_NAMESPACE::ModelProto m =
      ModelWithRanges("{s77: VR[2, 2], s27: VR[0, int_oo], s53: VR[0, int_oo]}");
  auto* g = m.mutable_graph();
  auto* target = g->add_initializer();
  target->set_name("target");
  target->set_data_type(ONNX_NAMESPACE::TensorProto::INT64);
  target->add_dims(2);
  target->add_int64_data(2);
  target->add_int64_data(-1);
  auto* view = g->add_node();
  view->set_op_type("Reshape");
  view->set_name("node_view");
  view->add_input("x");
  view->add_input("target");
  view->add_output("y");
  RecordStack(view, "File \"net.py\", line 2, in forward\n    return x.view(int(x.size(0)), -1)");
  g->add_output()->set_name("y");
  return m.SerializeAsString();
}

TEST_CASE("SL007 leaves a node to SL002 when SL002 runs and reports it", "[lint]") {
  // By hand: at s77 = 3 the view still gives 2 rows, mixing the batch; SL002 says so of the
  // target's literal batch, and SL007 would say it again of the same 2 on the same node.
  auto model = ir::LoadModelFromBytes(BatchViewModel(), "model.onnx");
  REQUIRE(model.ok());
  auto all = Lint(**model, {});
  REQUIRE(all.ok());
  std::vector<std::string> rules;
  for (const Finding& f : *all) rules.push_back(f.rule);
  CHECK(std::count(rules.begin(), rules.end(), "SL002") == 1);
  CHECK(std::count(rules.begin(), rules.end(), "SL007") == 0);
  // Selected alone, SL007 reports the literal itself.
  LintOptions only;
  only.select = std::vector<std::string>{"SL007"};
  auto alone = Lint(**model, only);
  REQUIRE(alone.ok());
  REQUIRE(alone->size() == 1);
  CHECK((*alone)[0].rule == "SL007");
  CHECK((*alone)[0].severity == Severity::kError);
}

TEST_CASE("a recorded line that takes int() of a value of forward's", "[lint]") {
  CHECK(TakesIntOfValue("t = x.permute(0, 2, 3, 1).reshape(b, int(h * w), c)"));
  CHECK(TakesIntOfValue("return x.view(int(x.size(0)), -1)"));
  CHECK(TakesIntOfValue("k = int(x.shape[2] * 1.5)"));
  CHECK(TakesIntOfValue("g = int(math.sqrt(n))"));
  CHECK(TakesIntOfValue("g = int(float(n) ** 0.5)"));
  // The module's own attributes, numbers, library functions of them, or no int() call.
  CHECK_FALSE(TakesIntOfValue("return torch.topk(x, int(self.k), dim=-1)[0]"));
  CHECK_FALSE(TakesIntOfValue("d = int(self.dim * 0.5) + int(4)"));
  CHECK_FALSE(TakesIntOfValue("g = int(math.sqrt(self.num_patches))"));
  CHECK_FALSE(TakesIntOfValue("print(h * w); y = self.to_int(x)"));
  CHECK_FALSE(TakesIntOfValue(""));
}

TEST_CASE("reading a recorded line's int() calls is linear in the line", "[lint][hostile]") {
  // A million nested int( calls, never closed, and as many closed ones side by side: each
  // call's argument was scanned to its end once per call, 10^12 steps.
  std::string nested;
  for (int i = 0; i < 1000000; ++i) nested += "int(";
  CHECK_FALSE(TakesIntOfSize(nested));
  CHECK_FALSE(TakesIntOfValue(nested));
  std::string flat;
  for (int i = 0; i < 1000000; ++i) flat += "int(4)+";
  CHECK_FALSE(TakesIntOfSize(flat));
  CHECK_FALSE(TakesIntOfValue(flat));
  CHECK(TakesIntOfValue(flat + "int(h * w)"));
}

TEST_CASE("a recorded line that writes a number", "[lint]") {
  CHECK(WritesNumber("x1, x2 = x[..., :4], x[..., 4:]", 4));
  CHECK(WritesNumber("return torch.topk(x, 4, dim=-1)[0]", 4));
  CHECK(WritesNumber("return x[:, -5:]", -5));
  CHECK(WritesNumber("return x.view(2, -1)", 2));
  // Part of a float, a name, a longer number, or not there at all.
  CHECK_FALSE(WritesNumber("x[:, :int(x.shape[1] * 0.5)]", 5));
  CHECK_FALSE(WritesNumber("x[:, :int(x.shape[1] * 0.5)]", 10));
  CHECK_FALSE(WritesNumber("return self.conv4(x4)", 4));
  CHECK_FALSE(WritesNumber("return x[:, :14]", 4));
  CHECK_FALSE(WritesNumber("return x[:, :41]", 4));
  CHECK_FALSE(WritesNumber("return x * 1e4", 4));
  CHECK_FALSE(WritesNumber("", 4));
  // The axes of a permutation are no sizes: Flux's packing writes 2, not the 4 and 5 the trace
  // computed from int(H) // 2 and int(W) // 2, which the permutation only names as axes.
  const std::string pack = "tok = x.view(b, c, h, 2, w, 2).permute(0, 2, 4, 1, 3, 5)";
  CHECK(WritesNumber(pack, 2));
  CHECK_FALSE(WritesNumber(pack, 4));
  CHECK_FALSE(WritesNumber(pack, 5));
  CHECK_FALSE(WritesNumber("x.transpose(1, 3).movedim(2, -1).swapaxes(0, 4)", 3));
  // Past the permutation's parentheses the line writes numbers again.
  CHECK(WritesNumber("x.permute(0, 2, 1).reshape(b, 4, -1)", 4));
  CHECK(WritesNumber("x.permute(*self.order(3))", 3));
}

TEST_CASE("SL007: a literal its recorded line writes is the module's own", "[lint]") {
  // k = 4 = s53 // 2 at the specialized s53 = 8. By hand: computed with int() on the line, the
  // trace wrote the example's half, and at s53 = 3 ONNX Runtime's TopK of 4 fails where eager
  // takes 1: an error. Written as 4 on the line, eager fails there too: the module's k, no
  // example size (SL011 speaks of the specialization).
  const auto computed =
      Sl007(TopKModel(4, "return torch.topk(x, int(x.size(-1)) // 2, dim=-1)[0]", kSpecialized));
  REQUIRE(computed.size() == 1);
  CHECK(computed[0].severity == Severity::kError);
  CHECK(absl::StrContains(computed[0].message, "TopK k 4 = s53 // 2 with s53 = 8"));
  CHECK(Sl007(TopKModel(4, "return torch.topk(x, 4, dim=-1)[0]", kSpecialized)).empty());
}

// tokens[B, T, 8] + table[1, 5, 8], the Add recorded with the stack `frames` (outermost first,
// the i-th at line 100 + i of model.py); with `resize_frames`, a Resize of another input
// recorded with that stack (its output unused): frames alike in place and text are one frame.
std::string TableModel(const std::vector<std::string>& frames,
                       const std::vector<std::string>& resize_frames) {
  ONNX_NAMESPACE::ModelProto m = ModelWithRanges("");
  auto* g = m.mutable_graph();
  auto add_input = [&](const char* name, std::vector<std::string> dims) {
    auto* v = g->add_input();
    v->set_name(name);
    auto* tt = v->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(ONNX_NAMESPACE::TensorProto::FLOAT);
    for (const auto& d : dims) {
      if (d == "8") {
        tt->mutable_shape()->add_dim()->set_dim_value(8);
      } else {
        tt->mutable_shape()->add_dim()->set_dim_param(d);
      }
    }
  };
  add_input("tokens", {"B", "T", "8"});
  auto* table = g->add_initializer();
  table->set_name("embeddings.position_embeddings");
  table->set_data_type(ONNX_NAMESPACE::TensorProto::FLOAT);
  for (int64_t d : {1, 5, 8}) table->add_dims(d);
  for (int i = 0; i < 40; ++i) table->add_float_data(0.0F);
  auto record = [](ONNX_NAMESPACE::NodeProto* n, const std::vector<std::string>& lines) {
    std::string stack;
    for (size_t i = 0; i < lines.size(); ++i) {
      absl::StrAppend(&stack, "File \"model.py\", line ", 100 + i, ", in forward\n    ", lines[i],
                      "\n");
    }
    RecordStack(n, stack);
  };
  auto* add = g->add_node();
  add->set_op_type("Add");
  add->add_input("tokens");
  add->add_input("embeddings.position_embeddings");
  add->add_output("y");
  record(add, frames);
  if (!resize_frames.empty()) {
    add_input("image", {"B", "3", "H", "W"});
    auto* sizes = g->add_initializer();
    sizes->set_name("sizes");
    sizes->set_data_type(ONNX_NAMESPACE::TensorProto::INT64);
    sizes->add_dims(4);
    for (int64_t v : {1, 3, 6, 6}) sizes->add_int64_data(v);
    auto* resize = g->add_node();
    resize->set_op_type("Resize");
    resize->add_input("image");
    resize->add_input("");
    resize->add_input("");
    resize->add_input("sizes");
    resize->add_output("resized");
    record(resize, resize_frames);
    g->add_output()->set_name("resized");
  }
  g->add_output()->set_name("y");
  return m.SerializeAsString();
}

std::vector<Finding> Sl004(const std::string& bytes) { return FindingsOf(bytes, "SL004"); }

TEST_CASE("SL004: a table on a stack that asks to resample, where the graph does not, warns",
          "[lint]") {
  // transformers' ViT through torch.export with interpolate_pos_encoding=True: the shortcut for
  // an unchanged grid is taken at the export size, and the graph adds the 5-row table as it is.
  // By hand: T must be 5 (or 1); the line calls interpolate_pos_encoding, and no Resize of the
  // graph was recorded there.
  const auto warned = Sl004(TableModel(
      {"embeddings = embeddings + self.interpolate_pos_encoding(embeddings, height, width)"}, {}));
  REQUIRE(warned.size() == 1);
  CHECK(warned[0].severity == Severity::kWarning);
  CHECK(warned[0].evidence == Evidence::kHypothesis);
  REQUIRE_FALSE(warned[0].notes.empty());
  CHECK(absl::StrContains(warned[0].notes.back().message,
                          "recorded 'self.interpolate_pos_encoding' on this node's stack"));
  // DeiT: the table is added on a line of its own, below the branch that would resample it;
  // the user's call, outer on the stack, set the flag. By hand: the same 5-row table, and no
  // Resize anywhere under that call.
  const auto flagged = Sl004(TableModel(
      {"return self.model(pixel_values=x, interpolate_pos_encoding=True).last_hidden_state",
       "embeddings = embeddings + position_embedding"},
      {}));
  REQUIRE(flagged.size() == 1);
  CHECK(flagged[0].severity == Severity::kWarning);
  CHECK(absl::StrContains(flagged[0].notes.back().message,
                          "recorded 'interpolate_pos_encoding' on this node's stack"));
  // Lookalikes, a design note each: the table added as it is; a resampler named but not called
  // (passed on as a flag's variable, set to False, compared); a line whose resample the graph
  // has (a Resize recorded there); a flag set by a call under which the graph resamples.
  const std::vector<std::pair<std::vector<std::string>, std::vector<std::string>>> lookalikes = {
      {{"embeddings = embeddings + self.position_embeddings"}, {}},
      {{"embeddings = self.embed(x, interpolate_pos_encoding=interpolate_pos_encoding)"}, {}},
      {{"embeddings = self.embed(x, interpolate_pos_encoding = False)"}, {}},
      {{"if interpolate_pos_encoding == True: embeddings = embeddings + self.table"}, {}},
      {{"y = F.interpolate(image, size=(6, 6)) + tokens + self.position_embeddings"},
       {"y = F.interpolate(image, size=(6, 6)) + tokens + self.position_embeddings"}},
      {{"return self.model(x, interpolate_pos_encoding=True)", "y = tokens + self.table"},
       {"return self.model(x, interpolate_pos_encoding=True)", "t = F.interpolate(image, (6, 6))"}},
  };
  for (const auto& [frames, resize] : lookalikes) {
    const auto noted = Sl004(TableModel(frames, resize));
    INFO(frames.back());
    REQUIRE(noted.size() == 1);
    CHECK(noted[0].severity == Severity::kNote);
  }
}

}  // namespace
}  // namespace shapelint::lint
