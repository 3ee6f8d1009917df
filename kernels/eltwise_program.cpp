#include "kernels/eltwise_program.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "kernels/lower_common.h"

namespace mgc {

using kern::f32Bits;
using kern::fail;

void EltwiseProgram::emit(EwOp op, int dst, int a, int b, int c, uint32_t imm0, uint32_t imm1) {
  code.push_back(EwInstr{op, uint8_t(dst), uint8_t(a), uint8_t(b), uint8_t(c), imm0, imm1});
}

namespace {

int32_t clampToI32(double v) {
  if (std::isnan(v)) return 0;
  if (v <= double(std::numeric_limits<int32_t>::min())) return std::numeric_limits<int32_t>::min();
  if (v >= double(std::numeric_limits<int32_t>::max())) return std::numeric_limits<int32_t>::max();
  return int32_t(v);
}

// A float-only op: integer inputs go through f32 and come back truncated,
// as the reference evaluator does through double.
void floatOp(EltwiseProgram& p, EwOp op, bool intIn, bool intOut, int x, int dst, uint32_t imm0 = 0, uint32_t imm1 = 0) {
  if (intIn) {
    p.emit(EwOp::I2F, dst, x);
    x = dst;
  }
  p.emit(op, dst, x, 0, 0, imm0, imm1);
  if (intOut) p.emit(EwOp::F2I, dst, dst);
}

// Narrow a result kept in f32 / i32 to the external dtype's values.
void roundToExternal(EltwiseProgram& p, DType t, int dst) {
  switch (t) {
    case DType::F16: p.emit(EwOp::F2H, dst, dst); return;
    case DType::I8: p.emit(EwOp::I2I8, dst, dst); return;
    case DType::U8: p.emit(EwOp::I2U8, dst, dst); return;
    case DType::I16: p.emit(EwOp::I2I16, dst, dst); return;
    case DType::U16: p.emit(EwOp::I2U16, dst, dst); return;
    case DType::BF16: p.emit(EwOp::F2BF, dst, dst); return;
    // u32 / u64 keep the low 32 bits, which is what the runtime reads back
    case DType::F32: case DType::F64: case DType::I64: case DType::I32: case DType::Bool:
    case DType::U32: case DType::U64: return;
  }
}

void emitCast(EltwiseProgram& p, bool intIn, DType to, int x, int dst) {
  if (to == DType::Bool) return p.emit(intIn ? EwOp::I2B : EwOp::F2B, dst, x);
  bool intOut = !isFloat(to);
  if (intIn == intOut) p.emit(EwOp::MOV, dst, x);
  else p.emit(intIn ? EwOp::I2F : EwOp::F2I, dst, x);
  roundToExternal(p, to, dst);
}

}  // namespace

void emitNodeOp(EltwiseProgram& p, const Graph& g, const Node& n, const std::vector<int>& in, int dst, int scratch) {
  if (in.size() != n.inputs.size()) fail(n, "register list does not match the inputs");
  DType outT = g.type(n.outputs.at(0)).dtype;
  bool iIn = !kern::isDeviceFloat(g.type(n.inputs.at(0)).dtype), iOut = !kern::isDeviceFloat(outT);
  int a = in[0], b = in.size() > 1 ? in[1] : 0;
  auto pick = [&](EwOp f, EwOp i) { return iIn ? i : f; };
  switch (n.op) {
    case Op::Identity: p.emit(EwOp::MOV, dst, a); return;
    case Op::Neg: p.emit(pick(EwOp::NEG_F, EwOp::NEG_I), dst, a); break;
    case Op::Abs: p.emit(pick(EwOp::ABS_F, EwOp::ABS_I), dst, a); break;
    case Op::Relu: p.emit(pick(EwOp::RELU_F, EwOp::RELU_I), dst, a); break;
    case Op::Sign: p.emit(pick(EwOp::SIGN_F, EwOp::SIGN_I), dst, a); break;
    case Op::Exp: floatOp(p, EwOp::EXP, iIn, iOut, a, dst); break;
    case Op::Log: floatOp(p, EwOp::LOG, iIn, iOut, a, dst); break;
    case Op::Sqrt: floatOp(p, EwOp::SQRT, iIn, iOut, a, dst); break;
    case Op::Reciprocal: floatOp(p, EwOp::RECIP, iIn, iOut, a, dst); break;
    case Op::Sigmoid: floatOp(p, EwOp::SIGMOID, iIn, iOut, a, dst); break;
    case Op::Tanh: floatOp(p, EwOp::TANH, iIn, iOut, a, dst); break;
    case Op::Erf: floatOp(p, EwOp::ERF, iIn, iOut, a, dst); break;
    case Op::Floor: floatOp(p, EwOp::FLOOR, iIn, iOut, a, dst); break;
    case Op::Ceil: floatOp(p, EwOp::CEIL, iIn, iOut, a, dst); break;
    case Op::Round: floatOp(p, EwOp::ROUND, iIn, iOut, a, dst); break;
    case Op::Sin: floatOp(p, EwOp::SIN, iIn, iOut, a, dst); break;
    case Op::Cos: floatOp(p, EwOp::COS, iIn, iOut, a, dst); break;
    case Op::Atan: floatOp(p, EwOp::ATAN, iIn, iOut, a, dst); break;
    case Op::Softplus: floatOp(p, EwOp::SOFTPLUS, iIn, iOut, a, dst); break;
    case Op::HardSwish: floatOp(p, EwOp::HARD_SWISH, iIn, iOut, a, dst); break;
    case Op::LeakyRelu: floatOp(p, EwOp::LEAKY_RELU, iIn, iOut, a, dst, f32Bits(n.f("alpha", 0.01))); break;
    case Op::Elu: floatOp(p, EwOp::ELU, iIn, iOut, a, dst, f32Bits(n.f("alpha", 1.0))); break;
    case Op::HardSigmoid:
      floatOp(p, EwOp::HARD_SIGMOID, iIn, iOut, a, dst, f32Bits(n.f("alpha", 0.2)), f32Bits(n.f("beta", 0.5)));
      break;
    case Op::Gelu: floatOp(p, n.i("approximate", 0) ? EwOp::GELU_TANH : EwOp::GELU_ERF, iIn, iOut, a, dst); break;
    case Op::Not: p.emit(EwOp::NOT, dst, a); return;
    case Op::Clip: {
      double lo = n.f("min", -INFINITY), hi = n.f("max", INFINITY);
      if (iIn) p.emit(EwOp::CLIP_I, dst, a, 0, 0, uint32_t(clampToI32(std::ceil(lo))), uint32_t(clampToI32(std::floor(hi))));
      else p.emit(EwOp::CLIP_F, dst, a, 0, 0, f32Bits(lo), f32Bits(hi));
      return;
    }
    case Op::Cast: emitCast(p, iIn, outT, a, dst); return;
    case Op::Add: p.emit(pick(EwOp::ADD_F, EwOp::ADD_I), dst, a, b); break;
    case Op::Sub: p.emit(pick(EwOp::SUB_F, EwOp::SUB_I), dst, a, b); break;
    case Op::Mul: p.emit(pick(EwOp::MUL_F, EwOp::MUL_I), dst, a, b); break;
    case Op::Div: p.emit(pick(EwOp::DIV_F, EwOp::DIV_I), dst, a, b); break;
    case Op::Max: p.emit(pick(EwOp::MAX_F, EwOp::MAX_I), dst, a, b); break;
    case Op::Min: p.emit(pick(EwOp::MIN_F, EwOp::MIN_I), dst, a, b); break;
    case Op::Pow: {
      bool iExp = !kern::isDeviceFloat(g.type(n.inputs.at(1)).dtype);
      if (iIn && iExp) {
        p.emit(EwOp::POW_I, dst, a, b);
      } else if (iIn) {  // int base, float exponent: through f32, truncated
        p.emit(EwOp::I2F, scratch, a);
        p.emit(EwOp::POW_F, dst, scratch, b);
        p.emit(EwOp::F2I, dst, dst);
      } else if (iExp) {
        p.emit(EwOp::I2F, scratch, b);
        p.emit(EwOp::POW_F, dst, a, scratch);
      } else {
        p.emit(EwOp::POW_F, dst, a, b);
      }
      break;
    }
    case Op::Equal: p.emit(pick(EwOp::EQ_F, EwOp::EQ_I), dst, a, b); return;
    case Op::Less: p.emit(pick(EwOp::LT_F, EwOp::LT_I), dst, a, b); return;
    case Op::LessOrEqual: p.emit(pick(EwOp::LE_F, EwOp::LE_I), dst, a, b); return;
    case Op::Greater: p.emit(pick(EwOp::GT_F, EwOp::GT_I), dst, a, b); return;
    case Op::GreaterOrEqual: p.emit(pick(EwOp::GE_F, EwOp::GE_I), dst, a, b); return;
    case Op::And: case Op::Or: case Op::Xor: {
      EwOp op = n.op == Op::And ? EwOp::AND : n.op == Op::Or ? EwOp::OR : EwOp::XOR;
      if (!iIn) {  // float truth values: -0.0 is false, so compare, not test bits
        p.emit(EwOp::F2B, scratch, a);
        p.emit(EwOp::F2B, dst, b);
        p.emit(op, dst, scratch, dst);
      } else {
        p.emit(op, dst, a, b);
      }
      return;
    }
    case Op::Where: p.emit(EwOp::WHERE, dst, a, in.at(1), in.at(2)); return;
    case Op::MatMul: case Op::Conv: case Op::MaxPool: case Op::AvgPool: case Op::BatchNorm: case Op::LayerNorm: case Op::RMSNorm: case Op::Moments:
    case Op::Softmax: case Op::LogSoftmax: case Op::ReduceSum: case Op::ReduceMean: case Op::ReduceMax:
    case Op::ReduceMin: case Op::ReduceProd: case Op::ArgMax: case Op::Reshape: case Op::Transpose: case Op::Concat:
    case Op::Slice: case Op::Gather: case Op::Expand: case Op::Pad: case Op::ConvGradInput: case Op::ConvGradWeight:
    case Op::MaxPoolGrad: case Op::AvgPoolGrad: case Op::GatherGrad: case Op::GatherElements:
    case Op::ScatterElements: case Op::DropoutMask: case Op::StateWrite: case Op::QMatMul: case Op::Attention: case Op::Rotary:
    case Op::AttentionCache: case Op::QGatedMlp:
    case Op::FusedEltwise: case Op::FusedReduce: case Op::AdamStep:
      fail(n, "not an elementwise op");
  }
  roundToExternal(p, outT, dst);
}

void writeEltwiseProgram(const Node& n, const EltwiseProgram& prog, std::vector<uint32_t>& params, size_t at) {
  using P = EltwiseProgram;
  if (prog.code.empty() || int(prog.code.size()) > P::kMaxInstrs)
    fail(n, "eltwise program has " + std::to_string(prog.code.size()) + " instructions (1.." +
                std::to_string(P::kMaxInstrs) + ")");
  params.resize(std::max(params.size(), at + 3 * prog.code.size()), 0);
  for (size_t j = 0; j < prog.code.size(); ++j) {
    const EwInstr& in = prog.code[j];
    for (int r : {in.dst, in.a, in.b, in.c})
      if (r >= P::kMaxRegs) fail(n, "eltwise register " + std::to_string(r) + " out of range");
    params[at + 3 * j] = uint32_t(in.op) | uint32_t(in.dst) << 8 | uint32_t(in.a) << 12 | uint32_t(in.b) << 16 |
                         uint32_t(in.c) << 20;
    params[at + 3 * j + 1] = in.imm0;
    params[at + 3 * j + 2] = in.imm1;
  }
}

std::vector<uint32_t> encodeEltwiseParams(const Node& n, const EltwiseProgram& prog, const Shape& out,
                                          const std::vector<Shape>& inputs) {
  using P = EltwiseProgram;
  if (inputs.empty() || int(inputs.size()) > P::kMaxInputs || int(inputs.size()) != prog.numInputs)
    fail(n, "eltwise takes 1.." + std::to_string(P::kMaxInputs) + " inputs, got " + std::to_string(inputs.size()));
  if (prog.code.empty() || int(prog.code.size()) > P::kMaxInstrs)
    fail(n, "eltwise program has " + std::to_string(prog.code.size()) + " instructions (1.." +
                std::to_string(P::kMaxInstrs) + ")");
  kern::StridedDims walk;
  walk.dims = out;
  uint32_t linearMask = 0;
  for (size_t k = 0; k < inputs.size(); ++k) {
    walk.strides.push_back(kern::broadcastStrides(inputs[k], out));
    if (numel(inputs[k]) == numel(out)) linearMask |= 1u << k;  // same elements, same order
  }
  walk.coalesce();
  constexpr size_t kDivisors = EW_PARAM_DIVISORS, kProgram = EW_PARAM_PROGRAM;  // eltwise.comp's params layout
  std::vector<uint32_t> params(kProgram + 3 * prog.code.size(), 0);
  params[0] = kern::u32(n, numel(out), "element count");
  params[1] = uint32_t(inputs.size());
  params[2] = uint32_t(prog.code.size());
  params[3] = uint32_t(prog.outReg);
  params[4] = linearMask;
  std::vector<size_t> at;
  for (size_t k = 0; k < inputs.size(); ++k) at.push_back(11 + 6 * k);
  walk.write(n, params, 5, at, P::kMaxRank);
  // Index walks divide by the output dims; fast divisors are exact below 2^31.
  if (numel(out) < (int64_t(1) << 31))
    for (int d = 0; d < P::kMaxRank; ++d) {
      const kern::FastDivisor f = kern::fastDivisor(params[5 + size_t(d)]);
      params[kDivisors + 2 * size_t(d)] = f.mul;
      params[kDivisors + 2 * size_t(d) + 1] = f.shift;
    }
  writeEltwiseProgram(n, prog, params, kProgram);
  return params;
}

}  // namespace mgc
