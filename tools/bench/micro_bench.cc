// Google Benchmark for the hot paths under the whole-model numbers of tools/bench/bench:
// expression building (interning, process-wide and in a scope), evaluation, skimming weights out of
// a model, and inference and linting of a stack of attention blocks at growing depth (cost per
// layer should be flat). The hostile models of docs/limits.md whose work once grew faster than
// they did run at a size n and 2n: nested Loops, independent dims, a folded constant's record
// against a graph signature. Their bound is that 2n costs at most 2.5 times n.
//
//   cmake -S . -B build-bench -DCMAKE_BUILD_TYPE=Release -DSHAPELINT_BENCH=ON
//   cmake --build build-bench --target shapelint_micro_bench && build-bench/shapelint_micro_bench
#include <benchmark/benchmark.h>
#include <onnx/onnx_pb.h>

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "ir/skim.h"
#include "lint/pins.h"
#include "shapelint/infer/engine.h"
#include "shapelint/ir/load.h"
#include "shapelint/lint/lint.h"
#include "shapelint/lint/probe.h"
#include "shapelint/sym/expr.h"

namespace shapelint {
namespace {

// batch * (past + seq) * 4096 and floor((h - 3) / 2) + 1: the shapes a decoder and a CNN build.
void BuildShapes() {
  const sym::Expr batch = sym::Expr::Symbol("batch"), past = sym::Expr::Symbol("past");
  const sym::Expr seq = sym::Expr::Symbol("seq"), h = sym::Expr::Symbol("h");
  sym::MaybeExpr total = sym::Add(past, seq);
  sym::MaybeExpr elements = sym::Mul(sym::Mul(batch, total), sym::Expr::Constant(4096));
  sym::MaybeExpr pooled =
      sym::Add(sym::FloorDiv(sym::Sub(h, sym::Expr::Constant(3)), sym::Expr::Constant(2)),
               sym::Expr::Constant(1));
  benchmark::DoNotOptimize(elements);
  benchmark::DoNotOptimize(pooled);
}

void BM_ExprBuild(benchmark::State& state) {
  for (auto _ : state) BuildShapes();
}
BENCHMARK(BM_ExprBuild);

// The same inside one sym::InternScope (as in a lint run): found in the scope's table, no lock.
void BM_ExprBuildInScope(benchmark::State& state) {
  sym::InternScope scope;
  BM_ExprBuild(state);
}
BENCHMARK(BM_ExprBuildInScope);

// The same in a new scope each time: every node is created, looked up in the process-wide table
// first, and freed at the end.
void BM_ExprBuildNewScope(benchmark::State& state) {
  for (auto _ : state) {
    sym::InternScope scope;
    BuildShapes();
  }
}
BENCHMARK(BM_ExprBuildNewScope);

void BM_ExprEvaluate(benchmark::State& state) {
  const sym::Expr batch = sym::Expr::Symbol("batch"), past = sym::Expr::Symbol("past");
  const sym::Expr seq = sym::Expr::Symbol("seq");
  const sym::Expr e = *sym::Mul(sym::Mul(batch, *sym::Add(past, seq)), sym::Expr::Constant(64));
  sym::Binding at;
  at.Set("batch", 2);
  at.Set("past", 7);
  at.Set("seq", 3);
  for (auto _ : state) benchmark::DoNotOptimize(e.Evaluate(at));
}
BENCHMARK(BM_ExprEvaluate);

// A model of `layers` attention blocks with a KV cache, in ONNX text: a Shape-built head split,
// the past concatenated, scores plus an additive mask whose length is the input contract.
std::string AttentionStack(int layers) {
  std::string text =
      "<ir_version: 8, opset_import: [\"\" : 17]>\n"
      "g (float[B,S,512] x, float[B,8,P,64] past, float[B,T] mask) => (float[B,S,512] y)\n"
      "<int64[2] heads = {8, 64}, int64[2] ab = {0, 1}, int64[1] one = {1}, "
      "int64[1] two = {2}, int64[1] flat = {512}> {\n"
      "  m = Unsqueeze (mask, one)\n  m4 = Unsqueeze (m, two)\n  x0 = Identity (x)\n";
  for (int i = 0; i < layers; ++i) {
    const std::string in = absl::StrCat("x", i), out = absl::StrCat("x", i + 1);
    auto v = [&](const char* name) { return absl::StrCat(name, "_", i); };
    absl::StrAppend(&text, "  ", v("shape"), " = Shape (", in, ")\n");
    absl::StrAppend(&text, "  ", v("bs"), " = Gather (", v("shape"), ", ab)\n");
    absl::StrAppend(&text, "  ", v("target"), " = Concat <axis = 0> (", v("bs"), ", heads)\n");
    absl::StrAppend(&text, "  ", v("split"), " = Reshape (", in, ", ", v("target"), ")\n");
    absl::StrAppend(&text, "  ", v("q"), " = Transpose <perm = [0, 2, 1, 3]> (", v("split"), ")\n");
    absl::StrAppend(&text, "  ", v("k"), " = Concat <axis = 2> (past, ", v("q"), ")\n");
    absl::StrAppend(&text, "  ", v("kt"), " = Transpose <perm = [0, 1, 3, 2]> (", v("k"), ")\n");
    absl::StrAppend(&text, "  ", v("scores"), " = MatMul (", v("q"), ", ", v("kt"), ")\n");
    absl::StrAppend(&text, "  ", v("masked"), " = Add (", v("scores"), ", m4)\n");
    absl::StrAppend(&text, "  ", v("p"), " = Softmax <axis = -1> (", v("masked"), ")\n");
    absl::StrAppend(&text, "  ", v("ctx"), " = MatMul (", v("p"), ", ", v("k"), ")\n");
    absl::StrAppend(&text, "  ", v("merged"), " = Transpose <perm = [0, 2, 1, 3]> (", v("ctx"),
                    ")\n");
    absl::StrAppend(&text, "  ", v("keep"), " = Gather (", v("shape"), ", ab)\n");
    absl::StrAppend(&text, "  ", v("back"), " = Concat <axis = 0> (", v("keep"), ", flat)\n");
    absl::StrAppend(&text, "  ", out, " = Reshape (", v("merged"), ", ", v("back"), ")\n");
  }
  absl::StrAppend(&text, "  y = Identity (x", layers, ")\n}\n");
  return text;
}

// The stack of state.range(0) layers, or nullptr after reporting why it did not load.
std::unique_ptr<ir::Model> LoadStack(benchmark::State& state) {
  auto model = ir::LoadModelFromBytes(AttentionStack(static_cast<int>(state.range(0))), "stack",
                                      ir::ModelFormat::kText);
  if (!model.ok()) {
    state.SkipWithError(std::string(model.status().message()).c_str());
    return nullptr;
  }
  state.SetComplexityN(state.range(0));
  return *std::move(model);
}

void BM_InferAttentionStack(benchmark::State& state) {
  std::unique_ptr<ir::Model> model = LoadStack(state);
  if (model == nullptr) return;
  for (auto _ : state) benchmark::DoNotOptimize(infer::Infer(*model));
}
BENCHMARK(BM_InferAttentionStack)->RangeMultiplier(8)->Range(8, 512)->Complexity();

void BM_LintAttentionStack(benchmark::State& state) {
  std::unique_ptr<ir::Model> model = LoadStack(state);
  if (model == nullptr) return;
  for (auto _ : state) benchmark::DoNotOptimize(lint::Lint(*model));
}
BENCHMARK(BM_LintAttentionStack)->RangeMultiplier(8)->Range(8, 512)->Complexity();

// An adversarial chain of `steps` blocks, each growing its tensor by half of itself with sizes
// computed in the graph: v' = Slice(Concat(v, v), 0, Shape(v) + Shape(v) / 2). The dim nests one
// more floor per block until the expression caps (docs/limits.md) make it unknown; from then on
// every block is cheap. Cost must stay linear in the blocks.
std::string GrowingChain(int steps) {
  std::string text =
      "<ir_version: 8, opset_import: [\"\" : 17]>\n"
      "g (float[N] v0) => (float[?] y) <int64[1] two = {2}, int64[1] zero = {0}> {\n";
  for (int i = 0; i < steps; ++i) {
    const std::string v = absl::StrCat("v", i), next = absl::StrCat("v", i + 1);
    auto n = [&](const char* name) { return absl::StrCat(name, "_", i); };
    absl::StrAppend(&text, "  ", n("c"), " = Concat <axis = 0> (", v, ", ", v, ")\n");
    absl::StrAppend(&text, "  ", n("s"), " = Shape (", v, ")\n");
    absl::StrAppend(&text, "  ", n("h"), " = Div (", n("s"), ", two)\n");
    absl::StrAppend(&text, "  ", n("e"), " = Add (", n("s"), ", ", n("h"), ")\n");
    absl::StrAppend(&text, "  ", next, " = Slice (", n("c"), ", zero, ", n("e"), ")\n");
  }
  absl::StrAppend(&text, "  y = Identity (v", steps, ")\n}\n");
  return text;
}

// The chain of state.range(0) blocks, or nullptr after reporting why it did not load.
std::unique_ptr<ir::Model> LoadChain(benchmark::State& state) {
  auto model = ir::LoadModelFromBytes(GrowingChain(static_cast<int>(state.range(0))), "chain",
                                      ir::ModelFormat::kText);
  if (!model.ok()) {
    state.SkipWithError(std::string(model.status().message()).c_str());
    return nullptr;
  }
  state.SetComplexityN(state.range(0));
  return *std::move(model);
}

void BM_LintGrowingChain(benchmark::State& state) {
  std::unique_ptr<ir::Model> model = LoadChain(state);
  if (model == nullptr) return;
  for (auto _ : state) benchmark::DoNotOptimize(lint::Lint(*model));
}
// 20,000 blocks are 100,000 nodes.
BENCHMARK(BM_LintGrowingChain)
    ->Arg(200)
    ->Arg(2000)
    ->Arg(20000)
    ->Unit(benchmark::kMillisecond)
    ->Complexity();

// The steps at which the chain's sizes change as N moves from 64 (export()'s dynamic check asks
// for them once per export): every block's dim is a floor of N, each evaluated at up to 64 sizes
// each way. Beside BM_LintGrowingChain at the same sizes, the lint of the same file that export()
// runs first.
void BM_SizeStepsGrowingChain(benchmark::State& state) {
  std::unique_ptr<ir::Model> model = LoadChain(state);
  if (model == nullptr) return;
  const lint::ProbeSpec at{{{"N", 64}}, {}, {}, 0, 0};
  for (auto _ : state) benchmark::DoNotOptimize(lint::SizeStepsAt(*model, at));
}
BENCHMARK(BM_SizeStepsGrowingChain)
    ->Arg(200)
    ->Arg(2000)
    ->Arg(20000)
    ->Unit(benchmark::kMillisecond)
    ->Complexity();

// 64 MB of weights in 16 initializers: skimming reads their headers only.
void BM_SkimWeights(benchmark::State& state) {
  ONNX_NAMESPACE::ModelProto m;
  auto* g = m.mutable_graph();
  for (int i = 0; i < 16; ++i) {
    auto* t = g->add_initializer();
    t->set_name(absl::StrCat("w", i));
    t->set_data_type(ONNX_NAMESPACE::TensorProto::FLOAT);
    t->add_dims(1 << 20);
    t->set_raw_data(std::string(size_t{4} << 20, '\0'));
  }
  const std::string bytes = m.SerializeAsString();
  for (auto _ : state) benchmark::DoNotOptimize(ir::SkimTensorPayloads(bytes));
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(bytes.size()));
}
BENCHMARK(BM_SkimWeights);

// A Loop nest `depth` deep whose bodies keep the carried value's shape (Identity of the inner
// Loop's result): each level infers its body once. With `grow` (Concat of it with itself) each
// level needs a second run, and the subgraph work cap stops the doubling.
void FillLoopBody(ONNX_NAMESPACE::GraphProto* body, int level, bool grow) {
  using ONNX_NAMESPACE::TensorProto;
  const std::string l = absl::StrCat(level);
  auto add_value = [](auto* values, const std::string& name, int32_t type) {
    auto* v = values->Add();
    v->set_name(name);
    v->mutable_type()->mutable_tensor_type()->set_elem_type(type);
  };
  auto add_node = [body](const std::string& op, std::vector<std::string> in,
                         const std::string& out) {
    auto* n = body->add_node();
    n->set_op_type(op);
    for (const auto& i : in) n->add_input(i);
    n->add_output(out);
    return n;
  };
  body->set_name("body" + l);
  add_value(body->mutable_input(), "i" + l, TensorProto::INT64);
  add_value(body->mutable_input(), "c" + l, TensorProto::BOOL);
  add_value(body->mutable_input(), "v" + l, TensorProto::FLOAT);
  add_value(body->mutable_output(), "d" + l, TensorProto::BOOL);
  add_value(body->mutable_output(), "o" + l, TensorProto::FLOAT);
  add_node("Identity", {"c" + l}, "d" + l);
  if (level == 0) {
    add_node("Relu", {"v" + l}, "o" + l);
    return;
  }
  auto* a = add_node("Loop", {"m", "", "v" + l}, "w" + l)->add_attribute();
  a->set_name("body");
  a->set_type(ONNX_NAMESPACE::AttributeProto::GRAPH);
  FillLoopBody(a->mutable_g(), level - 1, grow);
  if (!grow) {
    add_node("Identity", {"w" + l}, "o" + l);
    return;
  }
  auto* axis = add_node("Concat", {"w" + l, "w" + l}, "o" + l)->add_attribute();
  axis->set_name("axis");
  axis->set_type(ONNX_NAMESPACE::AttributeProto::INT);
  axis->set_i(0);
}

std::string NestedLoops(int depth, bool grow) {
  ONNX_NAMESPACE::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(17);
  auto* g = m.mutable_graph();
  g->set_name("main");
  auto* x = g->add_input();
  x->set_name("x");
  x->mutable_type()->mutable_tensor_type()->set_elem_type(ONNX_NAMESPACE::TensorProto::FLOAT);
  x->mutable_type()->mutable_tensor_type()->mutable_shape()->add_dim()->set_dim_param("N");
  auto* trips = g->add_input();
  trips->set_name("m");
  trips->mutable_type()->mutable_tensor_type()->set_elem_type(ONNX_NAMESPACE::TensorProto::INT64);
  g->add_output()->set_name("y");
  auto* loop = g->add_node();
  loop->set_op_type("Loop");
  for (const char* in : {"m", "", "x"}) loop->add_input(in);
  loop->add_output("y");
  auto* a = loop->add_attribute();
  a->set_name("body");
  a->set_type(ONNX_NAMESPACE::AttributeProto::GRAPH);
  FillLoopBody(a->mutable_g(), depth - 1, grow);
  return m.SerializeAsString();
}

// Inference of a nest of state.range(0) Loops (at most 64: the nesting cap).
void InferNestedLoops(benchmark::State& state, bool grow) {
  const int depth = static_cast<int>(state.range(0));
  auto model = ir::LoadModelFromBytes(NestedLoops(depth, grow), "loops.onnx");
  if (!model.ok()) {
    state.SkipWithError(std::string(model.status().message()).c_str());
    return;
  }
  state.SetComplexityN(depth);
  for (auto _ : state) {
    sym::InternScope scope;
    benchmark::DoNotOptimize(infer::Infer(**model));
  }
}
void BM_InferNestedLoops(benchmark::State& state) { InferNestedLoops(state, false); }
BENCHMARK(BM_InferNestedLoops)->Arg(16)->Arg(32)->Arg(64)->Complexity();
// Past the cap the work stays what the cap allows, whatever the depth.
void BM_InferNestedGrowingLoops(benchmark::State& state) { InferNestedLoops(state, true); }
BENCHMARK(BM_InferNestedGrowingLoops)->Arg(24)->Arg(48)->Unit(benchmark::kMillisecond);

// x[s0..s(n-1)] + y[t0..t(n-1)]: n requirements over 2n symbols.
absl::StatusOr<std::unique_ptr<ir::Model>> IndependentDims(int n) {
  std::string x, y;
  for (int i = 0; i < n; ++i) {
    absl::StrAppend(&x, i == 0 ? "" : ",", "s", i);
    absl::StrAppend(&y, i == 0 ? "" : ",", "t", i);
  }
  return ir::LoadModelFromBytes(
      absl::StrCat("<ir_version: 8, opset_import: [\"\" : 17]>\ng (float[", x, "] x, float[", y,
                   "] y) => (float[?] z) {\n  z = Add (x, y)\n}\n"),
      "wide.onnxtxt", ir::ModelFormat::kText);
}

// Inference and the pin search of IndependentDims(n).
void BM_PinSearchIndependentDims(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  auto model = IndependentDims(n);
  if (!model.ok()) {
    state.SkipWithError(std::string(model.status().message()).c_str());
    return;
  }
  state.SetComplexityN(n);
  for (auto _ : state) {
    sym::InternScope scope;
    const infer::Inference inference = infer::Infer(**model);
    benchmark::DoNotOptimize(lint::FindPins(inference, inference.InputSymbols()));
  }
}
// The sizes double from one to the next: tools/bench/scaling.py reports the ratios.
BENCHMARK(BM_PinSearchIndependentDims)
    ->Arg(5000)
    ->Arg(10000)
    ->Arg(20000)
    ->Arg(40000)
    ->Unit(benchmark::kMillisecond);

// The whole lint of the same model (every rule, the witness search, the findings): one SL010
// note for the Add, whose relations would otherwise each be a note as long as the inputs' rank.
void BM_LintIndependentDims(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  auto model = IndependentDims(n);
  if (!model.ok()) {
    state.SkipWithError(std::string(model.status().message()).c_str());
    return;
  }
  state.SetComplexityN(n);
  for (auto _ : state) benchmark::DoNotOptimize(lint::Lint(**model));
}
BENCHMARK(BM_LintIndependentDims)
    ->Arg(4000)
    ->Arg(8000)
    ->Arg(16000)
    ->Arg(32000)
    ->Unit(benchmark::kMillisecond);

// A metadata entry of IR version 10, which the onnx.proto this builds against lacks: written as
// the unknown field the loader reads it from.
void AddMetadata(google::protobuf::Message* message, int number, const std::string& key,
                 const std::string& value) {
  ONNX_NAMESPACE::StringStringEntryProto entry;
  entry.set_key(key);
  entry.set_value(value);
  message->GetReflection()->MutableUnknownFields(message)->AddLengthDelimited(
      number, entry.SerializeAsString());
}

// Linting x[B, T, 8] + pos[1, 16, 8], where pos was folded from n / 10 module values that a
// graph signature of n parameters lists.
void BM_LintFoldedFromSignature(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  ONNX_NAMESPACE::ModelProto m;
  m.set_ir_version(10);
  m.add_opset_import()->set_version(17);
  auto* g = m.mutable_graph();
  g->set_name("main");
  auto* x = g->add_input();
  x->set_name("x");
  auto* type = x->mutable_type()->mutable_tensor_type();
  type->set_elem_type(ONNX_NAMESPACE::TensorProto::FLOAT);
  type->mutable_shape()->add_dim()->set_dim_param("B");
  type->mutable_shape()->add_dim()->set_dim_param("T");
  type->mutable_shape()->add_dim()->set_dim_value(8);
  auto* pos = g->add_initializer();
  pos->set_name("pos");
  pos->set_data_type(ONNX_NAMESPACE::TensorProto::FLOAT);
  for (int d : {1, 16, 8}) pos->add_dims(d);
  pos->mutable_float_data()->Resize(16 * 8, 0.5f);
  auto* add = g->add_node();
  add->set_op_type("Add");
  add->add_input("x");
  add->add_input("pos");
  add->add_output("y");
  g->add_output()->set_name("y");
  std::string from = "[", signature;
  for (int i = 0; i < n; ++i) {
    if (i < n / 10) absl::StrAppend(&from, i == 0 ? "" : ", ", "'m", i, ".w'");
    absl::StrAppend(&signature, "p_m", i, "_w: PARAMETER target='m", i, ".w'\n");
  }
  from += "]";
  auto* info = g->add_value_info();
  info->set_name("pos");
  AddMetadata(info, 4, "pkg.onnxscript.optimizer.folded_from", from);
  AddMetadata(g, 16, "pkg.torch.export.ExportedProgram.graph_signature", signature);
  auto model = ir::LoadModelFromBytes(m.SerializeAsString(), "folded.onnx");
  if (!model.ok()) {
    state.SkipWithError(std::string(model.status().message()).c_str());
    return;
  }
  state.SetComplexityN(n);
  for (auto _ : state) benchmark::DoNotOptimize(lint::Lint(**model));
}
BENCHMARK(BM_LintFoldedFromSignature)
    ->Arg(100000)
    ->Arg(200000)
    ->Arg(400000)
    ->Arg(800000)
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace shapelint

BENCHMARK_MAIN();
