// Leaving weights out of a serialized model before it is parsed.
//
// A model with embedded weights is mostly tensor payload: a 1 GB file may hold 50 MB of graph.
// Linting needs the graph, the dims and element types of every tensor, and the values of small
// tensors only (shape operands, scales). Skimming walks the protobuf wire format of the
// ModelProto and copies everything except the payload of large tensors, so parsing, and even
// reading the file through mmap, never touches the weight bytes.
#ifndef SHAPELINT_LIB_IR_SKIM_H_
#define SHAPELINT_LIB_IR_SKIM_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace shapelint::ir {

// Tensors whose payload fields take more bytes than this lose them: about 500 int64 values, more
// than the engine tracks (infer::kMaxTrackedElements).
inline constexpr size_t kMaxKeptTensorBytes = 4096;

// How deeply protobuf messages may nest in a model, for the parser and the skimmer alike. A
// subgraph adds three levels (node, attribute, graph): 64 levels of subgraphs, the most a model
// may have, fit with room for types and tensors; past it the parser refuses the bytes instead
// of recursing without bound.
inline constexpr int kMaxMessageDepth = 256;

struct Skimmed {
  std::string bytes;          // the ModelProto without the large payloads
  int64_t tensors = 0;        // how many tensors lost their payload
  int64_t bytes_skipped = 0;  // bytes of the payload fields left out
};

// `model` (a serialized ModelProto) without the payload of every tensor larger than
// `max_kept_bytes`: initializers, Constant values and other tensor attributes, sparse
// initializers, in the main graph, subgraphs and functions. Such a tensor keeps its name, element
// type and dims, and reads as a tensor whose values are unknown, like one with external data.
// nullopt when there is nothing to leave out, or when the bytes break the wire format where the
// walk reads them: then `model` is parsed as it is, and the parser reports what is wrong.
//
// `passed`, when given, is called now and then with an offset into `model` that the walk has
// passed, in increasing order within each of its two passes (one reads the tags, one copies).
// A caller that mapped the file may drop the pages before it: the walk reads a page again, if
// at all, through the mapping, and the page holds the same bytes. Without that, each tensor
// header read maps the page-cache folio around it, and the process keeps them all.
std::optional<Skimmed> SkimTensorPayloads(std::string_view model,
                                          size_t max_kept_bytes = kMaxKeptTensorBytes,
                                          const std::function<void(size_t)>& passed = nullptr);

}  // namespace shapelint::ir

#endif  // SHAPELINT_LIB_IR_SKIM_H_
