// Where the literal side of a failing requirement came from: the initializer or Constant that
// supplies the size a node meets, traced back through the layout ops between them, and what
// kind of literal it is.
#ifndef SHAPELINT_LIB_LINT_LITERALS_H_
#define SHAPELINT_LIB_LINT_LITERALS_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "shapelint/infer/engine.h"
#include "shapelint/ir/model.h"

namespace shapelint::lint {

struct LiteralSource {
  enum class Kind {
    kNone,
    // A trained parameter: a float initializer that a layer contracts over (a conv kernel's
    // channels, a linear layer's features), a per-channel vector ([C], [1, C, 1, 1]), or one
    // named as a module parameter ("encoder.pos_embedding"). A size it fixes is the model's
    // design: eager PyTorch rejects other sizes too.
    kWeight,
    // A value the exporter wrote: a Constant, an integer initializer, a shape operand, or a
    // float tensor sized on two or more dims that is not named as a parameter (a positional
    // table sliced and folded, a mask built at the example size).
    kConstant,
  };
  Kind kind = Kind::kNone;
  const ir::Graph* graph = nullptr;
  int node = -1;                // the Constant node; -1 for an initializer
  std::string name;             // the initializer or the Constant's output
  std::vector<int64_t> dims;    // the literal tensor's dims
  std::vector<int64_t> values;  // its values, when it is a shape operand (Expand's target)
  int consumer = -1;            // the node where it meets the dynamic dim
  int entry = -1;               // the Expand or Tile it sizes, when it is a shape operand
  std::vector<int> through;     // nodes it passes between there and the consumer, in order
};

// The parameters and buffers that torch.export's record of the program's inputs (the graph
// metadata pkg.torch.export.ExportedProgram.graph_signature: "p_fc_weight: PARAMETER
// target='fc.weight'" for each) lists, read once per model: a dynamo LLM lists thousands, and
// the optimizer's record of a folded constant may name as many.
class ParameterSignature {
 public:
  explicit ParameterSignature(const ir::Model& model);
  ~ParameterSignature();
  ParameterSignature(ParameterSignature&&) noexcept;
  ParameterSignature& operator=(ParameterSignature&&) noexcept;
  // How the signature lists a name: not at all, as a PARAMETER, or as a BUFFER (module state no
  // optimizer trains: running statistics, a position table, a grid a module caches at the size
  // it last saw).
  enum class Listing { kNotListed, kParameter, kBuffer };
  // How it lists `name`, in one lookup; nullopt when the model records no signature.
  std::optional<Listing> Find(std::string_view name) const;
  // Whether the signature lists `name`; nullopt when the model records no signature.
  std::optional<bool> Lists(std::string_view name) const;
  // Starts fetching the place of `name` in the table, for a Lists of it soon after: a loop over
  // many names overlaps their waits for memory.
  void Prefetch(std::string_view name) const;

 private:
  struct Targets;
  std::unique_ptr<const Targets> targets_;  // nullptr when the model records no signature
};

// The literal tensor that supplies the constant side of `requirement` at its node, traced back
// through layout ops (Unsqueeze, Reshape, Slice, ...) to an initializer or Constant; kind kNone
// when there is none. `specialized`: the input symbols torch.export specialized to one size
// (lint/export_ranges.h), which tell a parameter's own sizes from the trace's in a constant
// folded from both.
// `signature` is the model's (the one `inference` was made of).
LiteralSource LiteralSideOf(const infer::Inference& inference,
                            const infer::Requirement& requirement,
                            const std::map<std::string, int64_t>& specialized,
                            const ParameterSignature& signature);

// The literal in the computation of `slice`'s bounds (its starts and ends, through the small
// integer arithmetic that makes them: Add, Div, Concat, Unsqueeze, ...) whose value is `length`,
// the number of elements the Slice keeps on an axis: a crop to the example's size,
// x[:, dh:dh + 8] of th = int(up.size(2)) = 8. Nothing when no literal of the bounds is that
// length (a crop computed from the input's size, a literal start such as 1 of x[:, 1:]).
std::optional<LiteralSource> SliceLengthLiteral(const infer::Inference& inference,
                                                const ir::Graph& graph, int slice, int64_t length);

// The trained table that meets `node`'s output within a few nodes downstream with a dim of
// `size`: a float initializer of at least two dims that `signature` lists as a parameter (or,
// where the model records no signature, named like one: "blocks.4.attn.attention_biases"),
// added to, multiplied with or concatenated to what the output reaches, itself or through a
// lookup or layout op (Gather, Reshape, Transpose, ...) of it; not a layer's weight. Its name,
// or nothing.
std::optional<std::string> TrainedTableMeeting(const ir::Graph& graph, int node, int64_t size,
                                               const ParameterSignature& signature);

// What the onnxscript optimizer's record (pkg.onnxscript.optimizer.folded_from, on the
// value_info of a constant it folded) says the constant was made of; all false where it has
// none (not folded by the optimizer).
struct FoldedSources {
  bool recorded = false;      // the optimizer recorded what it folded the constant from
  bool module_state = false;  // a parameter or buffer went into it
  // A tensor the trace made: the record lists no parameter or buffer among what went into it,
  // and the program's signature lists none of its name (torch.hann_window(T), folded from the
  // trace's length alone), whatever its shape. Without the record (a post-processor drops
  // value_info's metadata) nothing says so.
  bool made_by_trace = false;
  // Parameters and buffers alone (each listed in the program's signature): no constant of the
  // trace went into it, so it holds no size of the example, and its size is the module's as a
  // weight's is (a position table looked up by a buffer of every position, CLIP's and ViT's
  // embeddings). One folded with the trace's own constants (a slice end, an expand target:
  // val_3) may hold the example's size.
  bool only_module_state = false;
  // It was made (or broadcast) to a size by the trace: an op that makes a tensor of a size it is
  // given (arange, zeros, expand, ...) went into it.
  bool sized_factory = false;
  // A parameter or buffer cut by the trace (self.w[:T, :T], narrow): the cut's bounds are the
  // trace's numbers, the example's where the code read a size as a Python int.
  bool sliced_module_state = false;
  std::vector<std::string> module_values;  // the listed pieces, in the record's order
};

// The record of the folded constant `name` of `graph`, read against `signature` (the model's).
FoldedSources ReadFoldedSources(const ir::Graph& graph, const std::string& name,
                                const ParameterSignature& signature);

// True when `name` is one torch.export gives a value it computed, not a parameter or buffer
// (named by module path: "cls", "inner.pos"): the value of an op that makes or cuts a tensor to a
// size ("expand", "ones_1", "slice_2"), or a name the exporter's ONNX builder generates
// ("val_12"). A post-processor (onnxsim, onnxslim) that lifts such a folded constant keeps the
// name, though it drops the records that ReadFoldedSources and ParameterSignature read.
bool NamesComputedValue(std::string_view name);

// True for ONNX float element types (float, float16, bfloat16, double).
bool IsFloating(int32_t data_type);

}  // namespace shapelint::lint

#endif  // SHAPELINT_LIB_LINT_LITERALS_H_
