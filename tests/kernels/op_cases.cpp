#include "op_cases.h"

#include <cmath>

#include "ir/qweights.h"
#include "op_cases_builder.h"

namespace mgc::test {

namespace {

void unaryCases(Builder& b) {
  const Shape s{5, 6, 7};
  for (Op op : {Op::Neg, Op::Abs, Op::Exp, Op::Relu, Op::Sigmoid, Op::Tanh, Op::Erf, Op::Floor, Op::Ceil, Op::Round,
                Op::Sin, Op::Cos, Op::Atan, Op::Sign, Op::Softplus, Op::HardSwish, Op::Identity})
    b.add(opName(op), op, {N(F(s))});
  for (Op op : {Op::Log, Op::Sqrt, Op::Reciprocal}) b.add(opName(op), op, {P(F(s))});
  b.add("leaky_relu", Op::LeakyRelu, {N(F(s))}, {{"alpha", 0.1}});
  b.add("elu", Op::Elu, {N(F(s))}, {{"alpha", 0.7}});
  b.add("hard_sigmoid", Op::HardSigmoid, {N(F(s))}, {{"alpha", 0.25}, {"beta", 0.4}});
  b.add("clip", Op::Clip, {N(F(s))}, {{"min", -0.5}, {"max", 0.8}});
  b.add("clip only max", Op::Clip, {N(F(s))}, {{"max", 0.3}});
  b.add("gelu erf", Op::Gelu, {N(F(s))}, {{"approximate", int64_t(0)}});
  b.add("gelu tanh", Op::Gelu, {N(F(s))}, {{"approximate", int64_t(1)}});
  b.add("not", Op::Not, {B({5, 6})});
  for (Op op : {Op::Neg, Op::Abs, Op::Relu, Op::Sign})
    b.add(std::string(opName(op)) + " i32", op, {I(T(DType::I32, {5, 7}))});
  b.add("clip i64", Op::Clip, {I(T(DType::I64, {5, 7}))}, {{"min", -2.5}, {"max", 3.0}});
  b.add("exp f16", Op::Exp, {N(T(DType::F16, {5, 7}))});
  b.add("neg i8", Op::Neg, {I(T(DType::I8, {5, 7}))});
  b.add("sqrt i32 (through f32)", Op::Sqrt, {P(T(DType::I32, {5, 7}))});
  auto cast = [&](const std::string& label, TensorType from, DType to, Fill f = {}) {
    b.add("cast " + label, Op::Cast, {{from, f}}, {{"to", int64_t(to)}});
  };
  cast("f32->i32", F(s), DType::I32);
  cast("f32->bool", F({5, 7}), DType::Bool, Fill{Fill::SmallInt, 0});
  cast("i64->f32", T(DType::I64, {5, 7}), DType::F32, Fill{Fill::SmallInt, 0});
  cast("f32->f16", F(s), DType::F16);
  // Integers up to 1e5: ties between halves above 2048 (to even), and ±inf past 65520.
  cast("f32->f16 ties and overflow", F(s), DType::F16, Fill{Fill::Index, 100000});
  cast("f32->i8", F({5, 7}), DType::I8, Fill{Fill::Index, 300});
  cast("i32->u8", T(DType::I32, {5, 7}), DType::U8, Fill{Fill::Index, 300});
  cast("bool->f32", T(DType::Bool, {5, 7}), DType::F32, Fill{Fill::Bool, 0});
  cast("i32->i64", T(DType::I32, {5, 7}), DType::I64, Fill{Fill::SmallInt, 0});
  cast("i32->i16", T(DType::I32, {5, 7}), DType::I16, Fill{Fill::Index, 40000});
  cast("i32->u16", T(DType::I32, {5, 7}), DType::U16, Fill{Fill::Index, 70000});
  cast("f32->bf16", F(s), DType::BF16);
}

void binaryCases(Builder& b) {
  const Shape a{5, 1, 7}, c{6, 1};
  for (Op op : {Op::Add, Op::Sub, Op::Mul, Op::Max, Op::Min, Op::Equal, Op::Less, Op::LessOrEqual, Op::Greater,
                Op::GreaterOrEqual})
    b.add(std::string(opName(op)) + " broadcast", op, {N(F(a)), N(F(c))});
  b.add("div broadcast", Op::Div, {N(F(a)), P(F(c))});
  b.add("add same shape", Op::Add, {N(F({5, 6, 7})), N(F({5, 6, 7}))});
  b.add("mul scalar", Op::Mul, {N(F({5, 6, 7})), N(F({}))});
  b.add("add rank 7", Op::Add, {N(F({2, 1, 3, 1, 2, 3, 5})), N(F({3, 2, 1, 1}))});
  b.add("pow", Op::Pow, {P(F(a)), N(F(c))});
  b.add("pow f32^i32", Op::Pow, {N(F(a)), I(T(DType::I32, c))});
  b.add("pow i32^i32", Op::Pow, {I(T(DType::I32, a)), P(T(DType::I32, c))});
  for (Op op : {Op::Add, Op::Sub, Op::Mul, Op::Max, Op::Min, Op::Equal, Op::Less, Op::GreaterOrEqual})
    b.add(std::string(opName(op)) + " i32", op, {I(T(DType::I32, a)), I(T(DType::I32, c))});
  b.add("div i32", Op::Div, {I(T(DType::I32, a)), P(T(DType::I32, c))});
  for (Op op : {Op::And, Op::Or, Op::Xor}) b.add(opName(op), op, {B(a), B(c)});
  b.add("where", Op::Where, {B({5, 1, 7}), N(F({6, 7})), N(F({1}))});
  b.add("where i64", Op::Where, {B({5, 6, 7}), I(T(DType::I64, {7})), I(T(DType::I64, {5, 6, 1}))});
  // fused_eltwise (ir/fused_eltwise.h): gelu spelled out with
  // inline constants; a broadcasting tree over 4 inputs; float attributes.
  using Floats = std::vector<double>;
  b.add("fused_eltwise gelu spelled out", Op::FusedEltwise, {N(F({5, 6, 7}))},
        {{"ops", std::string("div,erf,add,mul,mul")},
         {"args", std::vector<int64_t>{0, -1, 0, 1, 0, 0, 2, -2, 0, 0, 3, 0, 4, -3, 0}},
         {"dtypes", std::vector<int64_t>{0, 0, 0, 0, 0}}, {"fargs", Floats(10, 0.0)},
         {"consts", Floats{1.4142135, 1.0, 0.5}}});
  b.add("fused_eltwise where tree 4 inputs broadcast", Op::FusedEltwise,
        {B({5, 1, 7}), N(F({6, 7})), N(F({5, 6, 1})), N(F({1}))},
        {{"ops", std::string("mul,sigmoid,where,max")},
         {"args", std::vector<int64_t>{1, 2, 0, 4, 0, 0, 0, 5, 3, 6, -1, 0}},
         {"dtypes", std::vector<int64_t>{0, 0, 0, 0}}, {"fargs", Floats(8, 0.0)}, {"consts", Floats{-0.25}}});
  // 8 inputs (the kernel's most), each broadcast differently: a BatchNorm
  // step with its statistics recomputed, plus a ReLU mask and a residual.
  b.add("fused_eltwise 8 inputs", Op::FusedEltwise,
        {N(F({4, 5, 6})), N(F({1, 5, 1})), N(F({5, 1})), N(F({1, 5, 1})), N(F({5, 1})), N(F({4, 5, 6})), N(F({6})),
         N(F({4, 1, 1}))},
        {{"ops", std::string("sub,mul,add,mul,add,max,mul,add,add")},
         {"args", std::vector<int64_t>{0, 1, 0, 8, 2, 0, 9, 3, 0, 10, 4, 0, 11, 5, 0, 12, -1, 0, 13, 6, 0, 14, 7, 0, 15, 0, 0}},
         {"dtypes", std::vector<int64_t>(9, 0)}, {"fargs", Floats(18, 0.0)}, {"consts", Floats{0.0}}});
  b.add("fused_eltwise leaky_relu clip", Op::FusedEltwise, {N(F({5, 7}))},
        {{"ops", std::string("leaky_relu,clip")}, {"args", std::vector<int64_t>{0, 0, 0, 1, 0, 0}},
         {"dtypes", std::vector<int64_t>{0, 0}}, {"fargs", Floats{0.1, 0.0, -0.5, 0.8}}});
}

// Normalizations (batch, layer, RMS; layer_norm from chunk moments) and softmax.
void normCases(Builder& b) {
  b.add("batch_norm", Op::BatchNorm, {N(F({2, 3, 5, 7})), N(F({3})), N(F({3})), N(F({3})), P(F({3}))},
        {{"epsilon", 1e-3}});
  b.add("layer_norm axis 1 bias", Op::LayerNorm, {N(F({5, 6, 7})), N(F({6, 7})), N(F({6, 7}))},
        {{"axis", int64_t(1)}, {"epsilon", 1e-5}});
  b.add("layer_norm last no bias", Op::LayerNorm, {N(F({5, 6, 7})), N(F({7}))}, {{"axis", int64_t(2)}});
  b.add("layer_norm wide rows", Op::LayerNorm, {N(F({3, 300})), N(F({300})), N(F({300}))}, {{"axis", int64_t(1)}});
  // Rows' statistics from chunk moments (layernorm_apply.comp; split-long-rows builds them): rows that
  // cross workgroup boundaries, and workgroups that hold several short rows; positive moments keep the
  // combined variance positive.
  const std::pair<TensorType, Fill> noBias{TensorType{}, Fill{Fill::Absent, 0}};
  b.add("moments", Op::Moments, {N(F({6, 5, 300}))});
  b.add("layer_norm chunk moments long rows", Op::LayerNorm, {N(F({3, 3000})), N(F({3000})), N(F({3000})), P(F({3, 6, 2}))},
        {{"axis", int64_t(1)}, {"epsilon", 1e-5}});
  b.add("layer_norm chunk moments short rows no bias", Op::LayerNorm, {N(F({5, 6, 8})), N(F({6, 8})), noBias, P(F({5, 4, 2}))},
        {{"axis", int64_t(1)}});
  b.add("rms_norm last", Op::RMSNorm, {N(F({5, 6, 7})), N(F({7}))}, {{"axis", int64_t(2)}, {"epsilon", 1e-6}});
  b.add("rms_norm wide rows", Op::RMSNorm, {N(F({3, 576})), N(F({576}))}, {{"axis", int64_t(1)}, {"epsilon", 1e-5}});
  b.add("rms_norm axis 1 epsilon outside", Op::RMSNorm, {N(F({4, 6, 7})), N(F({6, 7}))},
        {{"axis", int64_t(1)}, {"epsilon", 1e-2}, {"epsilon_outside", int64_t(1)}});
  b.add("softmax axis 1", Op::Softmax, {N(F({5, 6, 7}))}, {{"axis", int64_t(1)}});
  b.add("softmax axis 2", Op::Softmax, {N(F({5, 6, 7}))}, {{"axis", int64_t(2)}});
  b.add("softmax wide", Op::Softmax, {N(F({4, 500}))}, {{"axis", int64_t(1)}});
  b.add("softmax 2-D grid", Op::Softmax, {N(F({65601, 130}))}, {{"axis", int64_t(1)}});  // > 65535 workgroups
  b.add("log_softmax axis 0", Op::LogSoftmax, {N(F({5, 6, 7}))}, {{"axis", int64_t(0)}});
  b.add("log_softmax wide", Op::LogSoftmax, {N(F({3, 257}))}, {{"axis", int64_t(1)}});
}

void reduceCases(Builder& b) {
  const Shape s{5, 6, 7};
  b.add("reduce_sum axes 0,2 keep", Op::ReduceSum, {N(F(s))}, {{"axes", Ints{0, 2}}, {"keepdims", int64_t(1)}});
  b.add("reduce_mean axis 1", Op::ReduceMean, {N(F(s))}, {{"axes", Ints{1}}, {"keepdims", int64_t(0)}});
  b.add("reduce_max all", Op::ReduceMax, {N(F(s))}, {{"axes", Ints{}}, {"keepdims", int64_t(0)}});
  b.add("reduce_min axis 2", Op::ReduceMin, {N(F(s))}, {{"axes", Ints{2}}});
  b.add("reduce_prod axis 0", Op::ReduceProd, {N(F(s))}, {{"axes", Ints{0}}});
  b.add("reduce_mean long rows", Op::ReduceMean, {N(F({3, 1000}))}, {{"axes", Ints{1}}});
  b.add("reduce_sum long strided", Op::ReduceSum, {N(F({300, 3}))}, {{"axes", Ints{0}}});
  b.add("reduce_sum i32", Op::ReduceSum, {I(T(DType::I32, s))}, {{"axes", Ints{1, 2}}});
  b.add("reduce_max i64", Op::ReduceMax, {I(T(DType::I64, s))}, {{"axes", Ints{0}}});
  b.add("argmax axis 1", Op::ArgMax, {N(F(s))}, {{"axis", int64_t(1)}, {"keepdims", int64_t(0)}});
  b.add("argmax axis 2 keep", Op::ArgMax, {N(F(s))}, {{"axis", int64_t(2)}, {"keepdims", int64_t(1)}});
  b.add("argmax long", Op::ArgMax, {N(F({3, 700}))}, {{"axis", int64_t(1)}});
  b.add("argmax i32 ties", Op::ArgMax, {I(T(DType::I32, s))}, {{"axis", int64_t(0)}});
  // fused_reduce (ir/fused_reduce.h): BatchNorm's variance, a gradient's
  // sum(dy · x) along long rows, a reduction over a reshaped view (the
  // two-step statistics), ReLU's gradient with a bool condition, max / min.
  using Floats = std::vector<double>;
  auto fused = [](const std::string& ops, std::vector<int64_t> args, const Floats& consts, const std::string& reduce,
                  Ints shape, Ints axes, int64_t keep) {
    const size_t steps = size_t(std::count(ops.begin(), ops.end(), ',') + 1);
    return Attrs{{"ops", ops}, {"args", std::move(args)}, {"dtypes", Ints(steps, 0)}, {"fargs", Floats(2 * steps, 0.0)},
                 {"consts", consts}, {"reduce", reduce}, {"shape", std::move(shape)}, {"axes", std::move(axes)},
                 {"keepdims", keep}};
  };
  b.add("fused_reduce variance", Op::FusedReduce, {N(F({4, 6, 5, 7})), N(F({1, 6, 1, 1}))},
        fused("sub,mul", {0, 1, 0, 2, 2, 0}, {}, "mean", {4, 6, 5, 7}, {0, 2, 3}, 1));
  b.add("fused_reduce sum dy*x long rows", Op::FusedReduce, {N(F({5, 300})), N(F({5, 300}))},
        fused("mul", {0, 1, 0}, {}, "sum", {5, 300}, {1}, 0));
  b.add("fused_reduce reshaped view", Op::FusedReduce, {N(F({4, 6, 35})), N(F({1, 6, 1}))},
        fused("sub,mul", {0, 1, 0, 2, 2, 0}, {}, "sum", {4, 6, 5, 7}, {3}, 0));
  b.add("fused_reduce relu grad bool", Op::FusedReduce, {B({5, 6, 7}), N(F({5, 6, 7})), N(F({1, 6, 7}))},
        fused("where,mul", {0, 1, -1, 3, 2, 0}, {0.0}, "sum", {5, 6, 7}, {0, 2}, 0));
  b.add("fused_reduce 6 inputs long rows", Op::FusedReduce,
        {N(F({3, 400})), N(F({3, 1})), N(F({3, 400})), N(F({400})), N(F({3, 1})), N(F({1, 400}))},
        fused("sub,mul,mul,add,mul", {0, 1, 0, 6, 2, 0, 7, 3, 0, 8, 4, 0, 9, 5, 0}, {}, "sum", {3, 400}, {1}, 1));
  b.add("fused_reduce max abs all", Op::FusedReduce, {N(F(s))}, fused("abs", {0, 0, 0}, {}, "max", s, {}, 0));
  b.add("fused_reduce min 4 inputs", Op::FusedReduce, {N(F(s)), N(F({6, 1})), N(F({7})), N(F({5, 1, 1}))},
        fused("add,mul,sub", {0, 1, 0, 4, 2, 0, 5, 3, 0}, {}, "min", s, {0, 1}, 1));
}

void shapeCases(Builder& b) {
  const Shape s{5, 6, 7};
  b.add("reshape", Op::Reshape, {N(F(s))}, {{"shape", Ints{30, 7}}});
  b.add("transpose 0231", Op::Transpose, {N(F({2, 3, 5, 7}))}, {{"perm", Ints{0, 2, 3, 1}}});
  b.add("transpose 201", Op::Transpose, {N(F(s))}, {{"perm", Ints{2, 0, 1}}});
  b.add("concat axis 1", Op::Concat, {N(F({5, 2, 7})), N(F({5, 3, 7})), N(F({5, 1, 7}))}, {{"axis", int64_t(1)}});
  b.add("concat i64 axis 0", Op::Concat, {I(T(DType::I64, {2, 3})), I(T(DType::I64, {1, 3}))}, {{"axis", int64_t(0)}});
  b.add("slice negative step", Op::Slice, {N(F(s))},
        {{"starts", Ints{1, 0, 6}}, {"ends", Ints{4, 6, -1}}, {"steps", Ints{2, 1, -2}}});
  b.add("slice reverse", Op::Slice, {N(F(s))},
        {{"starts", Ints{4, 5, 0}}, {"ends", Ints{-1, 1, 7}}, {"steps", Ints{-1, -3, 3}}});
  b.add("gather axis 1 i64", Op::Gather, {N(F(s)), Idx(T(DType::I64, {2, 3}), 6)}, {{"axis", int64_t(1)}});
  b.add("gather axis 0 i32", Op::Gather, {N(F(s)), Idx(T(DType::I32, {4}), 5)}, {{"axis", int64_t(0)}});
  b.add("gather i64 data", Op::Gather, {I(T(DType::I64, {7, 3})), Idx(T(DType::I64, {5}), 7)}, {{"axis", int64_t(0)}});
  b.add("expand", Op::Expand, {N(F({5, 1, 7}))}, {{"shape", Ints{2, 5, 6, 7}}});
  b.add("pad", Op::Pad, {N(F(s))}, {{"pads", Ints{1, 0, 2, 0, 3, 1}}, {"value", 0.5}});
  b.add("pad negative", Op::Pad, {N(F(s))}, {{"pads", Ints{0, -1, 1, 1, 0, -2}}, {"value", 0.0}});
  b.add("pad i32", Op::Pad, {I(T(DType::I32, {5, 7}))}, {{"pads", Ints{1, 2, 0, 1}}, {"value", 3.0}});
  // gradient ops (passes/program/autodiff.cpp): dy shapes follow the forward cases above
  b.add("conv_grad_input groups dilation", Op::ConvGradInput, {N(F({2, 4, 10, 11})), N(F({4, 3, 3, 2}))},
        {{"group", int64_t(2)}, {"dilations", Ints{2, 1}}, {"pads", Ints{0, 1, 1, 0}}, {"shape", Ints{2, 6, 13, 11}}});
  b.add("conv_grad_input stride 2 pad 1", Op::ConvGradInput, {N(F({1, 8, 7, 6})), N(F({8, 3, 3, 3}))},
        {{"strides", Ints{2, 2}}, {"pads", Ints{1, 1, 1, 1}}, {"shape", Ints{1, 3, 13, 11}}});
  b.add("conv_grad_weight groups dilation", Op::ConvGradWeight, {N(F({2, 6, 13, 11})), N(F({2, 4, 10, 11}))},
        {{"group", int64_t(2)}, {"dilations", Ints{2, 1}}, {"pads", Ints{0, 1, 1, 0}}, {"shape", Ints{4, 3, 3, 2}}});
  b.add("conv_grad_weight depthwise stride", Op::ConvGradWeight, {N(F({2, 6, 13, 11})), N(F({2, 6, 13, 6}))},
        {{"group", int64_t(6)}, {"pads", Ints{1, 1, 1, 1}}, {"strides", Ints{1, 2}}, {"shape", Ints{6, 1, 3, 3}}});
  // >= 16 GEMM rows per group: conv2d_grad_gemm (implicit GEMM), with split-K
  // where the tiles are few and K is deep
  b.add("conv_grad_input gemm groups stride dilation", Op::ConvGradInput, {N(F({2, 36, 7, 5})), N(F({36, 20, 3, 3}))},
        {{"group", int64_t(2)}, {"strides", Ints{2, 2}}, {"dilations", Ints{1, 2}}, {"pads", Ints{1, 0, 2, 1}},
         {"shape", Ints{2, 40, 13, 12}}});
  b.add("conv_grad_input gemm split-K", Op::ConvGradInput, {N(F({1, 512, 4, 4})), N(F({512, 64, 3, 3}))},
        {{"pads", Ints{1, 1, 1, 1}}, {"shape", Ints{1, 64, 4, 4}}});
  b.add("conv_grad_weight gemm split-K", Op::ConvGradWeight, {N(F({4, 24, 20, 20})), N(F({4, 32, 20, 20}))},
        {{"pads", Ints{1, 1, 1, 1}}, {"shape", Ints{32, 24, 3, 3}}});
  b.add("conv_grad_weight gemm groups stride dilation", Op::ConvGradWeight, {N(F({2, 32, 9, 10})), N(F({2, 36, 5, 9}))},
        {{"group", int64_t(2)}, {"strides", Ints{2, 1}}, {"dilations", Ints{1, 2}}, {"pads", Ints{1, 0, 1, 1}},
         {"shape", Ints{36, 16, 3, 2}}});
  b.add("max_pool_grad ceil pad", Op::MaxPoolGrad, {N(F({1, 3, 13, 11})), N(F({1, 3, 7, 6}))},
        {{"kernel", Ints{3, 3}}, {"strides", Ints{2, 2}}, {"pads", Ints{1, 1, 1, 1}}, {"ceil_mode", int64_t(1)}});
  b.add("max_pool_grad dilation overlap", Op::MaxPoolGrad, {N(F({2, 3, 13, 11})), N(F({2, 3, 11, 5}))},
        {{"kernel", Ints{2, 3}}, {"strides", Ints{1, 2}}, {"dilations", Ints{2, 1}}});
  b.add("avg_pool_grad exclude pad ceil", Op::AvgPoolGrad, {N(F({1, 3, 7, 6}))},
        {{"kernel", Ints{3, 3}}, {"strides", Ints{2, 2}}, {"pads", Ints{1, 1, 1, 1}}, {"ceil_mode", int64_t(1)},
         {"shape", Ints{1, 3, 13, 11}}});
  b.add("avg_pool_grad include pad", Op::AvgPoolGrad, {N(F({1, 3, 7, 4}))},
        {{"kernel", Ints{3, 2}}, {"strides", Ints{2, 3}}, {"pads", Ints{1, 0, 1, 1}}, {"count_include_pad", int64_t(1)},
         {"ceil_mode", int64_t(1)}, {"shape", Ints{1, 3, 13, 11}}});
  b.add("gather_grad axis 1 i64", Op::GatherGrad, {N(F({5, 2, 3, 7})), Idx(T(DType::I64, {2, 3}), 6)},
        {{"axis", int64_t(1)}, {"shape", Ints{5, 6, 7}}});
  b.add("gather_grad axis 0 i32 duplicates", Op::GatherGrad, {N(F({9, 6, 7})), Idx(T(DType::I32, {9}), 2)},
        {{"axis", int64_t(0)}, {"shape", Ints{5, 6, 7}}});
  b.add("gather_elements axis 1 i64", Op::GatherElements, {N(F({4, 6, 5})), Idx(T(DType::I64, {4, 3, 5}), 6)},
        {{"axis", int64_t(1)}});
  b.add("gather_elements axis 0 i32 ints", Op::GatherElements, {N(T(DType::I32, {5, 7})), Idx(T(DType::I32, {8, 7}), 5)},
        {{"axis", int64_t(0)}});
  b.add("scatter_elements axis 1 duplicates", Op::ScatterElements,
        {N(F({4, 6, 5})), Idx(T(DType::I64, {4, 9, 5}), 6), N(F({4, 9, 5}))}, {{"axis", int64_t(1)}});
  b.add("scatter_elements axis 0 add", Op::ScatterElements, {N(F({5, 7})), Idx(T(DType::I32, {8, 7}), 5), N(F({8, 7}))},
        {{"axis", int64_t(0)}, {"reduction", int64_t(1)}});
  b.add("scatter_elements axis 0 mul i32", Op::ScatterElements,
        {N(T(DType::I32, {5, 7})), Idx(T(DType::I32, {3, 7}), 5), N(T(DType::I32, {3, 7}))},
        {{"axis", int64_t(0)}, {"reduction", int64_t(2)}});
  // The step input is any f32 (its bits are hashed); the mask must match bit for bit.
  b.add("dropout_mask ratio 0.5", Op::DropoutMask, {N(F({}))},
        {{"ratio", 0.5}, {"seed", int64_t(7)}, {"shape", Ints{100, 37}}});
  b.add("dropout_mask ratio 0.1 large seed", Op::DropoutMask, {P(F({}))},
        {{"ratio", 0.1}, {"seed", int64_t(4000000000)}, {"shape", Ints{3, 5, 7}}});
  // The GPU test binds state_write's output to input 0's bytes, as the
  // memory plan does (the kernel writes only the new rows).
  auto at = [](DType t, Shape s, int64_t v) { return std::pair<TensorType, Fill>{T(t, std::move(s)), Fill{Fill::Fixed, v}}; };
  b.add("state_write axis 1 rows 4..5", Op::StateWrite, {N(F({3, 7, 5})), N(F({3, 2, 5})), at(DType::I64, {}, 4)},
        {{"axis", int64_t(1)}});
  b.add("state_write axis 0 last row i32", Op::StateWrite,
        {I(T(DType::I32, {6, 4})), I(T(DType::I32, {1, 4})), at(DType::I32, {1}, 5)}, {{"axis", int64_t(0)}});
  b.add("state_write axis -1 whole axis", Op::StateWrite, {N(F({4, 3})), N(F({4, 3})), at(DType::I64, {}, 0)},
        {{"axis", int64_t(-1)}});
  b.add("state_write offset past the end writes nothing", Op::StateWrite,
        {N(F({3, 7, 5})), N(F({3, 2, 5})), at(DType::I64, {}, 6)}, {{"axis", int64_t(1)}});
  b.add("state_write negative offset writes nothing", Op::StateWrite,
        {N(F({3, 7, 5})), N(F({3, 2, 5})), at(DType::I32, {}, -1)}, {{"axis", int64_t(1)}});
  b.add("state_write offset 2^31-1 writes nothing", Op::StateWrite,
        {N(F({6, 4})), N(F({2, 4})), at(DType::I64, {}, 2147483647)}, {{"axis", int64_t(0)}});
  // Rotated on the way in (cos, signed_sin): a decode step's keys [1, KV, 1, D] into a cache, and a
  // prefill chunk of 3 rows into 2 heads.
  b.add("state_write rotary decode row", Op::StateWrite,
        {N(F({1, 3, 9, 64})), N(F({1, 3, 1, 64})), at(DType::I64, {1}, 5), N(F({1, 64})), N(F({1, 64}))},
        {{"axis", int64_t(2)}});
  b.add("state_write rotary prefill rows", Op::StateWrite,
        {N(F({2, 2, 8, 6})), N(F({2, 2, 3, 6})), at(DType::I32, {}, 4), N(F({3, 6})), N(F({3, 6}))},
        {{"axis", int64_t(2)}});
  // The optimizer's update: parameter, gradient, both moments (the second
  // >= 0), coef [keep, step_size, bc2_sqrt, grad_scale] > 0.
  b.add("adam_step AdamW odd count", Op::AdamStep, {N(F({1003})), N(F({1003})), N(F({1003})), P(F({1003})), P(F({4}))},
        {{"beta1", 0.9}, {"beta2", 0.999}, {"eps", 1e-8}, {"weight_decay", 0.0}});
  b.add("adam_step Adam L2 decay", Op::AdamStep, {N(F({7, 13})), N(F({7, 13})), N(F({7, 13})), P(F({7, 13})), P(F({4}))},
        {{"beta1", 0.8}, {"beta2", 0.99}, {"eps", 1e-6}, {"weight_decay", 0.01}});
}

uint32_t mix(uint32_t x) {
  x ^= x >> 16;
  x *= 0x7feb352dU;
  x ^= x >> 15;
  x *= 0x846ca68bU;
  x ^= x >> 16;
  return x;
}

}  // namespace

std::vector<OpCase> opCases() {
  std::vector<OpCase> cases;
  Builder b{cases};
  unaryCases(b);
  binaryCases(b);
  productCases(b);
  attentionCases(b);
  quantizedCases(b);
  convPoolCases(b);
  normCases(b);
  reduceCases(b);
  shapeCases(b);
  return cases;
}

HostTensor makeInput(const OpCase& c, size_t k, uint32_t seed) {
  HostTensor t(c.graph.type(c.graph.inputs.at(k)));
  const Fill& f = c.fills.at(k);
  for (int64_t i = 0; i < t.numel(); ++i) {
    uint32_t r = mix(seed * 7919u + uint32_t(k) * 104729u + uint32_t(i));
    double u = double(r) / 4294967296.0;  // [0, 1)
    switch (f.kind) {
      case Fill::Normal: t.setF(i, std::round((u * 4.0 - 2.0) * 4096.0) / 4096.0); break;
      case Fill::Positive:  // floats in [0.5, 2), integers in [1, 9]
        if (isFloat(t.type.dtype)) t.setF(i, 0.5 + u * 1.5);
        else t.setI(i, 1 + int64_t(r % 9));
        break;
      case Fill::Index: t.setI(i, int64_t(r % uint32_t(2 * f.range)) - f.range); break;
      case Fill::Bool: t.setI(i, r & 1); break;
      case Fill::SmallInt: t.setI(i, int64_t(r % 9) - 4); break;
      case Fill::Fixed: t.setI(i, f.range); break;
      case Fill::Absent: break;  // never a graph input (Builder::add)
      case Fill::Scales: t.setF(i, (1.0 + 3.0 * u) / 128.0); break;
      case Fill::CausalMask: {
        const int64_t S = t.type.shape.back(), row = i / S, key = i % S;
        t.setF(i, key <= row + f.range ? 0.0 : -3.4028234663852886e38);
        break;
      }
      case Fill::Words:
        if (f.range == int64_t(WeightFormat::F16)) {
          uint32_t lo = floatToHalf(float(u * 4.0 - 2.0)), hi = floatToHalf(float(double(mix(r) % 4096) / 1024.0 - 2.0));
          t.setI(i, int32_t(lo | hi << 16));
        } else {
          t.setI(i, int32_t(r));
        }
        break;
    }
  }
  return t;
}

}  // namespace mgc::test
