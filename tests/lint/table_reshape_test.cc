// A trained position table reshaped to the input's grid, as transformers' PVT does in
// interpolate_pos_encoding (embeddings.reshape(1, height, width, -1) on a table of 16 x 16
// tokens): the table's own element count fixes height x width, so the model runs only at the
// grid it was built for, and eager PyTorch fails at the other sizes too. The 1 of the target is
// no example size (it multiplies nothing into the count), so the Reshape's count is not blamed
// on it: optimum's PVT export got a false SL005 error "Constant holding [1] was sized at the
// example input".
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "shapelint/ir/load.h"
#include "shapelint/lint/lint.h"

namespace shapelint::lint {
namespace {

// pos_embed: [1, 16, 4], a 4 x 4 grid of 4 features, reshaped to [1, h, w, -1] from the
// input's Shape and added to the input's features.
constexpr char kTableModel[] = R"(<ir_version: 8, opset_import: ["" : 17]>
g (float[n, 4, h, w] x) => (float[n, 4, h, w] y) <float[1, 16, 4] pos_embed = {VALUES}> {
  s = Shape (x)
  i2 = Constant <value = int64[1] {2}> ()
  i3 = Constant <value = int64[1] {3}> ()
  hh = Gather (s, i2)
  ww = Gather (s, i3)
  one = Constant <value = int64[1] {1}> ()
  rest = Constant <value = int64[1] {-1}> ()
  target = Concat <axis = 0> (one, hh, ww, rest)
  grid = Reshape (pos_embed, target)
  pe = Transpose <perm = [0, 3, 1, 2]> (grid)
  y = Add (x, pe)
})";

// x.view(1, int(x.size(0)), -1) traced at a batch of 2, the target's entries from three
// Constants: the 2 is the example's.
constexpr char kBatchModel[] = R"(<ir_version: 8, opset_import: ["" : 17]>
g (float[n, 5] x) => (float[1, n, q] y) {
  one = Constant <value = int64[1] {1}> ()
  two = Constant <value = int64[1] {2}> ()
  rest = Constant <value = int64[1] {-1}> ()
  target = Concat <axis = 0> (one, two, rest)
  y = Reshape (x, target)
})";

// The table's 64 values (any will do: shapes do not depend on them) in place of VALUES.
std::vector<Finding> LintText(std::string text) {
  std::string values;
  for (int i = 0; i < 64; ++i) values += (i == 0 ? "" : ", ") + std::to_string(i % 7);
  if (auto at = text.find("VALUES"); at != std::string::npos) text.replace(at, 6, values);
  auto model = ir::LoadModelFromBytes(text, "m.onnxtxt", ir::ModelFormat::kText);
  INFO(model.status().ToString());
  REQUIRE(model.ok());
  auto findings = Lint(**model, {});
  INFO(findings.status().ToString());
  REQUIRE(findings.ok());
  return *findings;
}

TEST_CASE("a table reshaped to the input's grid: the 1 of the target is not blamed",
          "[lint][blame]") {
  const std::vector<Finding> findings = LintText(kTableModel);
  bool narrowed = false;
  for (const Finding& f : findings) {
    INFO(f.rule << " " << f.message);
    CHECK(f.severity != Severity::kError);
    CHECK(f.message.find("holding [1]") == std::string::npos);
    // The grid the table allows: h * w divides its 64 elements (by hand: 4 x 4 and 8 x 8 run,
    // 5 x 4 does not), a limit of the model's own table.
    if (f.rule == "SL010" && f.message.find("64 % h*w == 0") != std::string::npos) narrowed = true;
  }
  CHECK(narrowed);
}

TEST_CASE("a baked batch beside a 1 in the target is still an error", "[lint][blame]") {
  const std::vector<Finding> findings = LintText(kBatchModel);
  bool baked = false;
  for (const Finding& f : findings) {
    if (f.rule == "SL002" && f.severity == Severity::kError &&
        f.message.find("[1, 2, -1]") != std::string::npos) {
      baked = true;
    }
  }
  CHECK(baked);
}

}  // namespace
}  // namespace shapelint::lint
