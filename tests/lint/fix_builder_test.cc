// FixBuilder::Compute writes a size as ONNX ops: run the ops it adds, on the dims of the graph's
// inputs, and compare with the expression's own value. Here for floor division by a symbolic
// divisor, which becomes a Div of two computed sizes.
#include "lint/fix_builder.h"

#include <catch2/catch.hpp>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "lint/analysis.h"
#include "shapelint/ir/load.h"
#include "shapelint/lint/fix_it.h"
#include "shapelint/sym/expr.h"
#include "sym/expr_test_util.h"

namespace shapelint::lint {
namespace {

using sym::testing::P;

// Runs the int64 ops Compute builds (Shape, Gather, Mul, Add, Div) on 1-D values. `inputs` holds
// each graph input's dims.
std::optional<std::vector<int64_t>> Run(const FixIt& fix, const std::string& value,
                                        const std::map<std::string, std::vector<int64_t>>& inputs) {
  std::map<std::string, std::vector<int64_t>> values;
  for (const FixConstant& c : fix.constants) values[c.name] = c.values;
  for (const FixNode& n : fix.nodes) {
    INFO(n.op_type << " " << n.outputs[0]);
    std::vector<int64_t> out;
    if (n.op_type == "Shape") {
      const std::vector<int64_t>& dims = inputs.at(n.inputs[0]);
      int64_t start = 0, end = static_cast<int64_t>(dims.size());
      for (const auto& [name, v] : n.ints) {
        if (name == "start") start = v;
        if (name == "end") end = v;
      }
      out.assign(dims.begin() + start, dims.begin() + end);
    } else if (n.op_type == "Gather") {
      for (int64_t i : values.at(n.inputs[1])) out.push_back(values.at(n.inputs[0]).at(i));
    } else if (n.op_type == "Mul" || n.op_type == "Add" || n.op_type == "Div") {
      const std::vector<int64_t>& a = values.at(n.inputs[0]);
      const std::vector<int64_t>& b = values.at(n.inputs[1]);
      REQUIRE(a.size() == 1);
      REQUIRE(b.size() == 1);
      if (n.op_type == "Div" && b[0] == 0) return std::nullopt;
      // ONNX's integer Div truncates, as C++'s does.
      out.push_back(n.op_type == "Mul"   ? a[0] * b[0]
                    : n.op_type == "Add" ? a[0] + b[0]
                                         : a[0] / b[0]);
    } else {
      FAIL("an op the test does not run: " << n.op_type);
    }
    values[n.outputs[0]] = out;
  }
  return values.at(value);
}

TEST_CASE("Compute writes a floor by a symbolic divisor as a Div of two sizes", "[lint][fix]") {
  auto model = ir::LoadModelFromBytes(R"(<ir_version: 8, opset_import: ["" : 17]>
g (float[k0,k1,k2] k, float[q0,q1,q2] q) => (float[k0,k1,k2] y) {
  y = Identity (k)
})",
                                      "test.onnxtxt");
  REQUIRE(model.ok());
  Analysis analysis(**model);

  const sym::Expr e = *sym::FloorDivExpr(P("k0*k1*k2 + k1"), P("8*q0 + q1"));
  FixBuilder b(analysis, 0, Applicability::kSafe, "test");
  std::optional<std::string> value = b.Compute(e);
  REQUIRE(value);
  FixIt fix = std::move(b).Take();
  bool divided = false;
  for (const FixNode& n : fix.nodes) divided = divided || n.op_type == "Div";
  CHECK(divided);
  for (const auto& [k, q] : std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>>{
           {{2, 3, 64}, {2, 5, 7}}, {{1, 1, 1}, {0, 1, 1}}, {{7, 2, 5}, {3, 0, 9}}}) {
    sym::Binding at;
    at.Set("k0", k[0]);
    at.Set("k1", k[1]);
    at.Set("k2", k[2]);
    at.Set("q0", q[0]);
    at.Set("q1", q[1]);
    std::optional<std::vector<int64_t>> got = Run(fix, *value, {{"k", k}, {"q", q}});
    REQUIRE(got);
    CHECK(*got == std::vector<int64_t>{*e.Evaluate(at)});
  }

  // Truncation is the floor only for a numerator and a divisor that sizes keep non-negative:
  // other expressions get no fix-it rather than a wrong one.
  FixBuilder other(analysis, 0, Applicability::kSafe, "test");
  CHECK_FALSE(other.Compute(*sym::FloorDivExpr(P("k0 - 1"), P("q0"))));
  CHECK_FALSE(other.Compute(*sym::FloorDivExpr(P("k0"), P("q0 - 1"))));
}

}  // namespace
}  // namespace shapelint::lint
