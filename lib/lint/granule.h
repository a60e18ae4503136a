// The step by which the graph's own arithmetic moves a size: a counterexample that moves a
// symbol by it keeps every floor of the graph where it was.
//
// A stride-2 convolution computes floor((H - 1) / 2) + 1, a 4 x 4 window partition floor(H / 4),
// a detector's heads floor((H + 31) / 32): moving H by the product of the divisors over it (4,
// 32) leaves every such floor's remainder as it was at a size where the graph runs. A module
// with the same windows and strides in eager PyTorch accepts such a size too, where H + 1 is
// often one it rejects as well (a view into 4 x 4 windows at H = 9): a counterexample there
// shows the module's own limit, not the bake. So the counterexample search tries steps of the
// granule first (lint/evaluator.h).
#ifndef SHAPELINT_LIB_LINT_GRANULE_H_
#define SHAPELINT_LIB_LINT_GRANULE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "absl/container/flat_hash_map.h"
#include "absl/container/node_hash_map.h"
#include "shapelint/infer/engine.h"
#include "shapelint/sym/expr.h"

namespace shapelint::lint {

// Granules larger than this are not used: a step that large leaves the sizes the model was
// tried at far behind.
inline constexpr int64_t kMaxGranule = 64;

class Granules {
 public:
  // `witness`: sizes at which the graph runs, where a Reshape's runs of dims are matched; kept
  // by reference, so it must outlive the Granules (the analysis' solution owns it).
  Granules(const infer::Inference& inference, const sym::Binding& witness)
      : inference_(inference), witness_(witness) {}

  // The least common multiple, over every dim of the main graph's values and every requirement
  // of its ops, of what a move of `symbol` must be a multiple of for each floor over it to keep
  // its remainder (the divisor times the granule of its numerator), and for each Reshape that
  // splits the symbol's dim into a count and literal factors to keep splitting it (below); 1
  // when the symbol is under neither, or when that is more than kMaxGranule. The whole graph is
  // read once, on the first call, for every symbol.
  int64_t Of(std::string_view symbol) const;

 private:
  using BySymbol = absl::flat_hash_map<std::string, int64_t>;  // granules above 1 only
  const BySymbol& Walk(const sym::Expr& e) const;
  void ReadReshapeSplits(const infer::Requirement& r, BySymbol& all) const;
  void Read() const;

  const infer::Inference& inference_;
  const sym::Binding& witness_;
  mutable std::optional<BySymbol> all_;
  // Node-based: Walk hands out references into it while it grows.
  mutable absl::node_hash_map<const void*, BySymbol> memo_;
};

}  // namespace shapelint::lint

#endif  // SHAPELINT_LIB_LINT_GRANULE_H_
