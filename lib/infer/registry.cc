// One line per op type: which inference function models it.
#include <string_view>

#include "absl/container/flat_hash_map.h"
#include "infer/ops.h"
#include "shapelint/ir/name_hash.h"

namespace shapelint::infer {
namespace {

struct OpEntry {
  std::string_view op_type;
  OpInferFn fn;
};

constexpr OpEntry kOps[] = {
    {"Constant", InferConstant},
    {"Identity", InferIdentity},
    {"Cast", InferCast},
    // Unary elementwise
    {"Abs", InferUnary},
    {"Acos", InferUnary},
    {"Acosh", InferUnary},
    {"Asin", InferUnary},
    {"Asinh", InferUnary},
    {"Atan", InferUnary},
    {"Atanh", InferUnary},
    {"Ceil", InferUnary},
    {"Celu", InferUnary},
    {"Cos", InferUnary},
    {"Cosh", InferUnary},
    {"Elu", InferUnary},
    {"Erf", InferUnary},
    {"Exp", InferUnary},
    {"Floor", InferUnary},
    {"Gelu", InferUnary},
    {"HardSigmoid", InferUnary},
    {"HardSwish", InferUnary},
    {"IsInf", InferUnary},
    {"IsNaN", InferUnary},
    {"LeakyRelu", InferUnary},
    {"Log", InferUnary},
    {"Mish", InferUnary},
    {"Neg", InferUnary},
    {"Not", InferUnary},
    {"Reciprocal", InferUnary},
    {"Relu", InferUnary},
    {"Round", InferUnary},
    {"Selu", InferUnary},
    {"Shrink", InferUnary},
    {"Sigmoid", InferUnary},
    {"Sign", InferUnary},
    {"Sin", InferUnary},
    {"Sinh", InferUnary},
    {"Softplus", InferUnary},
    {"Softsign", InferUnary},
    {"Swish", InferUnary},
    {"Sqrt", InferUnary},
    {"Tan", InferUnary},
    {"Tanh", InferUnary},
    {"ThresholdedRelu", InferUnary},
    {"BitwiseNot", InferUnary},
    // N-ary elementwise with multidirectional broadcasting
    {"Add", InferElementwise},
    {"Sub", InferElementwise},
    {"Mul", InferElementwise},
    {"Div", InferElementwise},
    {"Pow", InferElementwise},
    {"Mod", InferElementwise},
    {"Equal", InferElementwise},
    {"Less", InferElementwise},
    {"Greater", InferElementwise},
    {"LessOrEqual", InferElementwise},
    {"GreaterOrEqual", InferElementwise},
    {"And", InferElementwise},
    {"Or", InferElementwise},
    {"Xor", InferElementwise},
    {"Min", InferElementwise},
    {"Max", InferElementwise},
    {"Sum", InferElementwise},
    {"Mean", InferElementwise},
    {"BitShift", InferElementwise},
    {"BitwiseAnd", InferElementwise},
    {"BitwiseOr", InferElementwise},
    {"BitwiseXor", InferElementwise},
    // The slope broadcasts to X unidirectionally (by channel before opset 7): X's shape.
    {"PRelu", InferSameShape},
    {"Where", InferWhere},
    // Shape manipulation
    {"Shape", InferShape},
    {"Gather", InferGather},
    {"Unsqueeze", InferUnsqueeze},
    {"Squeeze", InferSqueeze},
    {"Concat", InferConcat},
    {"Slice", InferSlice},
    {"Reshape", InferReshape},
    {"Flatten", InferFlatten},
    {"Transpose", InferTranspose},
    // Linear algebra
    {"MatMul", InferMatMul},
    {"Gemm", InferGemm},
    // Convolution and pooling
    {"Conv", InferConv},
    {"AveragePool", InferPool},
    {"MaxPool", InferPool},
    {"LpPool", InferPool},
    {"GlobalAveragePool", InferGlobalPool},
    {"GlobalMaxPool", InferGlobalPool},
    {"GlobalLpPool", InferGlobalPool},
    // Ops that keep their input's shape (same_shape_ops.cc), and normalisations
    // (normalization_ops.cc)
    {"Softmax", InferSameShape},
    {"LogSoftmax", InferSameShape},
    {"Hardmax", InferSameShape},
    {"LRN", InferSameShape},
    {"InstanceNormalization", InferInstanceNormalization},
    {"LpNormalization", InferSameShape},
    {"MeanVarianceNormalization", InferSameShape},
    {"BatchNormalization", InferBatchNormalization},
    {"Dropout", InferDropout},
    // Convolution relatives (conv_transpose.cc, conv_variants.cc) and windows back into an image
    // (unpool_ops.cc)
    {"ConvTranspose", InferConvTranspose},
    {"ConvInteger", InferConvInteger},
    {"QLinearConv", InferQLinearConv},
    {"DeformConv", InferDeformConv},
    {"MaxUnpool", InferMaxUnpool},
    {"Col2Im", InferCol2Im},
    // Quantisation (quantize_ops.cc)
    {"QuantizeLinear", InferQuantizeLinear},
    {"DequantizeLinear", InferDequantizeLinear},
    {"DynamicQuantizeLinear", InferDynamicQuantizeLinear},
    {"MatMulInteger", InferMatMulInteger},
    {"QLinearMatMul", InferQLinearMatMul},
    // Normalisations with statistics or parameter checks (normalization_ops.cc); ORT registers
    // LayerNormalization (before opset 17) and SimplifiedLayerNormalization in this domain.
    {"LayerNormalization", InferLayerNormalization},
    {"SimplifiedLayerNormalization", InferSimplifiedLayerNormalization},
    {"RMSNormalization", InferRMSNormalization},
    {"GroupNormalization", InferGroupNormalization},
    // Regions and sampling (spatial_ops.cc)
    {"MaxRoiPool", InferMaxRoiPool},
    {"RoiAlign", InferRoiAlign},
    {"GridSample", InferGridSample},
    {"AffineGrid", InferAffineGrid},
    {"NonMaxSuppression", InferNonMaxSuppression},
    // Recurrent layers (rnn_ops.cc)
    {"RNN", InferRNN},
    {"GRU", InferGRU},
    {"LSTM", InferLSTM},
    // Attention (attention_ops.cc)
    {"Attention", InferAttention},
    {"RotaryEmbedding", InferRotaryEmbedding},
    {"TensorScatter", InferTensorScatter},
    {"LinearAttention", InferLinearAttention},
    {"CausalConvWithState", InferCausalConvWithState},
    // Signal processing (signal_ops.cc)
    {"DFT", InferDFT},
    {"STFT", InferSTFT},
    {"HannWindow", InferWindow},
    {"HammingWindow", InferWindow},
    {"BlackmanWindow", InferWindow},
    {"MelWeightMatrix", InferMelWeightMatrix},
    // Random generators (random_ops.cc)
    {"Bernoulli", InferRandomLike},
    {"RandomNormalLike", InferRandomLike},
    {"RandomUniformLike", InferRandomLike},
    {"RandomNormal", InferRandom},
    {"RandomUniform", InferRandom},
    {"Multinomial", InferMultinomial},
    // Losses (loss_ops.cc)
    {"SoftmaxCrossEntropyLoss", InferSoftmaxCrossEntropyLoss},
    {"NegativeLogLikelihoodLoss", InferNegativeLogLikelihoodLoss},
    // Text (text_ops.cc)
    {"StringNormalizer", InferStringNormalizer},
    {"TfIdfVectorizer", InferTfIdfVectorizer},
    // Tensor rearrangement and resizing (tensor_ops.cc)
    {"Expand", InferExpand},
    {"Tile", InferTile},
    {"Pad", InferPad},
    {"Split", InferSplit},
    {"DepthToSpace", InferDepthToSpace},
    {"SpaceToDepth", InferSpaceToDepth},
    {"Resize", InferResize},
    {"Upsample", InferUpsample},
    {"CenterCropPad", InferCenterCropPad},
    {"CastLike", InferCastLike},
    {"Clip", InferClip},
    {"CumSum", InferCumSum},
    {"CumProd", InferSameShape},  // not CumSum's: that one also folds running sums
    {"BitCast", InferBitCast},
    {"SwiGLU", InferSwiGlu},
    {"ReverseSequence", InferSameShape},
    {"Trilu", InferSameShape},
    // Generators (generator_ops.cc)
    {"Range", InferRange},
    {"ConstantOfShape", InferConstantOfShape},
    {"Size", InferSize},
    {"EyeLike", InferEyeLike},
    {"OneHot", InferOneHot},
    // Indexing and data-dependent sizes (index_ops.cc)
    {"GatherElements", InferGatherElements},
    {"GatherND", InferGatherND},
    {"ScatterElements", InferScatterElements},
    {"Scatter", InferScatterElements},
    {"ScatterND", InferScatterND},
    {"Compress", InferCompress},
    {"NonZero", InferNonZero},
    {"TopK", InferTopK},
    {"Unique", InferUnique},
    // Reductions and contractions (reduce_ops.cc)
    {"ReduceSum", InferReduce},
    {"ReduceMean", InferReduce},
    {"ReduceMax", InferReduce},
    {"ReduceMin", InferReduce},
    {"ReduceProd", InferReduce},
    {"ReduceL1", InferReduce},
    {"ReduceL2", InferReduce},
    {"ReduceLogSum", InferReduce},
    {"ReduceLogSumExp", InferReduce},
    {"ReduceSumSquare", InferReduce},
    {"ArgMax", InferArgMinMax},
    {"ArgMin", InferArgMinMax},
    {"Einsum", InferEinsum},
    {"Det", InferDet},
    // Sequences (sequence_ops.cc)
    {"SequenceEmpty", InferSequenceEmpty},
    {"SequenceConstruct", InferSequenceConstruct},
    {"SequenceInsert", InferSequenceInsert},
    {"SequenceErase", InferSequenceErase},
    {"SequenceAt", InferSequenceAt},
    {"SequenceLength", InferSequenceLength},
    {"SplitToSequence", InferSplitToSequence},
    {"ConcatFromSequence", InferConcatFromSequence},
    {"Optional", InferOptional},
    {"OptionalGetElement", InferOptionalGetElement},
    {"OptionalHasElement", InferOptionalHasElement},
    // Strings and images (text_ops.cc, elementwise.cc)
    {"RegexFullMatch", InferUnary},
    {"StringConcat", InferElementwise},
    {"StringSplit", InferStringSplit},
    {"ImageDecoder", InferImageDecoder},
};

// com.microsoft contrib ops (microsoft_ops.cc), as ONNX Runtime's optimisers write them.
constexpr OpEntry kMicrosoftOps[] = {
    {"Attention", InferMsAttention},
    {"BiasGelu", InferMsSameShape},
    {"EmbedLayerNormalization", InferMsEmbedLayerNormalization},
    {"FastGelu", InferMsSameShape},
    {"GatherBlockQuantized", InferMsGatherBlockQuantized},
    {"Gelu", InferMsSameShape},
    {"GroupQueryAttention", InferMsGroupQueryAttention},
    {"LayerNormalization", InferLayerNormalization},
    {"MatMulNBits", InferMsMatMulNBits},
    {"MultiHeadAttention", InferMsMultiHeadAttention},
    {"QuickGelu", InferMsSameShape},
    {"RotaryEmbedding", InferMsSameShape},
    {"SimplifiedLayerNormalization", InferSimplifiedLayerNormalization},
    {"SkipLayerNormalization", InferMsSkipLayerNormalization},
    {"SkipSimplifiedLayerNormalization", InferMsSkipSimplifiedLayerNormalization},
};

// ai.onnx.preview.training (training_ops.cc).
constexpr OpEntry kTrainingOps[] = {
    {"Adagrad", InferAdagrad},
    {"Adam", InferAdam},
    {"Gradient", InferGradient},
    {"Momentum", InferMomentum},
};

// ai.onnx.preview.
constexpr OpEntry kPreviewOps[] = {
    {"FlexAttention", InferFlexAttention},
};

// ai.onnx.ml (ml_ops.cc): the ops ONNX's node cases use.
constexpr OpEntry kMlOps[] = {
    {"ArrayFeatureExtractor", InferArrayFeatureExtractor},
    {"Binarizer", InferSameShape},
    {"LabelEncoder", InferLabelEncoder},
    {"TreeEnsemble", InferTreeEnsemble},
};

template <size_t kCount>
OpInferFn Lookup(const OpEntry (&entries)[kCount], std::string_view op_type) {
  for (const OpEntry& e : entries) {
    if (e.op_type == op_type) return e.fn;
  }
  return nullptr;
}

}  // namespace

OpInferFn FindOp(std::string_view op_type) {
  static const auto* table = [] {
    auto* t = new ir::NameMap<OpInferFn>();
    for (const OpEntry& e : kOps) t->emplace(e.op_type, e.fn);
    return t;
  }();
  auto it = table->find(op_type);
  return it == table->end() ? nullptr : it->second;
}

OpInferFn FindOp(std::string_view domain, std::string_view op_type) {
  if (domain.empty() || domain == "ai.onnx") return FindOp(op_type);
  // The contrib tables are short: a linear scan costs less than building a map.
  if (domain == "com.microsoft") return Lookup(kMicrosoftOps, op_type);
  if (domain == "ai.onnx.preview.training") return Lookup(kTrainingOps, op_type);
  if (domain == "ai.onnx.preview") return Lookup(kPreviewOps, op_type);
  if (domain == "ai.onnx.ml") return Lookup(kMlOps, op_type);
  return nullptr;
}

}  // namespace shapelint::infer
