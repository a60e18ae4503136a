// Files that are handed to the linter instead of an ONNX model, told apart by their first
// bytes: a PyTorch checkpoint, safetensors weights, a TensorFlow or TFLite model, and a few more.
// A load that fails on such a file says what the file is and how to get an ONNX model from it.
#ifndef SHAPELINT_LIB_IR_FOREIGN_FORMAT_H_
#define SHAPELINT_LIB_IR_FOREIGN_FORMAT_H_

#include <optional>
#include <string>
#include <string_view>

namespace shapelint::ir {

// What the file `source` with these bytes is, as the rest of a load error: "is a PyTorch
// checkpoint (torch.save), not an ONNX model: export it with torch.onnx.export". nullopt when
// the bytes look like none of the formats known here. Reads the first bytes, and for a zip
// archive its directory at the end.
std::optional<std::string> DescribeForeignFormat(std::string_view bytes, std::string_view source);

}  // namespace shapelint::ir

#endif  // SHAPELINT_LIB_IR_FOREIGN_FORMAT_H_
