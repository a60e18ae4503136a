// Reading models from files, standard input and memory.
#ifndef SHAPELINT_IR_LOAD_H_
#define SHAPELINT_IR_LOAD_H_

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "shapelint/ir/model.h"

namespace shapelint::ir {

enum class ModelFormat {
  kAuto,    // ONNX text format if the name ends in .onnxtxt or the bytes start with '<'
  kBinary,  // serialized ModelProto
  kText,    // ONNX text format (onnx::OnnxParser)
};

// Reads and validates the model at `path`; "-" reads standard input (std::cin's buffer).
// Errors name the path. Input of more than 2 GiB - 1 bytes, protobuf's limit, is refused once
// that much is read (a regular file: from its size), so that a device or pipe without end
// (/dev/zero) ends in an error.
// External-data files are never opened: initializers keep their dtype and dims without them
// (and, in the main graph of a binary model, lose their external_data entries: where the bytes
// are is never read).
absl::StatusOr<std::unique_ptr<Model>> LoadModel(const std::string& path,
                                                 ModelFormat format = ModelFormat::kAuto);

// Same, for bytes already in memory. `source` names them in messages.
absl::StatusOr<std::unique_ptr<Model>> LoadModelFromBytes(std::string_view bytes,
                                                          std::string source,
                                                          ModelFormat format = ModelFormat::kAuto);

// The files the binary model at `path` keeps initializers' data in (TensorProto.external_data,
// key "location", in the main graph), each as a path: relative to the model's directory, where
// ONNX finds them. Empty when it has none, or cannot be read as a model. The files are not
// opened; this is for not writing over them (the CLI's --output, `fix -o`).
std::vector<std::string> ExternalDataFiles(const std::string& path);

// The serialized model `model_bytes` with its metadata entry `key` (ModelProto.metadata_props)
// set to `value`, an entry of that key replaced; every other byte as it was. An error when the
// bytes are not a serialized model.
absl::StatusOr<std::string> SetModelMetadata(std::string_view model_bytes, const std::string& key,
                                             const std::string& value);

}  // namespace shapelint::ir

#endif  // SHAPELINT_IR_LOAD_H_
