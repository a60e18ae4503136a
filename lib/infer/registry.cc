// One line per op type: which inference function models it.
#include <string_view>

#include "absl/container/flat_hash_map.h"
#include "infer/ops.h"

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
    {"Sqrt", InferUnary},
    {"Tan", InferUnary},
    {"Tanh", InferUnary},
    {"ThresholdedRelu", InferUnary},
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
    {"PRelu", InferElementwise},
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
    // Normalisation and friends that keep their input's shape
    {"Softmax", InferSameShape},
    {"LogSoftmax", InferSameShape},
    {"Hardmax", InferSameShape},
    {"LRN", InferSameShape},
    {"InstanceNormalization", InferSameShape},
    {"LpNormalization", InferSameShape},
    {"MeanVarianceNormalization", InferSameShape},
    {"BatchNormalization", InferBatchNormalization},
    {"Dropout", InferDropout},
};

}  // namespace

OpInferFn FindOp(std::string_view op_type) {
  static const auto* table = [] {
    auto* t = new absl::flat_hash_map<std::string_view, OpInferFn>();
    for (const OpEntry& e : kOps) t->emplace(e.op_type, e.fn);
    return t;
  }();
  auto it = table->find(op_type);
  return it == table->end() ? nullptr : it->second;
}

}  // namespace shapelint::infer
