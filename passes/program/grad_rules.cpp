// The gradient rule of every op: one case each, no default, so a new op in
// ops.def does not build until it has a rule (or an explicit refusal).
#include "passes/program/grad_builder.h"

namespace mgc::grad {

Grads gradOf(Emitter& e, const Node& n, ValueId dy, const std::vector<bool>& need) {
  switch (n.op) {
    case Op::Identity: return unaryGrad(e, n, dy);
    case Op::Neg: return unaryGrad(e, n, dy);
    case Op::Abs: return unaryGrad(e, n, dy);
    case Op::Exp: return unaryGrad(e, n, dy);
    case Op::Log: return unaryGrad(e, n, dy);
    case Op::Sqrt: return unaryGrad(e, n, dy);
    case Op::Reciprocal: return unaryGrad(e, n, dy);
    case Op::Relu: return unaryGrad(e, n, dy);
    case Op::Sigmoid: return unaryGrad(e, n, dy);
    case Op::Tanh: return unaryGrad(e, n, dy);
    case Op::Erf: return unaryGrad(e, n, dy);
    case Op::Sin: return unaryGrad(e, n, dy);
    case Op::Cos: return unaryGrad(e, n, dy);
    case Op::Atan: return unaryGrad(e, n, dy);
    case Op::Softplus: return unaryGrad(e, n, dy);
    case Op::HardSwish: return unaryGrad(e, n, dy);
    case Op::LeakyRelu: return unaryGrad(e, n, dy);
    case Op::Elu: return unaryGrad(e, n, dy);
    case Op::HardSigmoid: return unaryGrad(e, n, dy);
    case Op::Clip: return unaryGrad(e, n, dy);
    case Op::Gelu: return unaryGrad(e, n, dy);
    case Op::Cast: return unaryGrad(e, n, dy);
    // Piecewise constant: zero gradient almost everywhere (PyTorch's choice).
    case Op::Floor: return {kNoValue};
    case Op::Ceil: return {kNoValue};
    case Op::Round: return {kNoValue};
    case Op::Sign: return {kNoValue};
    case Op::Add: return binaryGrad(e, n, dy, need);
    case Op::Sub: return binaryGrad(e, n, dy, need);
    case Op::Mul: return binaryGrad(e, n, dy, need);
    case Op::Div: return binaryGrad(e, n, dy, need);
    case Op::Pow: return binaryGrad(e, n, dy, need);
    case Op::Max: return binaryGrad(e, n, dy, need);
    case Op::Min: return binaryGrad(e, n, dy, need);
    // Bool results: no gradient ever reaches them (only float values are
    // active), so these cases are never asked; refuse loudly if they are.
    case Op::Not: case Op::Equal: case Op::Less: case Op::LessOrEqual: case Op::Greater:
    case Op::GreaterOrEqual: case Op::And: case Op::Or: case Op::Xor:
      noGradient(n, "has a bool result and no gradient");
    case Op::ArgMax: noGradient(n, "has an integer result and no gradient");
    case Op::Where: return whereGrad(e, n, dy, need);
    case Op::MatMul: return matMulGrad(e, n, dy, need);
    case Op::Conv: return convGrad(e, n, dy, need);
    case Op::MaxPool: return poolGrad(e, n, dy);
    case Op::AvgPool: return poolGrad(e, n, dy);
    case Op::BatchNorm: return batchNormGrad(e, n, dy, need);
    case Op::LayerNorm:
      if (n.inputs.size() > 3 && n.inputs[3] != kNoValue)
        noGradient(n, "layer_norm over chunk moments has no gradient rule (split-long-rows builds it after autodiff)");
      return layerNormGrad(e, n, dy, need);
    case Op::RMSNorm: return rmsNormGrad(e, n, dy, need);
    case Op::Softmax: return softmaxGrad(e, n, dy);
    case Op::LogSoftmax: return softmaxGrad(e, n, dy);
    case Op::ReduceSum: return reduceGrad(e, n, dy);
    case Op::ReduceMean: return reduceGrad(e, n, dy);
    case Op::ReduceMax: return reduceGrad(e, n, dy);
    case Op::ReduceMin: return reduceGrad(e, n, dy);
    case Op::ReduceProd: noGradient(n, "ReduceProd has no gradient rule (zeros make prod/x undefined)");
    case Op::Reshape: return shapeGrad(e, n, dy);
    case Op::Transpose: return shapeGrad(e, n, dy);
    case Op::Expand: return shapeGrad(e, n, dy);
    case Op::Pad: return shapeGrad(e, n, dy);
    case Op::Concat: return concatGrad(e, n, dy, need);
    case Op::Slice: return sliceGrad(e, n, dy);
    case Op::Gather: return gatherGrad(e, n, dy);
    // A transposed convolution (ConvTranspose imports as conv_grad_input).
    case Op::ConvGradInput: return convGradInputGrad(e, n, dy, need);
    case Op::ConvGradWeight: case Op::MaxPoolGrad: case Op::AvgPoolGrad: case Op::GatherGrad:
      noGradient(n, "gradient ops have no gradient (no second-order differentiation)");
    case Op::GatherElements: return gatherElementsGrad(e, n, dy);
    case Op::ScatterElements: return scatterElementsGrad(e, n, dy, need);
    // The input is a step counter, never a function of the parameters: no
    // gradient flows through the mask (x * mask differentiates via Mul).
    case Op::DropoutMask: return {kNoValue};
    // A write into persistent state (a KV cache) is not part of what training
    // differentiates; the value would need a run-time-offset slice of dy.
    case Op::StateWrite: noGradient(n, "state_write has no gradient (a state write cannot be differentiated)");
    case Op::FusedEltwise: noGradient(n, "fused_eltwise has no gradient rule (autodiff runs before fusion)");
    case Op::FusedReduce: noGradient(n, "fused_reduce has no gradient rule (autodiff runs before fusion)");
    case Op::Moments: noGradient(n, "moments has no gradient rule (split-long-rows builds it after autodiff)");
    // Packed low-bit weights are for inference; training keeps f32 weights.
    case Op::QMatMul: noGradient(n, "qmatmul has no gradient (packed low-bit weights are for inference: train in f32)");
    case Op::Rotary: noGradient(n, "rotary (the fused kernel) has no gradient rule: it is built for generation entry points, which do not train");
    case Op::AdamStep: noGradient(n, "adam_step (the optimizer's update) has no gradient");
    case Op::Attention: noGradient(n, "attention (the fused kernel) has no gradient rule: it is built for generation entry points, which do not train");
    case Op::AttentionCache: noGradient(n, "attention_cache has no gradient (it writes a KV cache: generation entry points do not train)");
    case Op::QGatedMlp: noGradient(n, "qgated_mlp has no gradient (packed low-bit weights are for inference: train in f32)");
  }
  noGradient(n, "unknown op");
}

}  // namespace mgc::grad
