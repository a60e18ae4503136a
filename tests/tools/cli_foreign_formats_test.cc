// Files that are not ONNX models, and directories without any: each is named for what it is,
// as a load error (exit 2), with the way to an ONNX model where there is one.
#include <catch2/catch.hpp>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "shapelint/ir/load.h"
#include "tools/cli_test_util.h"

namespace shapelint::cli {
namespace {

using Catch::Matchers::Contains;

const std::string kPool = SHAPELINT_SOURCE_DIR "/tests/corpus/torch/adaptive_avg_pool2d.onnx";

std::string LittleEndian(uint64_t v, int bytes) {
  std::string out;
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
  return out;
}

// A zip archive of stored (uncompressed) entries, as PKWARE's APPNOTE lays it out: local file
// headers with the data, the central directory, and its end record. CRCs are left 0: nothing
// here checks them.
std::string Zip(const std::vector<std::pair<std::string, std::string>>& entries) {
  std::string files, directory;
  for (const auto& [name, data] : entries) {
    const std::string sizes = LittleEndian(data.size(), 4) + LittleEndian(data.size(), 4);
    const std::string common = LittleEndian(0, 2) + LittleEndian(0, 2) + LittleEndian(0, 4) +
                               LittleEndian(0, 4) + sizes + LittleEndian(name.size(), 2) +
                               LittleEndian(0, 2);  // flags, method, time+date, crc, ..., extra
    directory += "PK\x01\x02" + LittleEndian(20, 2) + LittleEndian(20, 2) + common +
                 LittleEndian(0, 2) + LittleEndian(0, 2) + LittleEndian(0, 2) + LittleEndian(0, 4) +
                 LittleEndian(files.size(), 4) + name;
    files += "PK\x03\x04" + LittleEndian(20, 2) + common + name + data;
  }
  return files + directory + "PK\x05\x06" + LittleEndian(0, 4) + LittleEndian(entries.size(), 2) +
         LittleEndian(entries.size(), 2) + LittleEndian(directory.size(), 4) +
         LittleEndian(files.size(), 4) + LittleEndian(0, 2);
}

// The pickle of torch.save's magic number with protocol 2, as its legacy files start.
const std::string kTorchLegacy =
    std::string("\x80\x02\x8a\x0a\x6c\xfc\x9c\x46\xf9\x20\x6a\xa8\x50\x19.", 15) + "\x80\x02}q.";

std::string Safetensors() {
  const std::string header = R"({"w":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})";
  return LittleEndian(header.size(), 8) + header + std::string(4, '\0');
}

// A load error for `path` whose message is `message` exactly.
void CheckNamed(const std::string& path, const std::string& message) {
  Outcome o = RunCli({path});
  INFO(o.out << o.err);
  CHECK(o.code == kExitError);
  CHECK(o.err.empty());
  CHECK(o.out == path + ": error: " + message + "\n\n1 model could not be loaded\n");
}

const std::string kExport = ", not an ONNX model: export it with torch.onnx.export";

TEST_CASE("foreign formats: PyTorch checkpoints, zipped or pickled", "[cli][foreign]") {
  TempDir dir;
  CheckNamed(
      dir.Write("model.pt", Zip({{"archive/data.pkl", "\x80\x02}q."}, {"archive/version", "3\n"}})),
      "is a PyTorch checkpoint (torch.save)" + kExport);
  CheckNamed(dir.Write("root.pt", Zip({{"data.pkl", "\x80\x02}q."}})),
             "is a PyTorch checkpoint (torch.save)" + kExport);
  CheckNamed(dir.Write("scripted.pt", Zip({{"m/data.pkl", "\x80\x02}q."},
                                           {"m/code/__torch__.py", "def forward(self): ..."},
                                           {"m/constants.pkl", "\x80\x02)."}})),
             "is a TorchScript archive (torch.jit.save)" + kExport);
  CheckNamed(dir.Write("legacy.pth", kTorchLegacy),
             "is a PyTorch checkpoint (torch.save, in its format before PyTorch 1.6)" + kExport);
  CheckNamed(dir.Write("state.pkl", "\x80\x04\x95\x05\x00\x00\x00\x00\x00\x00\x00}\x94."),
             "is a Python pickle, as torch.save wrote PyTorch checkpoints before PyTorch 1.6, not "
             "an ONNX model: export the model with torch.onnx.export");
  // Cut off before its central directory, the archive is still told by its first entry.
  const std::string zipped = Zip({{"archive/data.pkl", std::string(100, 'p')}});
  CheckNamed(dir.Write("cut.pt", zipped.substr(0, 80)),
             "is a PyTorch checkpoint (torch.save)" + kExport);
}

TEST_CASE("foreign formats: other archives", "[cli][foreign]") {
  TempDir dir;
  CheckNamed(dir.Write("a.zip", Zip({{"README", "hello"}})), "is a zip archive, not an ONNX model");
  CheckNamed(dir.Write("models.zip", Zip({{"models/pool.onnx", ReadFile(kPool)}})),
             "is a zip archive, not an ONNX model: extract the .onnx files in it and lint those");
  CheckNamed(dir.Write("model.keras", Zip({{"metadata.json", "{}"},
                                           {"config.json", "{}"},
                                           {"model.weights.h5", "\x89HDF\r\n\x1a\n"}})),
             "is a Keras model (.keras), not an ONNX model: convert it with tf2onnx");
  CheckNamed(dir.Write("model.onnx.gz", "\x1f\x8b\x08\x00\x00\x00\x00\x00"),
             "is gzip-compressed, not an ONNX model: decompress it first");
}

TEST_CASE("foreign formats: weights, TensorFlow and other runtimes", "[cli][foreign]") {
  TempDir dir;
  CheckNamed(dir.Write("model.safetensors", Safetensors()),
             "is a safetensors file (weights without the graph), not an ONNX model: load the "
             "weights into the model and export it with torch.onnx.export");
  CheckNamed(dir.Write("model.tflite", std::string("\x1c\0\0\0TFL3", 8) + std::string(24, '\0')),
             "is a TensorFlow Lite model (.tflite), not an ONNX model: convert it with tf2onnx "
             "--tflite");
  CheckNamed(dir.Write("model.ort", std::string("\x1c\0\0\0ORTM", 8) + std::string(24, '\0')),
             "is an ONNX Runtime model (.ort), not an ONNX model: lint the .onnx model it was "
             "converted from");
  CheckNamed(dir.Write("model.h5", std::string("\x89HDF\r\n\x1a\n\0\0\0\0", 12)),
             "is an HDF5 file (as Keras saves .h5 models), not an ONNX model: convert it with "
             "tf2onnx");
  CheckNamed(dir.Write("model.gguf", std::string("GGUF\x03\0\0\0", 8)),
             "is a GGUF model (llama.cpp), not an ONNX model: lint the ONNX export of the "
             "original model");
  CheckNamed(dir.Write("x.npy", "\x93NUMPY\x01\x00v\x00{'descr': '<f4'}"),
             "is a NumPy array (.npy), not an ONNX model");
  // saved_model_schema_version 1, then a MetaGraphDef with its meta_info_def.
  const std::string saved_model("\x08\x01\x12\x05\x0a\x03\x0a\x01x", 9);
  CheckNamed(dir.Write("model.pb", saved_model),
             "is a TensorFlow SavedModel (saved_model.pb), not an ONNX model: convert its "
             "directory with tf2onnx --saved-model");
  CheckNamed(dir.Write("saved_model.pb", "\x08\x01"),
             "is a TensorFlow SavedModel (saved_model.pb), not an ONNX model: convert its "
             "directory with tf2onnx --saved-model");
  // A GraphDef whose first node is named "input", of op Placeholder.
  CheckNamed(dir.Write("frozen.pb", std::string("\x0a\x14\x0a\x05input\x12\x0bPlaceholder", 22)),
             "is a TensorFlow graph (GraphDef), not an ONNX model: convert it with tf2onnx "
             "--graphdef");
}

TEST_CASE("foreign formats: an ONNX model is never taken for another format", "[cli][foreign]") {
  TempDir dir;
  // Named like a SavedModel, it loads and is linted.
  Outcome o = RunCli({dir.Write("saved_model.pb", ReadFile(kPool))});
  CHECK(o.code == kExitFindings);
  CHECK_THAT(o.out, Contains("error[SL001]"));
  // Bytes that match no format keep the parser's message.
  Outcome garbage = RunCli({dir.Write("garbage.onnx", "not a model")});
  CHECK_THAT(garbage.out, Contains(": error: cannot be parsed as an ONNX model"));
  // The library says the same as the command line, the source in front.
  auto loaded = ir::LoadModelFromBytes(Safetensors(), "w.safetensors");
  REQUIRE_FALSE(loaded.ok());
  CHECK(loaded.status().code() == absl::StatusCode::kInvalidArgument);
  CHECK_THAT(std::string(loaded.status().message()),
             Catch::Matchers::StartsWith("w.safetensors: is a safetensors file"));
}

TEST_CASE("foreign formats: a directory without models says so", "[cli][foreign]") {
  TempDir dir;
  fs::create_directories(dir.path() / "empty");
  fs::create_directories(dir.path() / "text_only");
  dir.Write("text_only/model.onnxtxt", "");
  CheckNamed((dir.path() / "empty").string(), "is a directory without any *.onnx file under it");
  CheckNamed((dir.path() / "text_only").string(),
             "is a directory without any *.onnx file under it");
  fs::create_directories(dir.path() / "saved" / "variables");
  dir.Write("saved/saved_model.pb", "\x08\x01");
  CheckNamed((dir.path() / "saved").string(),
             "is a TensorFlow SavedModel, not an ONNX model: convert it with tf2onnx "
             "--saved-model");
}

}  // namespace
}  // namespace shapelint::cli
