// Inference functions of the op families, one source file per family. The table that maps
// op types to them is in registry.cc.
#ifndef SHAPELINT_LIB_INFER_OPS_H_
#define SHAPELINT_LIB_INFER_OPS_H_

#include "infer/op_context.h"

namespace shapelint::infer {

// constant_ops.cc
void InferConstant(OpContext& ctx);
void InferIdentity(OpContext& ctx);
void InferCast(OpContext& ctx);

// elementwise.cc
void InferUnary(OpContext& ctx);
void InferElementwise(OpContext& ctx);
void InferWhere(OpContext& ctx);

// shape_ops.cc
void InferShape(OpContext& ctx);
void InferGather(OpContext& ctx);
void InferUnsqueeze(OpContext& ctx);
void InferSqueeze(OpContext& ctx);
void InferConcat(OpContext& ctx);
void InferSlice(OpContext& ctx);
void InferReshape(OpContext& ctx);
void InferFlatten(OpContext& ctx);
void InferTranspose(OpContext& ctx);

// linalg.cc
void InferMatMul(OpContext& ctx);
void InferGemm(OpContext& ctx);

// conv_pool.cc
void InferConv(OpContext& ctx);
void InferPool(OpContext& ctx);
void InferGlobalPool(OpContext& ctx);

// normalization.cc
void InferSameShape(OpContext& ctx);
void InferBatchNormalization(OpContext& ctx);
void InferDropout(OpContext& ctx);

}  // namespace shapelint::infer

#endif  // SHAPELINT_LIB_INFER_OPS_H_
