#include "lint/tensor_values.h"

#include <cstring>

#include "absl/strings/str_cat.h"

namespace shapelint::lint {
namespace {

using ONNX_NAMESPACE::TensorProto;

template <typename T>
void AppendRaw(const std::string& raw, std::vector<double>& out) {
  const size_t n = raw.size() / sizeof(T);
  for (size_t i = 0; i < n; ++i) {
    T v;
    std::memcpy(&v, raw.data() + i * sizeof(T), sizeof(T));  // raw_data is little-endian
    out.push_back(static_cast<double>(v));
  }
}

template <typename T>
void PutRaw(T v, std::string& out) {
  char bytes[sizeof(T)];
  std::memcpy(bytes, &v, sizeof(T));
  out.append(bytes, sizeof(T));
}

size_t ElementSize(int32_t data_type) {
  switch (data_type) {
    case TensorProto::FLOAT:
    case TensorProto::INT32:
      return 4;
    case TensorProto::DOUBLE:
    case TensorProto::INT64:
      return 8;
    case TensorProto::BOOL:
      return 1;
    default:
      return 0;
  }
}

}  // namespace

bool IsReadableType(int32_t data_type) { return ElementSize(data_type) != 0; }

absl::StatusOr<TensorValues> ReadTensorValues(const TensorProto& tensor, int64_t max_elements) {
  TensorValues t;
  t.data_type = tensor.data_type();
  if (!IsReadableType(t.data_type)) {
    return absl::FailedPreconditionError("its element type is not read");
  }
  if (tensor.data_location() == TensorProto::EXTERNAL) {
    return absl::FailedPreconditionError("its values are in an external file");
  }
  int64_t count = 1;
  for (int64_t d : tensor.dims()) {
    if (d < 0 || (d > 0 && count > max_elements / d)) {
      return absl::FailedPreconditionError("it is too large to rebuild");
    }
    count *= d;
    t.dims.push_back(d);
  }
  if (tensor.has_raw_data()) {
    const std::string& raw = tensor.raw_data();
    switch (t.data_type) {
      case TensorProto::FLOAT:
        AppendRaw<float>(raw, t.values);
        break;
      case TensorProto::DOUBLE:
        AppendRaw<double>(raw, t.values);
        break;
      case TensorProto::INT32:
        AppendRaw<int32_t>(raw, t.values);
        break;
      case TensorProto::INT64:
        AppendRaw<int64_t>(raw, t.values);
        break;
      default:
        AppendRaw<uint8_t>(raw, t.values);
    }
  } else {
    for (float v : tensor.float_data()) t.values.push_back(v);
    for (double v : tensor.double_data()) t.values.push_back(v);
    for (int32_t v : tensor.int32_data()) t.values.push_back(v);  // int32 and bool
    for (int64_t v : tensor.int64_data()) t.values.push_back(static_cast<double>(v));
  }
  if (static_cast<int64_t>(t.values.size()) != count) {
    return absl::FailedPreconditionError(
        absl::StrCat("its values were not kept (", t.values.size(), " of ", count, ")"));
  }
  return t;
}

std::string RawData(int32_t data_type, const std::vector<double>& values) {
  std::string out;
  out.reserve(values.size() * ElementSize(data_type));
  for (double v : values) {
    switch (data_type) {
      case TensorProto::FLOAT:
        PutRaw(static_cast<float>(v), out);
        break;
      case TensorProto::DOUBLE:
        PutRaw(v, out);
        break;
      case TensorProto::INT32:
        PutRaw(static_cast<int32_t>(v), out);
        break;
      case TensorProto::INT64:
        PutRaw(static_cast<int64_t>(v), out);
        break;
      default:
        PutRaw(static_cast<uint8_t>(v != 0), out);
    }
  }
  return out;
}

}  // namespace shapelint::lint
