// A lint run keeps its expressions in a scope of its own (sym::InternScope): linting model after
// model in one process does not grow the process-wide expression table, and runs on several
// threads at once give the same results as one after the other.
#include <catch2/catch.hpp>
#include <cstddef>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "shapelint/ir/load.h"
#include "shapelint/lint/lint.h"
#include "shapelint/report/report.h"
#include "shapelint/sym/expr.h"
#include "test_files.h"

namespace shapelint::lint {
namespace {

// A pool over a dynamic image, then a reshape that bakes its size: a finding with expressions.
// The symbol names are this test's own, so that no other test has interned them already.
const char kModel[] = R"(<ir_version: 8, opset_import: ["" : 17]>
g (float[intern_n, 3, intern_h, intern_w] x) => (float[intern_n, 768] y)
  <int64[2] shape = {1, 768}> {
  p = MaxPool <kernel_shape = [2, 2], strides = [2, 2]> (x)
  y = Reshape (p, shape)
}
)";

std::unique_ptr<ir::Model> Load(const std::string& text) {
  auto model = ir::LoadModelFromBytes(text, "intern.onnxtxt", ir::ModelFormat::kText);
  INFO(model.status().ToString());
  REQUIRE(model.ok());
  return *std::move(model);
}

std::unique_ptr<ir::Model> LoadFile(const std::string& relative) {
  auto model = ir::LoadModelFromBytes(
      testing::ReadFile(std::string(SHAPELINT_SOURCE_DIR) + "/" + relative), relative);
  INFO(relative << ": " << model.status().ToString());
  REQUIRE(model.ok());
  return *std::move(model);
}

// The findings as the JSON report writes them: everything a run gives back, as text.
std::string Report(const ir::Model& model, const LintOptions& options = {}) {
  report::ModelResult result;
  result.path = "model";
  auto findings = Lint(model, options);
  if (findings.ok()) {
    result.findings = *std::move(findings);
  } else {
    result.error = std::string(findings.status().message());
  }
  std::ostringstream out;
  report::WriteJson({result}, out);
  return out.str();
}

TEST_CASE("linting leaves nothing in the process-wide expression table", "[lint][intern]") {
  const std::unique_ptr<ir::Model> model = Load(kModel);
  (void)sym::Expr();  // the process-wide table and its zero exist
  const size_t before = sym::InternedNodeCount();
  const std::string first = Report(*model);
  CHECK_THAT(first, Catch::Contains("intern_h"));
  CHECK(sym::InternedNodeCount() == before);

  SECTION("the same model 25 times") {
    // Without the scope, the first run alone added 25 nodes; repeated runs give the same
    // report from freshly interned expressions and leave nothing behind either.
    for (int i = 0; i < 25; ++i) REQUIRE(Report(*model) == first);
    CHECK(sym::InternedNodeCount() == before);
  }
  SECTION("10 variants, each with symbols of its own") {
    for (int i = 0; i < 10; ++i) {
      LintOptions options;
      options.dynamic.push_back({"x", 0, absl::StrCat("intern_batch_", i)});
      const std::string text = Report(*model, options);
      REQUIRE_THAT(text, Catch::Contains(absl::StrCat("intern_batch_", i)));
    }
    CHECK(sym::InternedNodeCount() == before);
  }
}

TEST_CASE("a lint run inside a caller's scope nests in it", "[lint][intern]") {
  const std::unique_ptr<ir::Model> model = Load(kModel);
  const std::string alone = Report(*model);
  sym::InternScope scope;
  const sym::Expr mine = *sym::Add(sym::Expr::Symbol("intern_h"), sym::Expr::Constant(5));
  const size_t owned = scope.size();
  CHECK(Report(*model) == alone);
  // The run's own nodes went to its scope, not to the caller's.
  CHECK(scope.size() == owned);
  CHECK(*sym::Add(sym::Expr::Symbol("intern_h"), sym::Expr::Constant(5)) == mine);
}

TEST_CASE("lint runs on two threads give the results of one thread", "[lint][intern]") {
  std::vector<std::unique_ptr<ir::Model>> models;
  models.push_back(Load(kModel));
  for (const char* name :
       {"adaptive_avg_pool2d.onnx", "flatten.onnx", "kron_decomposed.onnx",
        "kron_decomposed_dynamic.onnx", "reshape_traced_int.onnx", "vgg11_features.onnx"}) {
    models.push_back(LoadFile(absl::StrCat("tests/corpus/torch/", name)));
  }
  auto run = [&models](std::vector<std::string>* out) {
    for (int round = 0; round < 2; ++round) {
      for (const auto& model : models) out->push_back(Report(*model));
    }
  };
  std::vector<std::string> alone;
  run(&alone);
  const size_t before = sym::InternedNodeCount();
  std::vector<std::string> first, second;
  std::thread a(run, &first);
  std::thread b(run, &second);
  a.join();
  b.join();
  CHECK(first == alone);
  CHECK(second == alone);
  CHECK(sym::InternedNodeCount() == before);
}

}  // namespace
}  // namespace shapelint::lint
