// The reference evaluator's entry points: one case per op (a new op in
// ops.def is a build error here), and the whole-graph runner.
//
// Elementwise ops are defined right in their case as a double lambda and,
// where the op is exact on integers, an int64 lambda; everything with loops
// lives in eval_nn.cpp / eval_reduce.cpp / eval_shape.cpp.
#include "ir/eval.h"

#include <memory>

#include "ir/epilogue.h"
#include "ir/eval_internal.h"
#include "ir/fused_eltwise.h"
#include "ir/fused_reduce.h"
#include "ir/matmul.h"
#include "ir/qweights.h"

namespace mgc {

using namespace eval;

namespace {

constexpr double kSqrt2 = 1.41421356237309504880;
constexpr double kSqrt2OverPi = 0.79788456080286535588;

double sigmoid(double v) {
  // split by sign so exp never overflows
  if (v >= 0) return 1 / (1 + std::exp(-v));
  double e = std::exp(v);
  return e / (1 + e);
}

double sign(double v) {
  if (std::isnan(v)) return v;
  return v > 0 ? 1 : (v < 0 ? -1 : 0);
}

HostTensor evalOne(const Node& n, const Inputs& in, const TensorType& T) {
  const HostTensor& x = *in[0];
  auto y = [&]() -> const HostTensor& { return *in[1]; };
  auto same = [](int64_t v) { return v; };
  switch (n.op) {
    case Op::Identity: return x;
    case Op::Neg: return unaryExact(x, T, [](double v) { return -v; }, [](int64_t v) { return wrapSub(0, v); });
    case Op::Abs:
      return unaryExact(x, T, [](double v) { return std::fabs(v); }, [](int64_t v) { return v < 0 ? wrapSub(0, v) : v; });
    case Op::Exp: return unaryFloat(x, T, [](double v) { return std::exp(v); });
    case Op::Log: return unaryFloat(x, T, [](double v) { return std::log(v); });
    case Op::Sqrt: return unaryFloat(x, T, [](double v) { return std::sqrt(v); });
    case Op::Reciprocal: return unaryFloat(x, T, [](double v) { return 1 / v; });
    case Op::Relu:  // written so NaN passes through, as in PyTorch
      return unaryExact(x, T, [](double v) { return v < 0 ? 0.0 : v; }, [](int64_t v) { return v < 0 ? 0 : v; });
    case Op::Sigmoid: return unaryFloat(x, T, sigmoid);
    case Op::Tanh: return unaryFloat(x, T, [](double v) { return std::tanh(v); });
    case Op::Erf: return unaryFloat(x, T, [](double v) { return std::erf(v); });
    case Op::Floor: return unaryExact(x, T, [](double v) { return std::floor(v); }, same);
    case Op::Ceil: return unaryExact(x, T, [](double v) { return std::ceil(v); }, same);
    // nearbyint in the default rounding mode rounds half to even
    case Op::Round: return unaryExact(x, T, [](double v) { return std::nearbyint(v); }, same);
    case Op::Sin: return unaryFloat(x, T, [](double v) { return std::sin(v); });
    case Op::Cos: return unaryFloat(x, T, [](double v) { return std::cos(v); });
    case Op::Atan: return unaryFloat(x, T, [](double v) { return std::atan(v); });
    case Op::Sign:
      return unaryExact(x, T, sign, [](int64_t v) -> int64_t { return v > 0 ? 1 : (v < 0 ? -1 : 0); });
    case Op::Not:
      return unaryExact(x, T, [](double v) { return v == 0 ? 1.0 : 0.0; }, [](int64_t v) -> int64_t { return v == 0; });
    case Op::Softplus:  // log(1 + e^v) without overflow
      return unaryFloat(x, T, [](double v) { return v > 0 ? v + std::log1p(std::exp(-v)) : std::log1p(std::exp(v)); });
    case Op::HardSwish:
      return unaryFloat(x, T, [](double v) { return v * std::min(std::max(v + 3, 0.0), 6.0) / 6; });
    case Op::LeakyRelu: {
      double alpha = n.f("alpha", 0.01);
      return unaryFloat(x, T, [alpha](double v) { return v < 0 ? alpha * v : v; });
    }
    case Op::Elu: {
      double alpha = n.f("alpha", 1.0);
      return unaryFloat(x, T, [alpha](double v) { return v < 0 ? alpha * std::expm1(v) : v; });
    }
    case Op::HardSigmoid: {
      double alpha = n.f("alpha", 0.2), beta = n.f("beta", 0.5);
      return unaryFloat(x, T, [=](double v) { return std::max(0.0, std::min(1.0, alpha * v + beta)); });
    }
    case Op::Clip: return evalClip(n, x, T);
    case Op::Gelu:
      if (n.i("approximate", 0) != 0)
        return unaryFloat(x, T, [](double v) { return 0.5 * v * (1 + std::tanh(kSqrt2OverPi * (v + 0.044715 * v * v * v))); });
      return unaryFloat(x, T, [](double v) { return 0.5 * v * (1 + std::erf(v / kSqrt2)); });
    case Op::Cast: return evalCast(x, T);
    case Op::Add: return binaryArith(x, y(), T, [](double a, double b) { return a + b; }, wrapAdd);
    case Op::Sub: return binaryArith(x, y(), T, [](double a, double b) { return a - b; }, wrapSub);
    case Op::Mul: return binaryArith(x, y(), T, [](double a, double b) { return a * b; }, wrapMul);
    case Op::Div: return evalDiv(n, x, y(), T);
    case Op::Pow: return evalPow(n, x, y(), T);
    case Op::Max: return binaryArith(x, y(), T, nanMax, [](int64_t a, int64_t b) { return std::max(a, b); });
    case Op::Min: return binaryArith(x, y(), T, nanMin, [](int64_t a, int64_t b) { return std::min(a, b); });
    case Op::Equal: return compare(x, y(), T, [](double a, double b) { return a == b; }, [](int64_t a, int64_t b) { return a == b; });
    case Op::Less: return compare(x, y(), T, [](double a, double b) { return a < b; }, [](int64_t a, int64_t b) { return a < b; });
    case Op::LessOrEqual:
      return compare(x, y(), T, [](double a, double b) { return a <= b; }, [](int64_t a, int64_t b) { return a <= b; });
    case Op::Greater:
      return compare(x, y(), T, [](double a, double b) { return a > b; }, [](int64_t a, int64_t b) { return a > b; });
    case Op::GreaterOrEqual:
      return compare(x, y(), T, [](double a, double b) { return a >= b; }, [](int64_t a, int64_t b) { return a >= b; });
    case Op::And: return logic(x, y(), T, [](bool a, bool b) { return a && b; });
    case Op::Or: return logic(x, y(), T, [](bool a, bool b) { return a || b; });
    case Op::Xor: return logic(x, y(), T, [](bool a, bool b) { return a != b; });
    case Op::Where: return evalWhere(x, y(), *in[2], T);
    case Op::MatMul: {
      const MatMulLayout layout = matmulLayout(n);
      const MatMulPrecision precision = matmulPrecision(n);
      const HostTensor a = roundOperand(hasPrologue(n) ? evalPrologue(n, in) : x, precision);
      const HostTensor b = roundOperand(y(), precision);
      HostTensor out = evalMatMul(layout.transA ? swapLastTwo(a) : a, layout.transB ? swapLastTwo(b) : b, T);
      applyEpilogue(n, in, out);
      return out;
    }
    case Op::QMatMul: {
      const WeightFormat f = WeightFormat(n.i("format", 0));
      const int64_t K = x.type.shape.back();
      HostTensor w = dequantizeWeight(y(), in.size() > 2 && in[2] ? in[2] : nullptr, f, K, n.i("group", 0));
      HostTensor out = evalMatMul(hasPrologue(n) ? evalPrologue(n, in) : x, swapLastTwo(w), T);
      applyEpilogue(n, in, out);
      return out;
    }
    case Op::QGatedMlp: return evalQGatedMlp(n, in, T);
    case Op::Conv: {
      HostTensor out = evalConv(n, in, T);  // (rounds x and w for precision = "fp16")
      applyEpilogue(n, in, out);
      return out;
    }
    case Op::MaxPool: return evalMaxPool(n, x, T);
    case Op::AvgPool: return evalAvgPool(n, x, T);
    case Op::BatchNorm: return evalBatchNorm(n, in, T);
    case Op::LayerNorm: return evalLayerNorm(n, in, T);
    case Op::RMSNorm: return evalRMSNorm(n, in, T);
    case Op::Moments: return evalMoments(x, T);
    case Op::Softmax: return evalSoftmax(n, x, T, false);
    case Op::Attention: return evalAttention(n, in, T);
    case Op::Rotary: return evalRotary(in, T, n.i("tokens_major", 0) != 0);
    case Op::AdamStep: fail(n, "has three results (evalNode evaluates it)");
    case Op::LogSoftmax: return evalSoftmax(n, x, T, true);
    case Op::ReduceSum: return evalReduce(n, x, T, ReduceKind::Sum);
    case Op::ReduceMean: return evalReduce(n, x, T, ReduceKind::Mean);
    case Op::ReduceMax: return evalReduce(n, x, T, ReduceKind::Max);
    case Op::ReduceMin: return evalReduce(n, x, T, ReduceKind::Min);
    case Op::ReduceProd: return evalReduce(n, x, T, ReduceKind::Prod);
    case Op::ArgMax: return evalArgMax(n, x, T);
    case Op::Reshape: return evalReshape(x, T);
    case Op::Transpose: return evalTranspose(n, x, T);
    case Op::Concat: return evalConcat(n, in, T);
    case Op::Slice: return evalSlice(n, x, T);
    case Op::Gather: return evalGather(n, x, y(), T);
    case Op::Expand: return evalExpand(x, T);
    case Op::Pad: return evalPad(n, x, T);
    case Op::ConvGradInput: return evalConvGradInput(n, x, y(), T);
    case Op::ConvGradWeight: return evalConvGradWeight(n, x, y(), T);
    case Op::MaxPoolGrad: return evalMaxPoolGrad(n, x, y(), T);
    case Op::AvgPoolGrad: return evalAvgPoolGrad(n, x, T);
    case Op::GatherGrad: return evalGatherGrad(n, x, y(), T);
    case Op::GatherElements: return evalGatherElements(n, x, y(), T);
    case Op::ScatterElements: return evalScatterElements(n, x, y(), *in[2], T);
    case Op::DropoutMask: return evalDropoutMask(n, x, T);
    case Op::StateWrite:
      if (in.size() > 3) return evalStateWrite(n.i("axis", 0), x, evalRotary({in[1], in[3], in[4]}, y().type), *in[2], T);
      return evalStateWrite(n.i("axis", 0), x, y(), *in[2], T);
    case Op::AttentionCache: fail(n, "attention_cache has three results (evalNode runs it)");
    case Op::FusedEltwise: fail(n, "fused_eltwise needs its graph (evalNode runs it)");
    case Op::FusedReduce: fail(n, "fused_reduce needs its graph (evalNode runs it)");
  }
  fail(n, "unknown op");
}

// The evaluator trusts nothing: every present input must have exactly the
// type the graph declares and a buffer of the matching size.
void checkInputs(const Graph& g, const Node& n, const Inputs& inputs) {
  if (inputs.size() != n.inputs.size())
    fail(n, "got " + std::to_string(inputs.size()) + " input tensors for " + std::to_string(n.inputs.size()) + " inputs");
  for (size_t k = 0; k < inputs.size(); ++k) {
    if (n.inputs[k] == kNoValue) continue;
    const HostTensor* t = inputs[k];
    const TensorType& want = g.type(n.inputs[k]);
    if (!t) fail(n, "input " + std::to_string(k) + " has no tensor");
    if (t->type != want) fail(n, "input " + std::to_string(k) + " is " + t->type.str() + ", expected " + want.str());
    if (t->data.size() != want.bytes())
      fail(n, "input " + std::to_string(k) + " holds " + std::to_string(t->data.size()) + " bytes, expected " +
                  std::to_string(want.bytes()));
  }
}

}  // namespace

std::vector<HostTensor> evalNode(const Graph& g, const Node& n, const std::vector<const HostTensor*>& inputs) {
  checkInputs(g, n, inputs);
  std::vector<TensorType> types = inferTypes(g, n);
  if (n.op == Op::AdamStep) return evalAdamStep(n, inputs);
  if (n.op == Op::AttentionCache) return evalAttentionCache(n, inputs, types);
  if (types.size() != 1) fail(n, "the evaluator handles single-output ops only");
  std::vector<HostTensor> out;
  if (n.op == Op::FusedEltwise) out.push_back(evalFusedEltwise(g, n, inputs));  // step by step: fused_eltwise.h
  else if (n.op == Op::FusedReduce) out.push_back(evalFusedReduce(g, n, inputs));  // fused_reduce.h
  else out.push_back(evalOne(n, inputs, types[0]));
  return out;
}

std::map<std::string, HostTensor> evalGraph(const Graph& g, const std::map<std::string, HostTensor>& inputs) {
  std::vector<std::shared_ptr<const HostTensor>> vals(g.values.size());
  for (size_t v = 0; v < g.values.size(); ++v) {
    const Value& val = g.values[v];
    if (val.isConstant()) vals[v] = val.constant;
    if (val.isConstant() || !val.isState) continue;
    // A state reads the value given by name, else its initial value.
    auto it = inputs.find(val.name);
    if (it != inputs.end() && it->second.type == val.type)
      vals[v] = std::shared_ptr<const HostTensor>(&it->second, [](const HostTensor*) {});
    else vals[v] = val.initialValue();
  }
  for (ValueId id : g.inputs) {
    const Value& v = g.value(id);
    auto it = inputs.find(v.name);
    if (it == inputs.end()) throw Error("graph '" + g.name + "': input '" + v.name + "' is missing");
    if (it->second.type != v.type || it->second.data.size() != v.type.bytes())
      throw Error("graph '" + g.name + "': input '" + v.name + "' is " + it->second.type.str() + " (" +
                  std::to_string(it->second.data.size()) + " bytes), expected " + v.type.str());
    // borrow the caller's tensor: it outlives this call
    vals[size_t(id)] = std::shared_ptr<const HostTensor>(&it->second, [](const HostTensor*) {});
  }

  // Free each intermediate after its last use; graph outputs count as uses.
  std::vector<int> uses = g.useCounts();
  static const HostTensor kAbsent;  // what evalNode gets for an absent optional input
  for (const Node& n : g.nodes) {
    std::vector<const HostTensor*> args;
    for (ValueId v : n.inputs) {
      if (v == kNoValue) {
        args.push_back(&kAbsent);
        continue;
      }
      if (!vals.at(size_t(v))) fail(n, "input '" + g.value(v).name + "' has no value (not computed before use)");
      args.push_back(vals[size_t(v)].get());
    }
    std::vector<HostTensor> results = evalNode(g, n, args);
    if (results.size() != n.outputs.size()) fail(n, "produced " + std::to_string(results.size()) + " outputs");
    for (size_t k = 0; k < results.size(); ++k)
      vals[size_t(n.outputs[k])] = std::make_shared<const HostTensor>(std::move(results[k]));
    for (ValueId v : n.inputs)
      if (v != kNoValue && --uses[size_t(v)] == 0) vals[size_t(v)].reset();
  }

  std::map<std::string, HostTensor> out;
  for (ValueId id : g.outputs) {
    if (!vals.at(size_t(id))) throw Error("graph '" + g.name + "': output '" + g.value(id).name + "' is never computed");
    out[g.value(id).name] = *vals[size_t(id)];
  }
  return out;
}

}  // namespace mgc
