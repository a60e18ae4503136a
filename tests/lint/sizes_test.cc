// lint::ParseSizes: the one parser of NAME=SIZE lists, with the forms each option allows.
#include <catch2/catch.hpp>
#include <string>
#include <utility>
#include <vector>

#include "shapelint/lint/probe.h"

namespace shapelint::lint {
namespace {

using Catch::Matchers::Contains;
using Sizes = std::vector<std::pair<std::string, int64_t>>;
using Shapes = std::vector<std::pair<std::string, std::vector<int64_t>>>;

std::string Error(std::string_view text, SizeSyntax syntax) {
  absl::StatusOr<ProbeSpec> spec = ParseSizes(text, syntax);
  REQUIRE_FALSE(spec.ok());
  CHECK(spec.status().code() == absl::StatusCode::kInvalidArgument);
  return std::string(spec.status().message());
}

TEST_CASE("sizes: named sizes, shapes and a range, in the order given", "[lint][sizes]") {
  absl::StatusOr<ProbeSpec> spec = ParseSizes("batch=2,x=1x3x8x9,,seq=0..7,h=16", kProbeSizes);
  REQUIRE(spec.ok());
  CHECK(spec->sizes == Sizes{{"batch", 2}, {"h", 16}});
  CHECK(spec->shapes == Shapes{{"x", {1, 3, 8, 9}}});
  REQUIRE(spec->range_symbol);
  CHECK(*spec->range_symbol == "seq");
  CHECK(spec->range_lo == 0);
  CHECK(spec->range_hi == 7);
  // ParseProbeSpec is the same parser with every form allowed.
  absl::StatusOr<ProbeSpec> probe = ParseProbeSpec("batch=2,x=1x3x8x9,,seq=0..7,h=16");
  REQUIRE(probe.ok());
  CHECK(probe->sizes == spec->sizes);
  CHECK(probe->shapes == spec->shapes);
}

TEST_CASE("sizes: each option's forms", "[lint][sizes]") {
  absl::StatusOr<ProbeSpec> named = ParseSizes("batch=1,seq=128", kNamedSizes);
  REQUIRE(named.ok());
  CHECK(named->sizes == Sizes{{"batch", 1}, {"seq", 128}});
  absl::StatusOr<ProbeSpec> exported = ParseSizes("x=2x3x224x224,batch=2", kExportSizes);
  REQUIRE(exported.ok());
  CHECK(exported->shapes == Shapes{{"x", {2, 3, 224, 224}}});
  CHECK(exported->sizes == Sizes{{"batch", 2}});
  CHECK_FALSE(exported->range_symbol);

  CHECK(Error("b=1,x=1x3", kNamedSizes) ==
        "invalid size 'x=1x3' (expected NAME=SIZE: a size, not a shape)");
  CHECK(Error("b=1,n=1..4", kNamedSizes) ==
        "invalid size 'n=1..4' (expected NAME=SIZE: a size, not a range)");
  CHECK(Error("x=1x3,n=1..4", kExportSizes) ==
        "invalid size 'n=1..4' (expected NAME=SIZE or INPUT=AxBxC: a size, not a range)");
}

TEST_CASE("sizes: an error names the item at fault and what was expected", "[lint][sizes]") {
  CHECK(Error("a=1,b=x,c=3", kProbeSizes) ==
        "invalid size 'b=x' (expected INPUT=AxBxC with sizes >= 0)");
  CHECK(Error("a=1,b=-1", kNamedSizes) ==
        "invalid size 'b=-1' (expected NAME=SIZE with SIZE >= 0)");
  CHECK(Error("a=1,b=2.5", kNamedSizes) ==
        "invalid size 'b=2.5' (expected NAME=SIZE with SIZE >= 0)");
  CHECK(Error("batch", kNamedSizes) == "invalid size 'batch' (expected NAME=SIZE)");
  CHECK(Error("=3", kExportSizes) == "invalid size '=3' (expected NAME=SIZE or INPUT=AxBxC)");
  CHECK(Error("h=", kProbeSizes) ==
        "invalid size 'h=' (expected NAME=SIZE, INPUT=AxBxC or NAME=LO..HI)");
  CHECK(Error("x=2x-3", kExportSizes) ==
        "invalid size 'x=2x-3' (expected INPUT=AxBxC with sizes >= 0)");
  CHECK(Error("h=9..3", kProbeSizes) ==
        "invalid size 'h=9..3' (expected NAME=LO..HI with 0 <= LO <= HI)");
  CHECK(Error("h=1..2,w=1..2", kProbeSizes) ==
        "invalid size 'w=1..2' (expected one range per probe)");
  CHECK_THAT(Error("h=0..65536", kProbeSizes), Contains("a range of at most 65536 sizes"));
  CHECK(ParseSizes("h=0..65535", kProbeSizes).ok());
}

TEST_CASE("sizes: a list without any size is an error", "[lint][sizes]") {
  for (std::string_view empty : {"", ",", ",,"}) {
    INFO("'" << empty << "'");
    CHECK(Error(empty, kNamedSizes) == "no size given");
    CHECK(Error(empty, kProbeSizes) == "no size given");
  }
}

TEST_CASE("sizes: a size from a table, as configuration files and Python give them",
          "[lint][sizes]") {
  CHECK(CheckNamedSize("batch", 0).ok());
  CHECK(CheckNamedSize("batch", 1).ok());
  CHECK(CheckNamedSize("batch", -1).message() == "invalid size -1 for 'batch' (expected >= 0)");
  CHECK(CheckNamedSize("", 2).message() == "invalid size 2 for a dim with no name");
}

}  // namespace
}  // namespace shapelint::lint
