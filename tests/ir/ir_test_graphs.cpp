#include "tests/ir/ir_test_graphs.h"

#include <cmath>
#include <limits>
#include <string>

#include "ir/qweights.h"

namespace mgc::testing {

HostTensor patternTensor(const TensorType& type, uint32_t seed) {
  HostTensor t(type);
  uint32_t s = seed * 2654435761u + 1;
  for (int64_t i = 0; i < t.numel(); ++i) {
    s = s * 1664525u + 1013904223u;
    double v = isFloat(type.dtype) ? double(int(s >> 16) % 2000 - 1000) / 256.0 : double(int(s >> 16) % 100);
    if (type.dtype == DType::Bool) v = (s >> 20) & 1;
    t.setF(i, v);
  }
  return t;
}

namespace {

struct Builder {
  Graph g;
  int counter = 0;

  ValueId input(DType dt, Shape s) { return g.addInput("in" + std::to_string(counter++), {dt, std::move(s)}); }
  ValueId constant(DType dt, Shape s) {
    int id = counter++;
    return g.addConstant("c" + std::to_string(id), patternTensor({dt, std::move(s)}, uint32_t(id)));
  }
  ValueId out(Op op, std::vector<ValueId> ins, Attrs attrs = {}) {
    NodeId n = g.addNode(op, std::string(opName(op)) + "_" + std::to_string(counter++), std::move(ins), std::move(attrs));
    ValueId v = g.nodes[size_t(n)].outputs[0];
    g.outputs.push_back(v);
    return v;
  }
};

// Adds one node of `op` to b. The switch has no default: a new op in the
// table does not compile until it has a round-trip case here.
void addSample(Builder& b, Op op, ValueId x, ValueId y, ValueId flag, ValueId image) {
  switch (op) {
    case Op::Identity: case Op::Neg: case Op::Abs: case Op::Exp: case Op::Log: case Op::Sqrt:
    case Op::Reciprocal: case Op::Relu: case Op::Sigmoid: case Op::Tanh: case Op::Erf: case Op::Floor:
    case Op::Ceil: case Op::Round: case Op::Sin: case Op::Cos: case Op::Atan: case Op::Sign: case Op::Softplus:
    case Op::HardSwish:
      b.out(op, {x});
      return;
    case Op::Not: b.out(op, {flag}); return;
    case Op::LeakyRelu: b.out(op, {x}, {{"alpha", 0.01}}); return;
    case Op::Elu: b.out(op, {x}, {{"alpha", 1.0}}); return;
    case Op::HardSigmoid: b.out(op, {x}, {{"alpha", 0.2}, {"beta", 0.5}}); return;
    case Op::Clip: b.out(op, {x}, {{"min", -1.5}, {"max", 6.0}}); return;
    case Op::Gelu: b.out(op, {x}, {{"approximate", int64_t(1)}}); return;
    case Op::Cast: b.out(op, {x}, {{"to", int64_t(DType::F16)}}); return;
    case Op::Add: case Op::Sub: case Op::Mul: case Op::Div: case Op::Pow: case Op::Max: case Op::Min:
    case Op::Equal: case Op::Less: case Op::LessOrEqual: case Op::Greater: case Op::GreaterOrEqual:
      b.out(op, {x, y});
      return;
    case Op::And: case Op::Or: case Op::Xor: b.out(op, {flag, flag}); return;
    case Op::Where: b.out(op, {flag, x, y}); return;
    case Op::MatMul: b.out(op, {x, b.constant(DType::F32, {4, 2})}); return;
    case Op::Conv:
      b.out(op, {image, b.constant(DType::F32, {4, 3, 3, 3}), b.constant(DType::F32, {4})},
            {{"strides", std::vector<int64_t>{1, 1}}, {"pads", std::vector<int64_t>{1, 1, 1, 1}},
             {"dilations", std::vector<int64_t>{1, 1}}, {"group", int64_t(1)}});
      b.out(op, {image, b.constant(DType::F32, {6, 1, 3, 3}), kNoValue},
            {{"strides", std::vector<int64_t>{2, 2}}, {"group", int64_t(3)}});
      return;
    case Op::MaxPool:
      b.out(op, {image}, {{"kernel", std::vector<int64_t>{2, 2}}, {"strides", std::vector<int64_t>{2, 2}},
                          {"ceil_mode", int64_t(1)}});
      return;
    case Op::AvgPool:
      b.out(op, {image}, {{"kernel", std::vector<int64_t>{3, 3}}, {"pads", std::vector<int64_t>{1, 1, 1, 1}},
                          {"count_include_pad", int64_t(0)}});
      return;
    case Op::BatchNorm: {
      std::vector<ValueId> ins{image};
      for (int k = 0; k < 4; ++k) ins.push_back(b.constant(DType::F32, {3}));
      b.out(op, ins, {{"epsilon", 1e-5}});
      return;
    }
    case Op::LayerNorm:
      b.out(op, {x, b.constant(DType::F32, {4}), kNoValue}, {{"axis", int64_t(1)}, {"epsilon", 1e-6}});
      // Over chunk moments: x [3, 4] as 3 rows of 2 chunks.
      b.out(op, {x, b.constant(DType::F32, {4}), kNoValue, b.constant(DType::F32, {3, 2, 2})}, {{"axis", int64_t(1)}});
      return;
    case Op::Moments: b.out(op, {x}); return;
    case Op::RMSNorm:
      b.out(op, {x, b.constant(DType::F32, {4})}, {{"axis", int64_t(1)}, {"epsilon", 1e-6}});
      return;
    case Op::Softmax: case Op::LogSoftmax: b.out(op, {x}, {{"axis", int64_t(1)}}); return;
    case Op::ReduceSum: case Op::ReduceMean: case Op::ReduceMax: case Op::ReduceMin: case Op::ReduceProd:
      b.out(op, {image}, {{"axes", std::vector<int64_t>{2, 3}}, {"keepdims", int64_t(0)}});
      return;
    case Op::ArgMax: b.out(op, {x}, {{"axis", int64_t(1)}, {"keepdims", int64_t(1)}}); return;
    case Op::Reshape: b.out(op, {x}, {{"shape", std::vector<int64_t>{2, 2, 3}}}); return;
    case Op::Transpose: b.out(op, {x}, {{"perm", std::vector<int64_t>{1, 0}}}); return;
    case Op::Concat: b.out(op, {x, y, x}, {{"axis", int64_t(0)}}); return;
    case Op::Slice:
      b.out(op, {x}, {{"starts", std::vector<int64_t>{0, 3}}, {"ends", std::vector<int64_t>{3, -1}},
                      {"steps", std::vector<int64_t>{2, -1}}});
      return;
    case Op::Gather: {
      HostTensor indices({DType::I64, {2, 2}});
      for (int64_t i = 0; i < 4; ++i) indices.setI(i, (i * 3) % 4);
      b.out(op, {x, b.g.addConstant("indices", indices)}, {{"axis", int64_t(1)}});
      return;
    }
    case Op::Expand: b.out(op, {y}, {{"shape", std::vector<int64_t>{2, 3, 4}}}); return;
    case Op::Pad: b.out(op, {x}, {{"pads", std::vector<int64_t>{0, 1, 2, 0}}, {"value", 0.5}}); return;
    case Op::ConvGradInput:  // dx of the first Conv sample: image [1,3,8,8], w [4,3,3,3], pads 1
      b.out(op, {b.constant(DType::F32, {1, 4, 8, 8}), b.constant(DType::F32, {4, 3, 3, 3})},
            {{"pads", std::vector<int64_t>{1, 1, 1, 1}}, {"shape", std::vector<int64_t>{1, 3, 8, 8}}});
      return;
    case Op::ConvGradWeight:
      b.out(op, {image, b.constant(DType::F32, {1, 4, 8, 8})},
            {{"pads", std::vector<int64_t>{1, 1, 1, 1}}, {"shape", std::vector<int64_t>{4, 3, 3, 3}}});
      return;
    case Op::MaxPoolGrad:
      b.out(op, {image, b.constant(DType::F32, {1, 3, 4, 4})},
            {{"kernel", std::vector<int64_t>{2, 2}}, {"strides", std::vector<int64_t>{2, 2}}});
      return;
    case Op::AvgPoolGrad:
      b.out(op, {b.constant(DType::F32, {1, 3, 8, 8})},
            {{"kernel", std::vector<int64_t>{3, 3}}, {"pads", std::vector<int64_t>{1, 1, 1, 1}},
             {"shape", std::vector<int64_t>{1, 3, 8, 8}}});
      return;
    case Op::GatherGrad: {
      HostTensor indices({DType::I64, {5}});
      for (int64_t i = 0; i < 5; ++i) indices.setI(i, (i * 3) % 4);
      b.out(op, {b.constant(DType::F32, {3, 5}), b.g.addConstant("grad_indices", indices)},
            {{"axis", int64_t(1)}, {"shape", std::vector<int64_t>{3, 4}}});
      return;
    }
    case Op::GatherElements: {
      HostTensor indices({DType::I64, {3, 2}});
      for (int64_t i = 0; i < 6; ++i) indices.setI(i, (i * 3) % 4 - 1);
      b.out(op, {b.constant(DType::F32, {3, 4}), b.g.addConstant("element_indices", indices)}, {{"axis", int64_t(1)}});
      return;
    }
    case Op::ScatterElements: {
      HostTensor indices({DType::I64, {2, 4}});
      for (int64_t i = 0; i < 8; ++i) indices.setI(i, (i * 5) % 3 - 1);
      b.out(op, {b.constant(DType::F32, {3, 4}), b.g.addConstant("scatter_indices", indices), b.constant(DType::F32, {2, 4})},
            {{"axis", int64_t(0)}, {"reduction", int64_t(1)}});
      return;
    }
    case Op::DropoutMask:
      b.out(op, {b.constant(DType::F32, {})}, {{"ratio", 0.25}, {"seed", int64_t(3)}, {"shape", std::vector<int64_t>{2, 3}}});
      return;
    case Op::StateWrite: {  // a KV-cache-like state: row 1 of 3 written in place
      ValueId cache = b.g.addState("cache", patternTensor({DType::F32, {3, 4}}, 77));
      HostTensor at({DType::I64, {}});
      at.setI(0, 1);
      ValueId row = b.constant(DType::F32, {1, 4});
      NodeId n = b.g.addNode(op, "state_write", {cache, row, b.g.addConstant("cache_offset", at)},
                             {{"axis", int64_t(0)}});
      b.g.stateUpdates.push_back({cache, b.g.nodes[size_t(n)].outputs[0]});
      return;
    }
    case Op::AdamStep: {  // a parameter and its two moments, updated in place
      std::vector<ValueId> st;
      for (const char* name : {"adam_param", "adam_m", "adam_v"})
        st.push_back(b.g.addState(name, patternTensor({DType::F32, {3, 4}}, uint32_t(st.size() + 40))));
      HostTensor coef({DType::F32, {4}});
      for (int64_t i = 0; i < 4; ++i) coef.setF(i, 0.25 * double(i + 1));
      NodeId n = b.g.addNode(op, "adam_step", {st[0], x, st[1], st[2], b.g.addConstant("adam_coef", coef)},
                             {{"beta1", 0.9}, {"beta2", 0.999}, {"eps", 1e-8}, {"weight_decay", 0.01}});
      for (int k = 0; k < 3; ++k) b.g.stateUpdates.push_back({st[size_t(k)], b.g.nodes[size_t(n)].outputs[size_t(k)]});
      return;
    }
    case Op::QMatMul: {  // int4 weights [5, 32] in groups of 16, applied to 3 rows
      QuantizedWeight q = quantizeWeight(patternTensor({DType::F32, {5, 32}}, 91), WeightFormat::Int4, 16);
      b.out(op, {b.constant(DType::F32, {3, 32}), b.g.addConstant("qwords", q.words), b.g.addConstant("qscales", q.scales)},
            {{"format", int64_t(WeightFormat::Int4)}, {"group", int64_t(16)}});
      return;
    }
    case Op::QGatedMlp: {  // one row of 32: int8 gate / up [16, 32], down [8, 16], groups of 16; norm, residual
      auto packed = [&](Shape s, uint32_t seed) {
        QuantizedWeight q = quantizeWeight(patternTensor({DType::F32, std::move(s)}, seed), WeightFormat::Int8, 16);
        return std::pair{b.g.addConstant("mlp_words" + std::to_string(seed), q.words),
                         b.g.addConstant("mlp_scales" + std::to_string(seed), q.scales)};
      };
      auto [gw, gs] = packed({16, 32}, 92);
      auto [uw, us] = packed({16, 32}, 93);
      auto [dw, ds] = packed({8, 16}, 94);
      b.out(op, {b.constant(DType::F32, {1, 32}), gw, uw, dw, gs, us, ds, b.constant(DType::F32, {32}),
                 b.constant(DType::F32, {1, 8})},
            {{"format", int64_t(WeightFormat::Int8)}, {"group", int64_t(16)}, {"norm_eps", 1e-5}});
      return;
    }
    case Op::Rotary:  // x [2, 3, 4] with cos / sin rows [3, 4]
      b.out(op, {b.constant(DType::F32, {2, 3, 4}), b.constant(DType::F32, {3, 4}), b.constant(DType::F32, {3, 4})});
      return;
    case Op::Attention: {
      // Grouped heads: q [1, 2, 3, 4] against one k / v head [1, 1, 6, *],
      // under a causal-style mask (hidden keys: -FLT_MAX, their rows unread).
      HostTensor mask({DType::F32, {3, 6}});
      for (int64_t t = 0; t < 3; ++t)
        for (int64_t j = 0; j < 6; ++j) mask.setF(t * 6 + j, j > t + 2 ? -3.4028234663852886e38 : 0.125 * double(j));
      b.out(op, {b.constant(DType::F32, {1, 2, 3, 4}), b.constant(DType::F32, {1, 1, 6, 4}),
                 b.constant(DType::F32, {1, 1, 6, 5}), b.g.addConstant("attention_mask", mask)},
            {{"scale", 0.5}});
      // No mask, 300 keys: three chunks of the online softmax.
      b.out(op, {b.constant(DType::F32, {2, 2, 16}), b.constant(DType::F32, {2, 300, 16}),
                 b.constant(DType::F32, {2, 300, 8})},
            {{"scale", 0.25}});
      return;
    }
    case Op::AttentionCache: {  // 4 query heads over 2 K/V heads; a chunk of 2 rows written at 2 of 5
      ValueId keys = b.g.addState("attention_k_cache", patternTensor({DType::F32, {1, 2, 5, 4}}, 78));
      ValueId values = b.g.addState("attention_v_cache", patternTensor({DType::F32, {1, 2, 5, 3}}, 79));
      HostTensor at({DType::I64, {1}}), mask({DType::F32, {2, 5}});
      at.setI(0, 2);
      for (int64_t t = 0; t < 2; ++t)
        for (int64_t j = 0; j < 5; ++j) mask.setF(t * 5 + j, j > t + 2 ? -3.4028234663852886e38 : 0.0);
      NodeId n = b.g.addNode(op, "attention_cache",
                             {b.constant(DType::F32, {1, 4, 2, 4}), b.constant(DType::F32, {1, 2, 2, 4}),
                              b.constant(DType::F32, {1, 2, 2, 3}), keys, values, b.g.addConstant("chunk_offset", at),
                              b.constant(DType::F32, {2, 4}), b.constant(DType::F32, {2, 4}),
                              b.g.addConstant("chunk_mask", mask)},
                             {{"scale", 0.5}});
      const std::vector<ValueId> outs = b.g.nodes[size_t(n)].outputs;
      b.g.outputs.push_back(outs[0]);
      b.g.stateUpdates.push_back({keys, outs[1]});
      b.g.stateUpdates.push_back({values, outs[2]});
      // A decode row with the output projection (int8 o [5, 4 heads x 3], groups of 4) and a residual.
      ValueId keys2 = b.g.addState("attention_k_cache2", patternTensor({DType::F32, {1, 2, 5, 4}}, 80));
      ValueId values2 = b.g.addState("attention_v_cache2", patternTensor({DType::F32, {1, 2, 5, 4}}, 81));
      QuantizedWeight o = quantizeWeight(patternTensor({DType::F32, {5, 16}}, 82), WeightFormat::Int8, 4);
      NodeId p = b.g.addNode(op, "attention_cache_proj",
                             {b.constant(DType::F32, {1, 4, 1, 4}), b.constant(DType::F32, {1, 2, 1, 4}),
                              b.constant(DType::F32, {1, 2, 1, 4}), keys2, values2, b.g.addConstant("row_offset", at),
                              b.constant(DType::F32, {1, 4}), b.constant(DType::F32, {1, 4}), kNoValue,
                              b.g.addConstant("o_words", o.words), b.g.addConstant("o_scales", o.scales),
                              b.constant(DType::F32, {1, 1, 5})},
                             {{"scale", 0.5}, {"format", int64_t(WeightFormat::Int8)}, {"group", int64_t(4)}});
      const std::vector<ValueId> pouts = b.g.nodes[size_t(p)].outputs;
      b.g.outputs.push_back(pouts[0]);
      b.g.stateUpdates.push_back({keys2, pouts[1]});
      b.g.stateUpdates.push_back({values2, pouts[2]});
      return;
    }
    case Op::FusedEltwise:  // (x * y) + 0.5, then leaky_relu
      b.out(op, {x, y},
            {{"ops", std::string("mul,add,leaky_relu")}, {"args", std::vector<int64_t>{0, 1, 0, 2, -1, 0, 3, 0, 0}},
             {"dtypes", std::vector<int64_t>{0, 0, 0}}, {"fargs", std::vector<double>{0, 0, 0, 0, 0.1, 0}},
             {"consts", std::vector<double>{0.5}}});
      return;
    case Op::FusedReduce:  // sum over rows of (x - y)², x [3,4] viewed as [2,6]
      b.out(op, {x, y},
            {{"ops", std::string("sub,mul")}, {"args", std::vector<int64_t>{0, 1, 0, 2, 2, 0}},
             {"dtypes", std::vector<int64_t>{0, 0}}, {"fargs", std::vector<double>{0, 0, 0, 0}},
             {"reduce", std::string("sum")}, {"shape", std::vector<int64_t>{2, 6}},
             {"axes", std::vector<int64_t>{1}}, {"keepdims", int64_t(0)}});
      return;
  }
}

}  // namespace

Graph graphWithEveryOp() {
  Builder b;
  b.g.name = "every_op";
  ValueId x = b.input(DType::F32, {3, 4});
  ValueId y = b.input(DType::F32, {1, 4});
  ValueId flag = b.input(DType::Bool, {3, 4});
  ValueId image = b.input(DType::F32, {1, 3, 8, 8});
  for (int op = 0; op < kNumOps; ++op) addSample(b, Op(op), x, y, flag, image);
  return std::move(b.g);
}

Graph graphWithEveryDType() {
  Graph g;
  g.name = "every dtype";  // quoted graph name
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (int d = 0; d < kNumDTypes; ++d) {
    DType dt = DType(d);
    std::string base = dtypeName(dt);
    g.addInput("input_" + base, {dt, {2, 3}});
    HostTensor edges({dt, {8}});
    if (isFloat(dt)) {
      double denorm = dt == DType::F16 ? 5.960464477539063e-08 : dt == DType::F32 ? 1.401298464324817e-45
                      : dt == DType::BF16 ? 9.183549615799121e-41 : 4.9e-324;
      double big = dt == DType::F16 ? 65504.0 : dt == DType::F32 ? 3.4028234663852886e38
                   : dt == DType::BF16 ? 3.3895313892515355e38 : 1.7976931348623157e308;
      double vals[8] = {0.1, -0.0, inf, -inf, nan, denorm, big, 1.0 / 3.0};
      for (int i = 0; i < 8; ++i) edges.setF(i, vals[i]);
    } else if (dt == DType::Bool) {
      for (int i = 0; i < 8; ++i) edges.setI(i, i % 3 == 0);
    } else {
      int64_t lo = dt == DType::I64 ? std::numeric_limits<int64_t>::min() : dt == DType::I32 ? INT32_MIN
                   : dt == DType::I8 ? -128 : 0;
      int64_t hi = dt == DType::I64 ? std::numeric_limits<int64_t>::max() : dt == DType::I32 ? INT32_MAX
                   : dt == DType::I8 ? 127 : 255;
      int64_t vals[8] = {lo, hi, 0, 1, 7, hi - 1, lo + 1, 42};
      for (int i = 0; i < 8; ++i) edges.setI(i, vals[i]);
    }
    g.addConstant("edges_" + base, std::move(edges));
    g.addConstant("big_" + base, patternTensor({dt, {20, 30}}, uint32_t(d)));  // hex form
    HostTensor splat({dt, {4, 5}});
    for (int64_t i = 0; i < splat.numel(); ++i) splat.setF(i, 1);
    g.addConstant("splat_" + base, std::move(splat));
    g.addConstant("scalar_" + base, patternTensor({dt, {}}, uint32_t(d + 100)));
    g.addConstant("empty_" + base, HostTensor({dt, {0, 3}}));
    NodeId n = g.addNode(Op::Identity, "copy_" + base, {g.find("input_" + base)});
    g.outputs.push_back(g.nodes[size_t(n)].outputs[0]);
  }
  return g;
}

}  // namespace mgc::testing
