// Findings name the input axis of each size name an exporter made up (Finding::symbol_axes):
// torch's "s53" says nothing of the axis it is, the user's "height" does.
#include <algorithm>
#include <catch2/catch.hpp>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "shapelint/ir/load.h"
#include "shapelint/lint/lint.h"

namespace shapelint::lint {
namespace {

using Axes = std::vector<std::pair<std::string, std::string>>;

// The symbol axes of the SL002 finding on a Reshape of x[b, n] to the literal [2, 3]: a
// requirement b * n == 6 (b and n named as given).
Axes AxesOf(const std::string& b, const std::string& n) {
  const std::string text =
      absl::StrCat(R"(<ir_version: 8, opset_import: ["" : 17]>
g (float[)",
                   b, ",", n, R"(] x, float[s530] z) => (float[2,3] y, float[s530] w) {
  t = Constant <value = int64[2] {2, 3}> ()
  y = Reshape (x, t)
  w = Relu (z)
})");
  auto model = ir::LoadModelFromBytes(text, "m.onnxtxt");
  REQUIRE(model.ok());
  auto findings = Lint(**model, {});
  REQUIRE(findings.ok());
  auto sl002 = std::find_if(findings->begin(), findings->end(),
                            [](const Finding& f) { return f.rule == "SL002"; });
  REQUIRE(sl002 != findings->end());
  return sl002->symbol_axes;
}

TEST_CASE("symbol axes: made-up names get their input axis, the user's names none", "[lint]") {
  // torch's and ONNX's made-up names; z's s530 is a symbol of its own, which the finding (on
  // x's Reshape) names only in the counterexample's binding of every input symbol.
  const Axes made_up = AxesOf("s53", "unk__7");
  CHECK(std::find(made_up.begin(), made_up.end(),
                  std::pair<std::string, std::string>{"s53", "x axis 0"}) != made_up.end());
  CHECK(std::find(made_up.begin(), made_up.end(),
                  std::pair<std::string, std::string>{"unk__7", "x axis 1"}) != made_up.end());
  // Names that say what they are, and lookalikes that are not made up.
  for (const auto& [b, n] : std::vector<std::pair<std::string, std::string>>{
           {"batch", "seq"}, {"s", "sx"}, {"unk__", "s_1"}}) {
    INFO(b << ", " << n);
    const Axes user = AxesOf(b, n);
    for (const auto& [symbol, axis] : user) CHECK(symbol == "s530");
  }
}

}  // namespace
}  // namespace shapelint::lint
