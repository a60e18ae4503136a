// Symbolic shape and value propagation over a whole model.
#ifndef SHAPELINT_INFER_ENGINE_H_
#define SHAPELINT_INFER_ENGINE_H_

#include <deque>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "shapelint/infer/facts.h"
#include "shapelint/ir/model.h"

namespace shapelint::infer {

// A remark about the analysis itself, e.g. an op the engine does not model.
struct EngineNote {
  const ir::Graph* graph = nullptr;
  int node = -1;
  std::string message;
};

// Facts of one graph's values, indexed by ir::ValueId.
using FactTable = std::vector<TensorFact>;

struct Inference {
  const ir::Graph* graph = nullptr;  // the main graph
  // Facts for every value of the main graph.
  FactTable facts;
  // Facts for the values of each subgraph (If branches, Loop and Scan bodies), from the last
  // time it was inferred; a Loop body sees its loop-carried values generalised.
  std::map<const ir::Graph*, FactTable> subgraph_facts;
  std::vector<Requirement> requirements;  // in topological order of their nodes
  // Indexed by OriginId. A deque: there is one per literal of the graph, and a vector's growth
  // would hold up to twice that at the peak.
  std::deque<Origin> origins;
  std::vector<InputDim> input_dims;  // every dim of every graph input, in order
  std::vector<EngineNote> notes;

  // The fact for a value of the main graph, or nullptr when the graph does not define it.
  const TensorFact* Find(std::string_view value) const;
  // The fact for `value` as seen from `graph`: its own values, then enclosing graphs'.
  const TensorFact* FindIn(const ir::Graph& graph, std::string_view value) const;
  const Origin* OriginOf(OriginId id) const {
    return id >= 0 && id < static_cast<OriginId>(origins.size()) ? &origins[id] : nullptr;
  }
  // Names of the symbols that appear in graph-input dims, sorted.
  std::vector<std::string> InputSymbols() const;
};

// Engine notes kept for one model; past this many, one last note says that more were left out.
inline constexpr size_t kMaxEngineNotes = 1000;
// The newest opset of the default domain whose ops the engine models (SwiGLU-28, OneHot-28,
// ReduceLogSum-28); a model importing a newer one is read as this one, with a note.
inline constexpr int64_t kNewestModelledOpset = 28;

// Adds `note` to `inference` unless kMaxEngineNotes are already there.
void AddEngineNote(Inference& inference, EngineNote note);

// One element of a main-graph node's integer input read as another value: what a
// counterfactual run of the engine asks ("what if this literal followed the input's size?").
// An override of an input whose values are not tracked, or of an element past their end, is
// ignored.
struct ElementOverride {
  int node = -1;
  int input = -1;
  int64_t element = -1;
  sym::Expr value;
};

// Runs propagation over the main graph. Never fails: what it cannot model stays unknown.
// The result holds expressions (sym::Expr): built inside a sym::InternScope, they are valid only
// while that scope lives, so the caller keeps the scope open for every use of the result;
// outside any scope they go to the process-wide table, which is never freed.
Inference Infer(const ir::Model& model);
// The same, with `overrides` applied to what their nodes read (the facts of the values
// themselves, and of every other reader, stay as the graph has them).
Inference Infer(const ir::Model& model, const std::vector<ElementOverride>& overrides);

}  // namespace shapelint::infer

#endif  // SHAPELINT_INFER_ENGINE_H_
