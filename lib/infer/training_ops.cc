// ai.onnx.preview.training: the optimiser steps and Gradient. Each output has the shape of
// the input it updates or differentiates by; none of them reads values.
#include <cstddef>

#include "infer/op_context.h"
#include "infer/ops.h"

namespace shapelint::infer {
namespace {

// Optimisers take R and T, then `groups` equally long lists (X, G, and the states), and
// return the new X and the new states: output k of group j mirrors input 2 + j*n + k, where
// the output groups are X and the states (inputs skip G, the gradients).
void InferOptimizer(OpContext& ctx, size_t input_groups) {
  if (ctx.num_inputs() < 2) return;
  const size_t variadic = ctx.num_inputs() - 2;
  if (variadic % input_groups != 0) return;
  const size_t n = variadic / input_groups;
  if (n == 0) return;
  for (size_t i = 0; i < ctx.num_outputs(); ++i) {
    const size_t group = i / n;
    const size_t k = i % n;
    // Output group 0 is X (input group 0); output group g >= 1 is input group g + 1.
    const size_t input_group = group == 0 ? 0 : group + 1;
    if (input_group >= input_groups) return;
    const size_t input = 2 + input_group * n + k;
    if (!ctx.has_input(input)) continue;
    ctx.out(i).elem_type = ctx.in(input).elem_type;
    ctx.out(i).shape = ctx.in(input).shape;
  }
}

}  // namespace

// Adagrad-1: R, T, X..., G..., H... -> X_new..., H_new...
void InferAdagrad(OpContext& ctx) { InferOptimizer(ctx, 3); }
// Momentum-1: R, T, X..., G..., V... -> X_new..., V_new...
void InferMomentum(OpContext& ctx) { InferOptimizer(ctx, 3); }
// Adam-1: R, T, X..., G..., V..., H... -> X_new..., V_new..., H_new...
void InferAdam(OpContext& ctx) { InferOptimizer(ctx, 4); }

// Gradient-1: the inputs are the values named by `xs` then `zs`; output i is dY/dxs[i], with
// the shape and type of input i.
void InferGradient(OpContext& ctx) {
  for (size_t i = 0; i < ctx.num_outputs() && i < ctx.num_inputs(); ++i) {
    if (!ctx.has_input(i)) continue;
    ctx.out(i).elem_type = ctx.in(i).elem_type;
    ctx.out(i).shape = ctx.in(i).shape;
  }
}

}  // namespace shapelint::infer
