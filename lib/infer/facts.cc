// Text forms of facts, shared by the shapes report and the findings' symbolic detail.
#include "shapelint/infer/facts.h"

#include <cstdint>
#include <iterator>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace shapelint::infer {
namespace {

std::string DimText(const sym::MaybeExpr& d, size_t max_chars) {
  return d ? d->ToString(max_chars) : "?";
}

}  // namespace

std::string ElementTypeName(int32_t t) {
  static const char* const kNames[] = {"?",
                                       "float",
                                       "uint8",
                                       "int8",
                                       "uint16",
                                       "int16",
                                       "int32",
                                       "int64",
                                       "string",
                                       "bool",
                                       "float16",
                                       "double",
                                       "uint32",
                                       "uint64",
                                       "complex64",
                                       "complex128",
                                       "bfloat16",
                                       "float8e4m3fn",
                                       "float8e4m3fnuz",
                                       "float8e5m2",
                                       "float8e5m2fnuz",
                                       "uint4",
                                       "int4",
                                       "float4e2m1"};
  if (t < 0 || t >= static_cast<int32_t>(std::size(kNames))) return absl::StrCat("type", t);
  return kNames[t];
}

std::string ShapeText(const TensorFact& f, size_t max_chars) {
  if (!f.shape) return absl::StrCat(ElementTypeName(f.elem_type), "[...]");
  std::vector<std::string> dims;
  for (const auto& d : *f.shape) dims.push_back(DimText(d, max_chars));
  return absl::StrCat(ElementTypeName(f.elem_type), "[", absl::StrJoin(dims, ", "), "]");
}

std::string ValuesText(const TensorFact& f, size_t max_chars) {
  if (!f.values) return "";
  std::vector<std::string> values;
  for (const auto& e : *f.values) values.push_back(DimText(e.value, max_chars));
  return absl::StrCat("{", absl::StrJoin(values, ", "), "}");
}

}  // namespace shapelint::infer
