// lowerNode: one case per op (no default, so a new op in ops.def is a
// build error here until it has a lowering).
#include "kernels/lower.h"

#include "kernels/cost.h"
#include "kernels/lower_common.h"

namespace mgc {

using namespace kern;

bool isAliasOp(const Node& n) { return n.op == Op::Reshape || n.op == Op::Identity; }

namespace {

std::vector<DispatchPlan> lowerOp(const Graph& g, const Node& n) {
  switch (n.op) {
    case Op::Identity: return {};  // alias: the output shares the input's storage
    case Op::Reshape: return {};   // alias
    case Op::Neg: case Op::Abs: case Op::Exp: case Op::Log: case Op::Sqrt: case Op::Reciprocal: case Op::Relu:
    case Op::Sigmoid: case Op::Tanh: case Op::Erf: case Op::Floor: case Op::Ceil: case Op::Round: case Op::Sin:
    case Op::Cos: case Op::Atan: case Op::Sign: case Op::Not: case Op::Softplus: case Op::HardSwish: case Op::LeakyRelu:
    case Op::Elu: case Op::HardSigmoid: case Op::Clip: case Op::Gelu: case Op::Cast: case Op::Add: case Op::Sub:
    case Op::Mul: case Op::Div: case Op::Pow: case Op::Max: case Op::Min: case Op::Equal: case Op::Less:
    case Op::LessOrEqual: case Op::Greater: case Op::GreaterOrEqual: case Op::And: case Op::Or: case Op::Xor:
    case Op::Where:
      if (outType(g, n).numel() == 0) return {};
      return lowerEltwise(g, n);
    case Op::MatMul: return lowerMatMul(g, n);
    case Op::QMatMul: return lowerQMatMul(g, n);
    case Op::QGatedMlp: return lowerQGatedMlp(g, n);
    case Op::Conv: return lowerConv(g, n);
    case Op::MaxPool: return lowerPool(g, n);
    case Op::AvgPool: return lowerPool(g, n);
    case Op::BatchNorm: return lowerBatchNorm(g, n);
    case Op::LayerNorm: case Op::RMSNorm: return lowerLayerNorm(g, n);
    case Op::Moments: return lowerMoments(g, n);
    case Op::Softmax: return lowerSoftmax(g, n);
    case Op::Attention: return lowerAttention(g, n);
    case Op::Rotary: return lowerRotary(g, n);
    case Op::AttentionCache: return lowerAttentionCache(g, n);
    case Op::LogSoftmax: return lowerSoftmax(g, n);
    case Op::ReduceSum: return lowerReduce(g, n, kSum);
    case Op::ReduceMean: return lowerReduce(g, n, kMean);
    case Op::ReduceMax: return lowerReduce(g, n, kMax);
    case Op::ReduceMin: return lowerReduce(g, n, kMin);
    case Op::ReduceProd: return lowerReduce(g, n, kProd);
    case Op::ArgMax: return lowerArgMax(g, n);
    case Op::Transpose: return lowerTranspose(g, n);
    case Op::Concat: return lowerConcat(g, n);
    case Op::Slice: return lowerSlice(g, n);
    case Op::Gather: return lowerGather(g, n);
    case Op::Expand: return lowerExpand(g, n);
    case Op::Pad: return lowerPad(g, n);
    case Op::ConvGradInput: return lowerConvGrad(g, n);
    case Op::ConvGradWeight: return lowerConvGrad(g, n);
    case Op::MaxPoolGrad: return lowerPoolGrad(g, n);
    case Op::AvgPoolGrad: return lowerPoolGrad(g, n);
    case Op::GatherGrad: return lowerGatherGrad(g, n);
    case Op::GatherElements: return lowerGatherElements(g, n);
    case Op::ScatterElements: return lowerScatterElements(g, n);
    case Op::DropoutMask: return lowerDropoutMask(g, n);
    case Op::StateWrite: return lowerStateWrite(g, n);
    case Op::AdamStep: return lowerAdamStep(g, n);
    case Op::FusedEltwise:
      if (outType(g, n).numel() == 0) return {};
      return lowerFusedEltwise(g, n);
    case Op::FusedReduce: return lowerFusedReduce(g, n);
  }
  fail(n, "unknown op");
}

}  // namespace

bool readsWhereItWrites(const std::vector<DispatchPlan>& plans) {
  return plans.size() == 1 && (plans[0].kernel == "eltwise" || plans[0].kernel == "adam");
}

bool initializesOutputFirst(const std::vector<DispatchPlan>& plans) {
  return plans.size() >= 2 && plans[0].kernel == "conv2d_finish" && plans[0].params.size() > kern::kFinishModeWord &&
         plans[0].params[kern::kFinishModeWord] == 0;
}

std::vector<DispatchPlan> lowerNode(const Graph& g, const Node& n) {
  if (int(n.outputs.size()) != opInfo(n.op).numOutputs)
    fail(n, "has " + std::to_string(n.outputs.size()) + " outputs, the op table says " +
                std::to_string(opInfo(n.op).numOutputs));
  std::vector<DispatchPlan> plans = lowerOp(g, n);
  for (DispatchPlan& d : plans) estimateCost(g, n, d);
  return plans;
}

}  // namespace mgc
