// How a witness's summary states the requirements that couple its symbols (lint/witness.h): a
// message names the simplest few, and counts the rest, which the JSON report lists.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "lint/witness.h"

namespace shapelint::lint {
namespace {

TEST_CASE("a witness names the shortest coupling requirements and counts the rest", "[lint]") {
  CHECK(RelationsText({"h*w == 16"}) == "the model requires h*w == 16");
  CHECK(RelationsText({"h*w == 16", "h + w == 8"}) ==
        "the model requires h*w == 16 and h + w == 8");
  // Of four, the two shortest, in the order given, and the count of the others.
  const std::string long_one = "floor((h + 15) / 16)*floor((w + 15) / 16) + floor(h / 2) == 16";
  CHECK(RelationsText({long_one, "h == w", long_one + " + 0", "h*w ~ 16"}) ==
        "the model requires h == w and h*w ~ 16, and 2 more requirements the JSON report lists");
  // None short enough to read in a message: counted only.
  const std::string huge(200, 'h');
  CHECK(RelationsText({huge}) == "1 requirement relates them (the JSON report lists it)");
  CHECK(RelationsText({huge, huge + "w"}) ==
        "2 requirements relate them (the JSON report lists them)");
  CHECK(RelationsText({huge, "h == w", huge}) ==
        "the model requires h == w, and 2 more requirements the JSON report lists");
}

TEST_CASE("a broadcast requirement an equality implies is not stated", "[lint]") {
  std::vector<std::string> relations = {"a ~ b", "a == b", "c ~ d", "f ~ e", "e == f", "g ~ h"};
  DropImpliedRelations(relations);
  CHECK(relations == std::vector<std::string>{"a == b", "c ~ d", "e == f", "g ~ h"});
}

}  // namespace
}  // namespace shapelint::lint
