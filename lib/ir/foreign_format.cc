#include "ir/foreign_format.h"

#include <algorithm>
#include <cstdint>
#include <vector>

#include "ir/wire.h"

namespace shapelint::ir {
namespace {

constexpr std::string_view kNotOnnx = ", not an ONNX model";
constexpr std::string_view kExportWithTorch = ": export it with torch.onnx.export";
constexpr std::string_view kConvertWithTf2onnx = ": convert it with tf2onnx";

// Zip archives (PKWARE's APPNOTE): a local file header starts the file; the end of central
// directory record, in the last 64 KiB (its comment is at most that long), points at the
// directory of entry names.
constexpr std::string_view kZipLocalHeader = "PK\x03\x04";
constexpr std::string_view kZipEmpty = "PK\x05\x06";
constexpr std::string_view kZipEndOfDirectory = "PK\x05\x06";
constexpr std::string_view kZipDirectoryEntry = "PK\x01\x02";
constexpr size_t kZipEndOfDirectorySize = 22;
constexpr size_t kZipMaxComment = 0xffff;
constexpr size_t kZipDirectoryEntrySize = 46;
constexpr size_t kZipLocalHeaderSize = 30;
// A directory of more entries than this is not read to its end: the names that tell the
// formats apart come first.
constexpr size_t kZipMaxEntries = 4096;

// Pickle (Python's serialisation, and torch.save's format before PyTorch 1.6): the PROTO
// opcode and a protocol from 2 to 5. torch.save's legacy files start with the pickle of its
// magic number, 0x1950a86a20f9469cfc6c, as a LONG1 of 10 bytes.
constexpr char kPickleProto = '\x80';
constexpr int kMinPickleProtocol = 2;
constexpr int kMaxPickleProtocol = 5;
constexpr std::string_view kTorchLegacyMagic = "\x8a\x0a\x6c\xfc\x9c\x46\xf9\x20\x6a\xa8\x50\x19";

// Magic numbers at the start of the file, or at offset 4 for FlatBuffers' file identifiers.
constexpr std::string_view kHdf5 = "\x89HDF\r\n\x1a\n";
constexpr std::string_view kGguf = "GGUF";
constexpr std::string_view kNumpy = "\x93NUMPY";
constexpr std::string_view kGzip = "\x1f\x8b";
constexpr size_t kFlatBufferIdentifierAt = 4;
constexpr std::string_view kTfliteIdentifier = "TFL3";
constexpr std::string_view kOrtIdentifier = "ORTM";

// safetensors: an 8-byte little-endian header length, then the JSON header.
constexpr size_t kSafetensorsHeaderAt = 8;

uint64_t LittleEndian(std::string_view bytes, size_t at, size_t width) {
  uint64_t v = 0;
  for (size_t i = 0; i < width; ++i) {
    v |= static_cast<uint64_t>(static_cast<uint8_t>(bytes[at + i])) << (8 * i);
  }
  return v;
}

bool HasAt(std::string_view bytes, size_t at, std::string_view magic) {
  return bytes.size() >= at + magic.size() && bytes.substr(at, magic.size()) == magic;
}

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

std::string Is(std::string_view what, std::string_view advice) {
  return std::string("is ").append(what).append(kNotOnnx).append(advice);
}

// The entry names of a zip archive from its central directory; from the local file headers,
// as far as they can be followed, when the directory cannot be found (a cut-off file, zip64).
std::vector<std::string_view> ZipEntryNames(std::string_view zip) {
  std::vector<std::string_view> names;
  const size_t search_from = zip.size() > kZipEndOfDirectorySize + kZipMaxComment
                                 ? zip.size() - kZipEndOfDirectorySize - kZipMaxComment
                                 : 0;
  // Only the tail is searched: the rest of a large archive is never read.
  size_t end = zip.substr(search_from).rfind(kZipEndOfDirectory);
  if (end != std::string_view::npos) end += search_from;
  if (end != std::string_view::npos && end + kZipEndOfDirectorySize <= zip.size()) {
    size_t at = LittleEndian(zip, end + 16, 4);
    const size_t entries = LittleEndian(zip, end + 10, 2);
    for (size_t i = 0; i < entries && i < kZipMaxEntries; ++i) {
      if (!HasAt(zip, at, kZipDirectoryEntry) || at + kZipDirectoryEntrySize > zip.size()) break;
      const size_t name = LittleEndian(zip, at + 28, 2);
      const size_t extra = LittleEndian(zip, at + 30, 2);
      const size_t comment = LittleEndian(zip, at + 32, 2);
      if (at + kZipDirectoryEntrySize + name > zip.size()) break;
      names.push_back(zip.substr(at + kZipDirectoryEntrySize, name));
      at += kZipDirectoryEntrySize + name + extra + comment;
    }
    if (!names.empty()) return names;
  }
  for (size_t at = 0; names.size() < kZipMaxEntries && HasAt(zip, at, kZipLocalHeader) &&
                      at + kZipLocalHeaderSize <= zip.size();) {
    const uint64_t flags = LittleEndian(zip, at + 6, 2);
    const uint64_t size = LittleEndian(zip, at + 18, 4);
    const size_t name = LittleEndian(zip, at + 26, 2);
    const size_t extra = LittleEndian(zip, at + 28, 2);
    if (at + kZipLocalHeaderSize + name > zip.size()) break;
    names.push_back(zip.substr(at + kZipLocalHeaderSize, name));
    // Bit 3: the sizes follow the data, so where the next header starts is not known here.
    if ((flags & 0x8) != 0) break;
    at += kZipLocalHeaderSize + name + extra + size;
  }
  return names;
}

std::string DescribeZip(std::string_view zip) {
  bool pickled_data = false, torchscript = false, keras = false, onnx = false;
  for (std::string_view name : ZipEntryNames(zip)) {
    // torch.save writes ARCHIVE/data.pkl; torch.jit.save adds the module's code and constants.
    pickled_data = pickled_data || name == "data.pkl" || EndsWith(name, "/data.pkl");
    torchscript = torchscript || EndsWith(name, "/constants.pkl") ||
                  name.find("/code/") != std::string_view::npos;
    keras = keras || name == "config.json" || name == "model.weights.h5";
    onnx = onnx || EndsWith(name, ".onnx");
  }
  if (pickled_data && torchscript) {
    return Is("a TorchScript archive (torch.jit.save)", kExportWithTorch);
  }
  if (pickled_data) return Is("a PyTorch checkpoint (torch.save)", kExportWithTorch);
  if (onnx) return Is("a zip archive", ": extract the .onnx files in it and lint those");
  if (keras) return Is("a Keras model (.keras)", kConvertWithTf2onnx);
  return Is("a zip archive", "");
}

std::optional<std::string> DescribePickle(std::string_view bytes) {
  if (bytes.size() < 2 || bytes[0] != kPickleProto || bytes[1] < kMinPickleProtocol ||
      bytes[1] > kMaxPickleProtocol) {
    return std::nullopt;
  }
  if (HasAt(bytes, 2, kTorchLegacyMagic)) {
    return Is("a PyTorch checkpoint (torch.save, in its format before PyTorch 1.6)",
              kExportWithTorch);
  }
  return Is("a Python pickle, as torch.save wrote PyTorch checkpoints before PyTorch 1.6",
            ": export the model with torch.onnx.export");
}

bool IsSafetensors(std::string_view bytes) {
  if (bytes.size() <= kSafetensorsHeaderAt || bytes[kSafetensorsHeaderAt] != '{') return false;
  const uint64_t header = LittleEndian(bytes, 0, kSafetensorsHeaderAt);
  return header >= 2 && header <= bytes.size() - kSafetensorsHeaderAt;
}

// The content of the length-delimited field `number` at `pos`, which must not be empty; `pos`
// moves past it. A field that the end of `bytes` cuts off is what there is of it.
std::optional<std::string_view> LengthDelimited(std::string_view bytes, size_t& pos, int number) {
  const auto tag = static_cast<uint8_t>((number << 3) | wire::kLengthDelimited);
  if (pos >= bytes.size() || static_cast<uint8_t>(bytes[pos]) != tag) return std::nullopt;
  ++pos;
  const std::optional<uint64_t> length = wire::ReadVarint(bytes, pos, bytes.size());
  if (!length || *length == 0) return std::nullopt;
  const std::string_view content =
      bytes.substr(pos, std::min<uint64_t>(*length, bytes.size() - pos));
  pos += content.size();
  return content;
}

// SavedModel: saved_model_schema_version = 1, then meta_graphs, a MetaGraphDef that starts
// with its meta_info_def.
bool IsSavedModel(std::string_view bytes) {
  if (!HasAt(bytes, 0, "\x08\x01")) return false;
  size_t pos = 2;
  const std::optional<std::string_view> meta_graph = LengthDelimited(bytes, pos, 2);
  size_t in_meta_graph = 0;
  return meta_graph && LengthDelimited(*meta_graph, in_meta_graph, 1);
}

// GraphDef (a frozen TensorFlow graph): its first node, a NodeDef with a name and then an op,
// a word such as "Placeholder" or "Const".
bool IsGraphDef(std::string_view bytes) {
  size_t pos = 0;
  const std::optional<std::string_view> node = LengthDelimited(bytes, pos, 1);
  if (!node) return false;
  size_t in_node = 0;
  if (!LengthDelimited(*node, in_node, 1)) return false;
  const std::optional<std::string_view> op = LengthDelimited(*node, in_node, 2);
  if (!op) return false;
  for (char c : *op) {
    const bool word =
        (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
    if (!word) return false;
  }
  return true;
}

}  // namespace

std::optional<std::string> DescribeForeignFormat(std::string_view bytes, std::string_view source) {
  if (HasAt(bytes, 0, kZipLocalHeader) || HasAt(bytes, 0, kZipEmpty)) return DescribeZip(bytes);
  if (std::optional<std::string> pickle = DescribePickle(bytes)) return pickle;
  if (IsSafetensors(bytes)) {
    return Is("a safetensors file (weights without the graph)",
              ": load the weights into the model and export it with torch.onnx.export");
  }
  if (HasAt(bytes, kFlatBufferIdentifierAt, kTfliteIdentifier)) {
    return Is("a TensorFlow Lite model (.tflite)", ": convert it with tf2onnx --tflite");
  }
  if (HasAt(bytes, kFlatBufferIdentifierAt, kOrtIdentifier)) {
    return Is("an ONNX Runtime model (.ort)", ": lint the .onnx model it was converted from");
  }
  if (HasAt(bytes, 0, kHdf5)) {
    return Is("an HDF5 file (as Keras saves .h5 models)", kConvertWithTf2onnx);
  }
  if (HasAt(bytes, 0, kGguf)) {
    return Is("a GGUF model (llama.cpp)", ": lint the ONNX export of the original model");
  }
  if (HasAt(bytes, 0, kNumpy)) return Is("a NumPy array (.npy)", "");
  if (HasAt(bytes, 0, kGzip)) return Is("gzip-compressed", ": decompress it first");
  if (EndsWith(source, "saved_model.pb") || IsSavedModel(bytes)) {
    return Is("a TensorFlow SavedModel (saved_model.pb)",
              ": convert its directory with tf2onnx --saved-model");
  }
  if (IsGraphDef(bytes)) {
    return Is("a TensorFlow graph (GraphDef)", ": convert it with tf2onnx --graphdef");
  }
  return std::nullopt;
}

}  // namespace shapelint::ir
