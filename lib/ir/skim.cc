#include "ir/skim.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ir/wire.h"

namespace shapelint::ir {
namespace {

// The messages the walk descends into; every other field is copied as it is.
enum class Kind { kModel, kGraph, kNode, kAttribute, kFunction, kSparseTensor, kTensor, kOther };

// Field numbers from onnx.proto. Only length-delimited fields are looked up.
Kind SubmessageKind(Kind parent, uint64_t field) {
  switch (parent) {
    case Kind::kModel:
      if (field == 7) return Kind::kGraph;      // graph
      if (field == 25) return Kind::kFunction;  // functions
      break;
    case Kind::kGraph:
      if (field == 1) return Kind::kNode;           // node
      if (field == 5) return Kind::kTensor;         // initializer
      if (field == 15) return Kind::kSparseTensor;  // sparse_initializer
      break;
    case Kind::kNode:
      if (field == 5) return Kind::kAttribute;  // attribute
      break;
    case Kind::kAttribute:
      if (field == 5 || field == 10) return Kind::kTensor;         // t, tensors
      if (field == 6 || field == 11) return Kind::kGraph;          // g, graphs
      if (field == 22 || field == 23) return Kind::kSparseTensor;  // sparse_tensor(s)
      break;
    case Kind::kFunction:
      if (field == 7) return Kind::kNode;  // node
      break;
    case Kind::kSparseTensor:
      if (field == 1 || field == 2) return Kind::kTensor;  // values, indices
      break;
    default:
      break;
  }
  return Kind::kOther;
}

// TensorProto's payload: float_data, int32_data, string_data, int64_data, raw_data,
// double_data, uint64_data (packed repeated fields are length-delimited too).
bool IsPayload(uint64_t field) {
  return field == 4 || field == 5 || field == 6 || field == 7 || field == 9 || field == 10 ||
         field == 11;
}

size_t VarintSize(uint64_t v) {
  size_t n = 1;
  while (v >= 0x80) {
    v >>= 7;
    ++n;
  }
  return n;
}

using wire::AppendVarint;

// Bytes [begin, end) of the input are replaced by the varint `length`, or dropped when it is
// negative.
struct Edit {
  size_t begin;
  size_t end;
  int64_t length;
};

// How far the walk goes between two calls of the `passed` hint: each call may cost a system
// call, and the pages of this many bytes at most stay mapped.
constexpr size_t kPassedStep = size_t{16} << 20;

// Calls `passed` each time the walk has gone kPassedStep further.
class ProgressHint {
 public:
  explicit ProgressHint(const std::function<void(size_t)>& passed) : passed_(passed) {}
  void At(size_t offset) {
    if (passed_ && offset >= last_ + kPassedStep) {
      passed_(offset);
      last_ = offset;
    }
  }

 private:
  const std::function<void(size_t)>& passed_;
  size_t last_ = 0;
};

// One pass over the wire format that reads tags and lengths only: a skipped payload is stepped
// over, never read.
class Scanner {
 public:
  Scanner(std::string_view bytes, size_t max_kept, const std::function<void(size_t)>& passed)
      : bytes_(bytes), max_kept_(max_kept), progress_(passed) {}

  // Scans the message of `kind` at [begin, end) of the input, recording edits; returns how
  // many bytes the edits remove from it, or nullopt when the wire format is broken.
  std::optional<size_t> Scan(Kind kind, size_t begin, size_t end, int depth) {
    // Graphs nest through attributes; a hostile file could nest them deeper than any model.
    if (depth > kMaxMessageDepth) return std::nullopt;
    size_t removed = 0;
    size_t payload = 0;
    std::vector<std::pair<size_t, size_t>> payload_fields;
    size_t pos = begin;
    while (pos < end) {
      const size_t field_begin = pos;
      std::optional<uint64_t> tag = ReadVarint(pos, end);
      if (!tag) return std::nullopt;
      const uint64_t field = *tag >> 3;
      const uint64_t wire_type = *tag & 7;
      if (wire_type == 0) {
        if (!ReadVarint(pos, end)) return std::nullopt;
      } else if (wire_type == 1 || wire_type == 5) {
        const size_t width = wire_type == 1 ? 8 : 4;
        if (end - pos < width) return std::nullopt;
        pos += width;
      } else if (wire_type == 2) {
        const size_t length_begin = pos;
        std::optional<uint64_t> length = ReadVarint(pos, end);
        if (!length || *length > end - pos) return std::nullopt;
        const size_t content = pos;
        pos += *length;
        const Kind sub = SubmessageKind(kind, field);
        // A message no longer than the payload kept cannot hold a payload to leave out: most
        // nodes are a few hundred bytes, and stepping over them keeps the walk to the large
        // messages.
        if (sub != Kind::kOther && *length > max_kept_ &&
            !(kind == Kind::kTensor && IsPayload(field))) {
          const size_t slot = edits_.size();
          edits_.push_back({length_begin, content, 0});
          std::optional<size_t> inner = Scan(sub, content, pos, depth + 1);
          if (!inner) return std::nullopt;
          if (*inner == 0) {
            edits_.pop_back();  // nothing inside changes: copied as it is
          } else {
            const uint64_t new_length = *length - *inner;
            edits_[slot].length = static_cast<int64_t>(new_length);
            removed += *inner + (content - length_begin) - VarintSize(new_length);
          }
        }
      } else {
        return std::nullopt;  // groups (3, 4) belong to no ONNX message; 6 and 7 do not exist
      }
      // Packed payloads are one field; unpacked ones (old writers) are one field per element.
      if (kind == Kind::kTensor && IsPayload(field)) {
        payload += pos - field_begin;
        payload_fields.emplace_back(field_begin, pos);
      }
      progress_.At(pos);
    }
    if (payload > max_kept_) {
      for (const auto& [from, to] : payload_fields) {
        edits_.push_back({from, to, -1});
        removed += to - from;
      }
      ++tensors_;
      bytes_skipped_ += static_cast<int64_t>(payload);
    }
    return removed;
  }

  const std::vector<Edit>& edits() const { return edits_; }
  int64_t tensors() const { return tensors_; }
  int64_t bytes_skipped() const { return bytes_skipped_; }

 private:
  std::optional<uint64_t> ReadVarint(size_t& pos, size_t end) const {
    return wire::ReadVarint(bytes_, pos, end);
  }

  std::string_view bytes_;
  size_t max_kept_;
  ProgressHint progress_;
  std::vector<Edit> edits_;  // in input order
  int64_t tensors_ = 0;
  int64_t bytes_skipped_ = 0;
};

}  // namespace

std::optional<Skimmed> SkimTensorPayloads(std::string_view model, size_t max_kept_bytes,
                                          const std::function<void(size_t)>& passed) {
  Scanner scanner(model, max_kept_bytes, passed);
  std::optional<size_t> removed = scanner.Scan(Kind::kModel, 0, model.size(), 0);
  if (!removed || *removed == 0) return std::nullopt;
  Skimmed out;
  out.tensors = scanner.tensors();
  out.bytes_skipped = scanner.bytes_skipped();
  out.bytes.reserve(model.size() - *removed);
  size_t pos = 0;
  ProgressHint progress(passed);
  for (const Edit& e : scanner.edits()) {
    out.bytes.append(model.substr(pos, e.begin - pos));
    if (e.length >= 0) AppendVarint(static_cast<uint64_t>(e.length), out.bytes);
    pos = e.end;
    progress.At(pos);
  }
  out.bytes.append(model.substr(pos));
  return out;
}

}  // namespace shapelint::ir
