// Shared by the engine's tests: infer a model written in ONNX text format and read its facts
// back as text ("[N, 8, floor(H / 2)]"), so that expectations read like the spec.
#ifndef SHAPELINT_TESTS_INFER_INFER_FIXTURE_H_
#define SHAPELINT_TESTS_INFER_INFER_FIXTURE_H_

#include <catch2/catch.hpp>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_join.h"
#include "shapelint/infer/engine.h"
#include "shapelint/ir/load.h"

namespace shapelint::infer {

struct Run {
  std::unique_ptr<ir::Model> model;
  Inference inference;

  const TensorFact& Fact(const std::string& value) const {
    const TensorFact* f = inference.Find(value);
    INFO(value);
    REQUIRE(f != nullptr);
    return *f;
  }
  int32_t Type(const std::string& value) const { return Fact(value).elem_type; }
  std::string Shape(const std::string& value) const {
    const TensorFact* f = inference.Find(value);
    if (f == nullptr || !f->shape) return "?";
    std::vector<std::string> dims;
    for (const auto& d : *f->shape) dims.push_back(d ? d->ToString() : "?");
    return "[" + absl::StrJoin(dims, ", ") + "]";
  }
  std::string Values(const std::string& value) const {
    const TensorFact* f = inference.Find(value);
    if (f == nullptr || !f->values) return "?";
    std::vector<std::string> vals;
    for (const auto& e : *f->values) vals.push_back(e.value ? e.value->ToString() : "?");
    return "{" + absl::StrJoin(vals, ", ") + "}";
  }
  // Value of dim `axis` of `value` with the symbols bound as given.
  std::optional<int64_t> DimAt(const std::string& value, size_t axis,
                               std::initializer_list<std::pair<const char*, int64_t>> at) const {
    const TensorFact& f = Fact(value);
    if (!f.shape || axis >= f.shape->size() || !(*f.shape)[axis]) return std::nullopt;
    sym::Binding b;
    for (auto [name, v] : at) b.Set(name, v);
    return (*f.shape)[axis]->Evaluate(b);
  }
  // Requirements of `kind`, printed as "lhs ~ rhs".
  std::vector<std::string> Requirements(RequirementKind kind) const {
    std::vector<std::string> out;
    for (const Requirement& r : inference.requirements) {
      if (r.kind == kind) out.push_back(r.lhs.ToString() + " ~ " + r.rhs.ToString());
    }
    return out;
  }
  const Requirement* FindRequirement(RequirementKind kind) const {
    for (const Requirement& r : inference.requirements) {
      if (r.kind == kind) return &r;
    }
    return nullptr;
  }
  // The recorded requirement whose sides print as `lhs` and `rhs`, or nullptr.
  const Requirement* FindRequirement(const std::string& lhs, const std::string& rhs) const {
    for (const Requirement& r : inference.requirements) {
      if (r.lhs.ToString() == lhs && r.rhs.ToString() == rhs) return &r;
    }
    return nullptr;
  }
};

// `imports` is the opset_import list, e.g. "\"\" : 17, \"com.microsoft\" : 1".
inline Run InferWith(const std::string& imports, const std::string& graph) {
  std::string text = "<ir_version: 8, opset_import: [" + imports + "]>\n" + graph;
  auto model = ir::LoadModelFromBytes(text, "test.onnxtxt");
  INFO(model.status().message());
  REQUIRE(model.ok());
  Run run{*std::move(model), {}};
  run.inference = shapelint::infer::Infer(*run.model);
  return run;
}

inline Run Infer(const std::string& graph, int opset = 17) {
  return InferWith("\"\" : " + std::to_string(opset), graph);
}

}  // namespace shapelint::infer

#endif  // SHAPELINT_TESTS_INFER_INFER_FIXTURE_H_
