// torch.export's range constraints as the dynamo exporter writes them into the graph metadata.
#include "lint/export_ranges.h"

#include <catch2/catch.hpp>
#include <map>
#include <string>

#include "absl/strings/str_cat.h"
#include "lint/sha256.h"
#include "shapelint/infer/engine.h"
#include "shapelint/ir/load.h"
#include "shapelint/lint/lint.h"

namespace shapelint::lint {
namespace {

TEST_CASE("export ranges: sympy value ranges by symbol, unbounded as nullopt", "[lint]") {
  const auto r = ParseRangeConstraints(
      "{s77: VR[0, int_oo], s27: VR[2, int_oo], s0: VR[10, 10], u: VR[-int_oo, 4]}");
  REQUIRE(r.size() == 4);
  CHECK(r.at("s77").min == 0);
  CHECK(!r.at("s77").max);
  CHECK(r.at("s27").min == 2);
  CHECK(r.at("s0").min == 10);
  CHECK(r.at("s0").max == 10);
  CHECK(!r.at("u").min);
  CHECK(r.at("u").max == 4);
}

TEST_CASE("export ranges: what does not read as NAME: VR[LO, HI] gives no range", "[lint]") {
  CHECK(ParseRangeConstraints("").empty());
  CHECK(ParseRangeConstraints("s0: VR[1, 2]").empty());  // not a dict
  CHECK(ParseRangeConstraints("{}").empty());
  // The readable entry is kept, the others are left out rather than guessed.
  const auto r = ParseRangeConstraints("{s0: VR[3, 3], s1: VR[x, 4], s2: [1, 2], : VR[1, 1]}");
  REQUIRE(r.size() == 1);
  CHECK(r.at("s0").min == 3);
  CHECK(ParseRangeConstraints("{s0: VR[99999999999999999999, 1]}").empty());  // past int64
}

TEST_CASE("export ranges: the user's names take the range every unnamed entry shares", "[lint]") {
  using Ranges = std::map<std::string, ExportRange>;
  // Dim("batch"), Dim("feat"): the ONNX input carries the user's names, the record torch's.
  const Ranges named = RangesOfInputSymbols(
      ParseRangeConstraints("{s77: VR[0, int_oo], s53: VR[0, int_oo]}"), {"batch", "feat"});
  REQUIRE(named.size() == 2);
  CHECK(named.at("feat").min == 0);
  CHECK(!named.at("feat").max);
  // A derived dim's entry (2*s78) is one of the left-over entries like any other.
  const Ranges derived = RangesOfInputSymbols(
      ParseRangeConstraints("{s26: VR[2, int_oo], 2*s78: VR[2, int_oo], s78: VR[2, int_oo]}"),
      {"c4_batch", "c4_height", "p5_height"});
  REQUIRE(derived.size() == 3);
  CHECK(derived.at("c4_height").min == 2);
  // Names that match are read by name, and only the rest share what is left.
  const Ranges mixed = RangesOfInputSymbols(
      ParseRangeConstraints("{s27: VR[8, 8], s77: VR[2, int_oo]}"), {"s27", "batch"});
  CHECK(mixed.at("s27").max == 8);
  CHECK(mixed.at("batch").min == 2);
  CHECK(!mixed.at("batch").max);
  // Left-over entries that differ, or a bounded one: which input has which is not known.
  CHECK(RangesOfInputSymbols(ParseRangeConstraints("{s77: VR[0, int_oo], s53: VR[2, int_oo]}"),
                             {"batch", "feat"})
            .empty());
  CHECK(RangesOfInputSymbols(ParseRangeConstraints("{s77: VR[0, int_oo], s53: VR[8, 8]}"),
                             {"batch", "feat"})
            .empty());
  CHECK(RangesOfInputSymbols(ParseRangeConstraints("{s53: VR[2, 64]}"), {"feat"}).empty());
  // Every entry named already: nothing is left to share.
  CHECK(
      RangesOfInputSymbols(ParseRangeConstraints("{s77: VR[0, int_oo]}"), {"s77", "feat"}).size() ==
      1);
}

TEST_CASE("export ranges: bounds keep witnesses and counterexamples inside", "[lint]") {
  InputSymbolRanges ranges;
  ranges.bounds["h"] = {64, std::nullopt};  // VR[64, int_oo]
  ranges.bounds["b"] = {std::nullopt, 2};   // VR[1, 2]: a lower bound of 1 is none
  CHECK(WithinBounds(ranges, "h", 64));
  CHECK(!WithinBounds(ranges, "h", 63));
  CHECK(WithinBounds(ranges, "b", 1));
  CHECK(!WithinBounds(ranges, "b", 3));
  CHECK(WithinBounds(ranges, "w", 1));  // no recorded range
  std::vector<std::string> text;
  for (const infer::Requirement& r : BoundRequirements(ranges)) {
    CHECK(r.kind == infer::RequirementKind::kExportRange);
    CHECK(r.relation == infer::Relation::kAtLeast);
    text.push_back(r.lhs.ToString() + " >= " + r.rhs.ToString());
  }
  CHECK(text == std::vector<std::string>{"2 >= b", "h >= 64"});
}

TEST_CASE("export ranges: a record with unbacked sizes vouches for no traced symbol", "[lint]") {
  // torch 2.15 turned int(up.size(2)) of a U-Net's decoder into unbacked sizes (u0, u1) and
  // the ONNX graph holds their example values as literals, while the input's own symbols keep
  // their unbounded ranges (tests/corpus/fresh/unet_crop_int.dynamo.onnx). Such a record no
  // longer says that no literal holds an example size: nothing is read as traced. Bounds and
  // specializations are read as before.
  auto read = [](const std::string& record) {
    const std::string text =
        absl::StrCat(R"(<ir_version: 8, opset_import: ["" : 17], metadata_props: )",
                     R"(["pkg.torch.export.ExportedProgram.range_constraints": ")", record, R"("]>
g (float[s53, s0, s27] x) => (float[s53, s0, s27] y) {
  y = Relu (x)
})");
    auto model = ir::LoadModelFromBytes(text, "ranges.onnxtxt");
    REQUIRE(model.ok());
    const infer::Inference inference = infer::Infer(**model);
    return ReadInputSymbolRanges(**model, inference);
  };
  const InputSymbolRanges plain = read("{s53: VR[6, int_oo], s0: VR[6, int_oo], s27: VR[4, 4]}");
  CHECK(plain.traced == std::vector<std::string>{"s0", "s53"});
  const InputSymbolRanges unbacked = read(
      "{u0: VR[2, int_oo], u1: VR[0, int_oo], s53: VR[6, int_oo], s0: VR[6, int_oo], "
      "s27: VR[4, 4]}");
  CHECK(unbacked.traced.empty());
  CHECK(unbacked.specialized == std::map<std::string, int64_t>{{"s27", 4}});
  CHECK(unbacked.bounds.size() == 2);
  // A name that only starts with u is a symbol like any other.
  const InputSymbolRanges named = read("{s53: VR[6, int_oo], s0: VR[6, int_oo], u: VR[2, 9]}");
  CHECK(named.traced == std::vector<std::string>{"s0", "s53"});
}

TEST_CASE("export ranges: a negative or past-int64 size specializes nothing", "[lint][hostile]") {
  for (const std::string range : {"VR[-5, -5]", "VR[9223372036854775807, 9223372036854775807]",
                                  "VR[6, 5]", "VR[4611686018427387905, int_oo]"}) {
    INFO(range);
    const std::string text = absl::StrCat(
        R"(<ir_version: 8, opset_import: ["" : 17], metadata_props: )",
        R"(["pkg.torch.export.ExportedProgram.range_constraints": "{s27: )", range, R"(}"]>
g (float[s27] x) => (float[s27] y) {
  y = Relu (x)
  z = Add (x, x)
})");
    auto model = ir::LoadModelFromBytes(text, "ranges.onnxtxt");
    REQUIRE(model.ok());
    const infer::Inference inference = infer::Infer(**model);
    const InputSymbolRanges ranges = ReadInputSymbolRanges(**model, inference);
    CHECK(ranges.specialized.empty());
    CHECK(ranges.bounds.empty());
    auto findings = Lint(**model);
    REQUIRE(findings.ok());
    CHECK(findings->empty());
  }
  // An upper bound at int64's limit: read, and no size past it is tried (SL014 would overflow).
  const std::string huge =
      absl::StrCat(R"(<ir_version: 8, opset_import: ["" : 17], metadata_props: )",
                   R"(["pkg.torch.export.ExportedProgram.range_constraints": )",
                   R"("{s27: VR[0, 9223372036854775807]}"]>
g (float[s27] x) => (float[s27] y) {
  y = Relu (x)
})");
  auto model = ir::LoadModelFromBytes(huge, "ranges.onnxtxt");
  REQUIRE(model.ok());
  auto findings = Lint(**model);
  REQUIRE(findings.ok());
  CHECK(findings->empty());
  // A negative lower bound is no bound; the upper one stays.
  const auto r = ParseRangeConstraints("{s0: VR[-3, 8]}");
  CHECK(r.at("s0").min == -3);
}

TEST_CASE("SHA-256 as FIPS 180-4's examples and Python's hashlib give it", "[lint]") {
  auto hex = [](std::string_view data) {
    std::string out;
    for (uint8_t b : Sha256(data)) absl::StrAppend(&out, absl::Hex(b, absl::kZeroPad2));
    return out;
  };
  // FIPS 180-4's one-block and two-block messages, and the empty one.
  CHECK(hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  CHECK(hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq") ==
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  CHECK(hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  // 55 and 56 bytes: the length fits the first block, then needs a second.
  CHECK(hex(std::string(55, 'a')) ==
        "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318");
  CHECK(hex(std::string(56, 'a')) ==
        "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a");
  // torch.export's symbols of x's four axes, as Python computes them:
  // int(hashlib.sha256(b"L['x'].size()[0]").hexdigest(), 16) % 100 is 77, and so on.
  CHECK(Sha256Mod("L['x'].size()[0]", 100) == 77);
  CHECK(Sha256Mod("L['x'].size()[1]", 100) == 27);
  CHECK(Sha256Mod("L['x'].size()[2]", 100) == 53);
  CHECK(Sha256Mod("L['x'].size()[3]", 100) == 0);
}

TEST_CASE("export ranges: the dynamic_shapes names find torch's entries by the source's hash",
          "[lint]") {
  // Dim("height") and Dim("width") on x's axes 2 and 3: the ONNX exporter names the axes so and
  // keeps the record's s53 and s0 (tests/corpus/unseen/upscale_small_branch.dynamo.onnx: a
  // branch taken below 12 rows records height in [0, 11]).
  auto read = [](const std::string& input, const std::string& dims, const std::string& record) {
    const std::string text = absl::StrCat(
        R"(<ir_version: 8, opset_import: ["" : 17], metadata_props: )",
        R"(["pkg.torch.export.ExportedProgram.range_constraints": ")", record, R"("]>
g (float[)",
        dims, "] ", input, ") => (float[", dims, "] y) {\n  y = Relu (", input, ")\n}");
    auto model = ir::LoadModelFromBytes(text, "ranges.onnxtxt");
    REQUIRE(model.ok());
    return ExportRanges(**model);
  };
  const auto named = read("x", "batch, 4, height, width",
                          "{s77: VR[0, int_oo], s53: VR[0, 11], s0: VR[0, int_oo]}");
  REQUIRE(named.contains("height"));
  CHECK(named.at("height").max == 11);
  REQUIRE(named.contains("width"));
  CHECK(!named.at("width").max);
  REQUIRE(named.contains("batch"));
  // An input named otherwise than forward's parameter finds no entry for some name: nothing is
  // renamed, rather than a range given to the wrong axis.
  const auto other = read("images", "batch, 4, height, width",
                          "{s77: VR[0, int_oo], s53: VR[0, 11], s0: VR[0, int_oo]}");
  CHECK(!other.contains("height"));
  // The paths that flatten the arguments first name the source L['flat_args'][0]: 6, 37 and 46
  // for axes 0, 2 and 3 (by hand, Python's hashlib).
  const auto flat = read("x", "batch, 4, height, width",
                         "{s6: VR[0, int_oo], s37: VR[10, 19], s46: VR[0, int_oo]}");
  REQUIRE(flat.contains("height"));
  CHECK(flat.at("height").min == 10);
  CHECK(flat.at("height").max == 19);
  // Names the record knows itself stay as they are.
  const auto own = read("x", "s77, 4, s53, s0", "{s77: VR[0, int_oo], s53: VR[0, 11]}");
  CHECK(own.size() == 2);
}

}  // namespace
}  // namespace shapelint::lint
