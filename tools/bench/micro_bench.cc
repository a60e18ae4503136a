// Google Benchmark for the hot paths under the whole-model numbers of tools/bench/bench:
// expression building (interning, process-wide and in a scope), evaluation, skimming weights out of
// a model, and inference and linting of a stack of attention blocks at growing depth (cost per
// layer should be flat).
//
//   cmake -S . -B build-bench -DCMAKE_BUILD_TYPE=Release -DSHAPELINT_BENCH=ON
//   cmake --build build-bench --target shapelint_micro_bench && build-bench/shapelint_micro_bench
#include <benchmark/benchmark.h>
#include <onnx/onnx_pb.h>

#include <cstdint>
#include <memory>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "ir/skim.h"
#include "shapelint/infer/engine.h"
#include "shapelint/ir/load.h"
#include "shapelint/lint/lint.h"
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

void BM_LintGrowingChain(benchmark::State& state) {
  auto model = ir::LoadModelFromBytes(GrowingChain(static_cast<int>(state.range(0))), "chain",
                                      ir::ModelFormat::kText);
  if (!model.ok()) {
    state.SkipWithError(std::string(model.status().message()).c_str());
    return;
  }
  state.SetComplexityN(state.range(0));
  for (auto _ : state) benchmark::DoNotOptimize(lint::Lint(**model));
}
// 20,000 blocks are 100,000 nodes.
BENCHMARK(BM_LintGrowingChain)
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

}  // namespace
}  // namespace shapelint

BENCHMARK_MAIN();
