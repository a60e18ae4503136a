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

// same_shape_ops.cc
void InferSameShape(OpContext& ctx);
void InferDropout(OpContext& ctx);

// conv_transpose.cc
void InferConvTranspose(OpContext& ctx);

// conv_variants.cc
void InferConvInteger(OpContext& ctx);
void InferQLinearConv(OpContext& ctx);
void InferDeformConv(OpContext& ctx);

// unpool_ops.cc
void InferMaxUnpool(OpContext& ctx);
void InferCol2Im(OpContext& ctx);

// quantize_ops.cc
void InferQuantizeLinear(OpContext& ctx);
void InferDequantizeLinear(OpContext& ctx);
void InferDynamicQuantizeLinear(OpContext& ctx);
void InferMatMulInteger(OpContext& ctx);
void InferQLinearMatMul(OpContext& ctx);

// normalization_ops.cc
void InferBatchNormalization(OpContext& ctx);
void InferLayerNormalization(OpContext& ctx);
void InferSimplifiedLayerNormalization(OpContext& ctx);
void InferRMSNormalization(OpContext& ctx);
void InferGroupNormalization(OpContext& ctx);
void InferInstanceNormalization(OpContext& ctx);

// spatial_ops.cc
void InferMaxRoiPool(OpContext& ctx);
void InferRoiAlign(OpContext& ctx);
void InferGridSample(OpContext& ctx);
void InferAffineGrid(OpContext& ctx);
void InferNonMaxSuppression(OpContext& ctx);

// rnn_ops.cc
void InferRNN(OpContext& ctx);
void InferGRU(OpContext& ctx);
void InferLSTM(OpContext& ctx);

// attention_ops.cc
void InferAttention(OpContext& ctx);
void InferTensorScatter(OpContext& ctx);
void InferLinearAttention(OpContext& ctx);
void InferFlexAttention(OpContext& ctx);
void InferCausalConvWithState(OpContext& ctx);
void InferSwiGlu(OpContext& ctx);
void InferBitCast(OpContext& ctx);
// ai.onnx.ml (ml_ops.cc)
void InferArrayFeatureExtractor(OpContext& ctx);
void InferLabelEncoder(OpContext& ctx);
void InferTreeEnsemble(OpContext& ctx);
void InferRotaryEmbedding(OpContext& ctx);

// signal_ops.cc
void InferDFT(OpContext& ctx);
void InferSTFT(OpContext& ctx);
void InferWindow(OpContext& ctx);
void InferMelWeightMatrix(OpContext& ctx);

// random_ops.cc
void InferRandomLike(OpContext& ctx);
void InferRandom(OpContext& ctx);
void InferMultinomial(OpContext& ctx);

// sequence_ops.cc
void InferSequenceEmpty(OpContext& ctx);
void InferSequenceConstruct(OpContext& ctx);
void InferSequenceInsert(OpContext& ctx);
void InferSequenceErase(OpContext& ctx);
void InferSequenceAt(OpContext& ctx);
void InferSequenceLength(OpContext& ctx);
void InferSplitToSequence(OpContext& ctx);
void InferConcatFromSequence(OpContext& ctx);
void InferOptional(OpContext& ctx);
void InferOptionalGetElement(OpContext& ctx);
void InferOptionalHasElement(OpContext& ctx);
void InferSequenceMap(OpContext& ctx, SubgraphRunner& runner);

// training_ops.cc (ai.onnx.preview.training)
void InferAdagrad(OpContext& ctx);
void InferMomentum(OpContext& ctx);
void InferAdam(OpContext& ctx);
void InferGradient(OpContext& ctx);

// loss_ops.cc
void InferSoftmaxCrossEntropyLoss(OpContext& ctx);
void InferNegativeLogLikelihoodLoss(OpContext& ctx);

// text_ops.cc
void InferStringNormalizer(OpContext& ctx);
void InferTfIdfVectorizer(OpContext& ctx);
void InferStringSplit(OpContext& ctx);
void InferImageDecoder(OpContext& ctx);

// microsoft_ops.cc (com.microsoft)
void InferMsSameShape(OpContext& ctx);
void InferMsSkipLayerNormalization(OpContext& ctx);
void InferMsSkipSimplifiedLayerNormalization(OpContext& ctx);
void InferMsEmbedLayerNormalization(OpContext& ctx);
void InferMsAttention(OpContext& ctx);
void InferMsMultiHeadAttention(OpContext& ctx);
void InferMsGroupQueryAttention(OpContext& ctx);
void InferMsMatMulNBits(OpContext& ctx);
void InferMsGatherBlockQuantized(OpContext& ctx);

// tensor_ops.cc
void InferExpand(OpContext& ctx);
void InferTile(OpContext& ctx);
void InferPad(OpContext& ctx);
void InferSplit(OpContext& ctx);
void InferDepthToSpace(OpContext& ctx);
void InferSpaceToDepth(OpContext& ctx);
void InferResize(OpContext& ctx);
void InferUpsample(OpContext& ctx);
void InferCenterCropPad(OpContext& ctx);
void InferCastLike(OpContext& ctx);
void InferClip(OpContext& ctx);
void InferCumSum(OpContext& ctx);

// generator_ops.cc
void InferRange(OpContext& ctx);
void InferConstantOfShape(OpContext& ctx);
void InferSize(OpContext& ctx);
void InferEyeLike(OpContext& ctx);
void InferOneHot(OpContext& ctx);

// index_ops.cc
void InferGatherElements(OpContext& ctx);
void InferGatherND(OpContext& ctx);
void InferScatterElements(OpContext& ctx);
void InferScatterND(OpContext& ctx);
void InferCompress(OpContext& ctx);
void InferNonZero(OpContext& ctx);
void InferTopK(OpContext& ctx);
void InferUnique(OpContext& ctx);

// reduce_ops.cc
void InferReduce(OpContext& ctx);
void InferArgMinMax(OpContext& ctx);
void InferEinsum(OpContext& ctx);
void InferDet(OpContext& ctx);

}  // namespace shapelint::infer

#endif  // SHAPELINT_LIB_INFER_OPS_H_
