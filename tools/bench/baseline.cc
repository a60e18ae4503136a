// What the linter is compared with in tools/bench/bench: the cost of only parsing a model, with
// and without an arena, and of parsing it and running ONNX's own shape inference on it.
//
//   shapelint_bench_baseline parse|parse-arena|infer MODEL
//
// Each mode reads the file itself, so that whole-process times compare like with like. On
// success it prints the number of nodes of the main graph; on failure a message and exit 1.
#include <onnx/defs/schema.h>
#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>

#include <climits>
#include <cstdio>
#include <exception>
#include <fstream>
#include <iostream>
#include <string>
#include <string_view>

#include "google/protobuf/arena.h"

namespace {

// One read of the whole file: reading through istreambuf_iterator goes a byte at a time and
// takes seconds on a 1 GB model, which would hide the cost of parsing.
bool ReadFile(const char* path, std::string* bytes) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) return false;
  const std::streamoff size = in.tellg();
  if (size < 0) return false;
  bytes->resize(static_cast<size_t>(size));
  in.seekg(0);
  return static_cast<bool>(in.read(bytes->data(), size));
}

// ParseFromArray takes an int size: a protobuf message cannot exceed 2 GiB.
bool Parse(const std::string& bytes, ONNX_NAMESPACE::ModelProto* model) {
  return bytes.size() <= static_cast<size_t>(INT_MAX) &&
         model->ParseFromArray(bytes.data(), static_cast<int>(bytes.size()));
}

int Fail(const char* path, std::string_view what) {
  std::cerr << "shapelint_bench_baseline: " << path << ": " << what << "\n";
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: shapelint_bench_baseline parse|parse-arena|infer MODEL\n";
    return 2;
  }
  const std::string_view mode = argv[1];
  const char* path = argv[2];
  if (mode != "parse" && mode != "parse-arena" && mode != "infer") {
    std::cerr << "shapelint_bench_baseline: unknown mode '" << mode << "'\n";
    return 2;
  }
  std::string bytes;
  if (!ReadFile(path, &bytes)) return Fail(path, "cannot read");

  if (mode == "parse-arena") {
    google::protobuf::Arena arena;
    auto* model = google::protobuf::Arena::CreateMessage<ONNX_NAMESPACE::ModelProto>(&arena);
    if (!Parse(bytes, model)) return Fail(path, "cannot parse");
    std::printf("%d\n", model->graph().node_size());
    return 0;
  }

  ONNX_NAMESPACE::ModelProto model;
  if (!Parse(bytes, &model)) return Fail(path, "cannot parse");
  if (mode == "infer") {
    // The options closest to what the linter computes: no type checks, node errors not thrown,
    // and data propagation so that Shape -> Gather -> Concat -> Reshape targets are followed.
    const ONNX_NAMESPACE::ShapeInferenceOptions options(/*check_type_val=*/false,
                                                        /*strict_mode_val=*/0,
                                                        /*data_prop_val=*/true);
    try {
      ONNX_NAMESPACE::shape_inference::InferShapes(
          model, ONNX_NAMESPACE::OpSchemaRegistry::Instance(), options);
    } catch (const std::exception& e) {
      return Fail(path, e.what());
    }
  }
  std::printf("%d\n", model.graph().node_size());
  return 0;
}
