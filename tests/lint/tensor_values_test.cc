#include "lint/tensor_values.h"

#include <catch2/catch.hpp>
#include <cstdint>
#include <vector>

namespace shapelint::lint {
namespace {

using ONNX_NAMESPACE::TensorProto;

TEST_CASE("tensor values: raw data written and read back, every readable type", "[lint][fix]") {
  const std::vector<double> values = {0, 1, -2, 3.5};
  for (int32_t type : {TensorProto::FLOAT, TensorProto::DOUBLE, TensorProto::INT32,
                       TensorProto::INT64, TensorProto::BOOL}) {
    INFO("type " << type);
    TensorProto t;
    t.set_data_type(type);
    t.add_dims(2);
    t.add_dims(2);
    t.set_raw_data(RawData(type, values));
    auto read = ReadTensorValues(t, 16);
    REQUIRE(read.ok());
    CHECK(read->dims == std::vector<int64_t>{2, 2});
    if (type == TensorProto::BOOL) {
      CHECK(read->values == std::vector<double>{0, 1, 1, 1});
    } else if (type == TensorProto::INT32 || type == TensorProto::INT64) {
      CHECK(read->values == std::vector<double>{0, 1, -2, 3});  // truncated toward 0
    } else {
      CHECK(read->values == values);
    }
  }
}

TEST_CASE("tensor values: typed fields, and what is not read", "[lint][fix]") {
  TensorProto t;
  t.set_data_type(TensorProto::INT64);
  t.add_dims(3);
  for (int64_t v : {4, 5, 6}) t.add_int64_data(v);
  auto read = ReadTensorValues(t, 16);
  REQUIRE(read.ok());
  CHECK(read->values == std::vector<double>{4, 5, 6});

  CHECK_FALSE(ReadTensorValues(t, 2).ok());  // more elements than asked for
  TensorProto skimmed = t;
  skimmed.clear_int64_data();  // the loader drops a large tensor's payload
  CHECK_FALSE(ReadTensorValues(skimmed, 16).ok());
  TensorProto external = t;
  external.set_data_location(TensorProto::EXTERNAL);
  CHECK_FALSE(ReadTensorValues(external, 16).ok());
  TensorProto strings;
  strings.set_data_type(TensorProto::STRING);
  CHECK_FALSE(ReadTensorValues(strings, 16).ok());
}

}  // namespace
}  // namespace shapelint::lint
