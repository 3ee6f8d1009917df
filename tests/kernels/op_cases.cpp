#include "op_cases.h"

#include <cmath>

#include "ir/qweights.h"

namespace mgc::test {

namespace {

using Ints = std::vector<int64_t>;

struct Builder {
  std::vector<OpCase>& out;

  // A case with inputs (name → type + fill) and one node.
  void add(const std::string& label, Op op, std::vector<std::pair<TensorType, Fill>> inputs, Attrs attrs = {},
           double tolerance = 1e-4) {
    OpCase c;
    c.label = label;
    c.tolerance = tolerance;
    std::vector<ValueId> ins;
    for (size_t k = 0; k < inputs.size(); ++k) {
      if (inputs[k].second.kind == Fill::Absent) {
        ins.push_back(kNoValue);
        continue;
      }
      ins.push_back(c.graph.addInput("in" + std::to_string(k), inputs[k].first));
      c.fills.push_back(inputs[k].second);
    }
    NodeId id = c.graph.addNode(op, "n_" + std::string(opName(op)), ins, std::move(attrs));
    c.graph.outputs = c.graph.nodes[size_t(id)].outputs;
    out.push_back(std::move(c));
  }
};

TensorType T(DType t, Shape s) { return TensorType{t, std::move(s)}; }
TensorType F(Shape s) { return T(DType::F32, std::move(s)); }
std::pair<TensorType, Fill> N(TensorType t) { return {std::move(t), Fill{}}; }
std::pair<TensorType, Fill> P(TensorType t) { return {std::move(t), Fill{Fill::Positive, 0}}; }
std::pair<TensorType, Fill> B(Shape s) { return {T(DType::Bool, std::move(s)), Fill{Fill::Bool, 0}}; }
std::pair<TensorType, Fill> I(TensorType t) { return {std::move(t), Fill{Fill::SmallInt, 0}}; }
std::pair<TensorType, Fill> Idx(TensorType t, int64_t range) { return {std::move(t), Fill{Fill::Index, range}}; }

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

void nnCases(Builder& b) {
  b.add("matmul 5x7@7x3", Op::MatMul, {N(F({5, 7})), N(F({7, 3}))});
  b.add("matmul batch broadcast", Op::MatMul, {N(F({2, 1, 5, 7})), N(F({3, 7, 6}))});
  b.add("matmul vector@matrix", Op::MatMul, {N(F({7})), N(F({7, 3}))});
  b.add("matmul matrix@vector", Op::MatMul, {N(F({5, 7})), N(F({7}))});
  b.add("matmul 67x130@130x65", Op::MatMul, {N(F({67, 130})), N(F({130, 65}))});
  // Operands stored transposed (ir/matmul.h): A [K, M], B [N, K]; tile edges, batch broadcast, epilogue.
  Attrs ta{{"trans_a", int64_t(1)}}, tb{{"trans_b", int64_t(1)}}, tab{{"trans_a", int64_t(1)}, {"trans_b", int64_t(1)}};
  b.add("matmul trans_a 130x67", Op::MatMul, {N(F({130, 67})), N(F({130, 65}))}, ta);
  b.add("matmul trans_b 65x130", Op::MatMul, {N(F({67, 130})), N(F({65, 130}))}, tb);
  b.add("matmul trans_a trans_b batch", Op::MatMul, {N(F({2, 1, 19, 70})), N(F({3, 66, 19}))}, tab);
  b.add("conv stride 2 pad 1", Op::Conv, {N(F({1, 3, 13, 11})), N(F({8, 3, 3, 3}))},
        {{"strides", Ints{2, 2}}, {"pads", Ints{1, 1, 1, 1}}});
  b.add("conv groups dilation bias", Op::Conv, {N(F({1, 6, 13, 11})), N(F({4, 3, 3, 2})), N(F({4}))},
        {{"group", int64_t(2)}, {"dilations", Ints{2, 1}}, {"pads", Ints{0, 1, 1, 0}}});
  b.add("conv depthwise bias", Op::Conv, {N(F({2, 6, 13, 11})), N(F({6, 1, 3, 3})), N(F({6}))},
        {{"group", int64_t(6)}, {"pads", Ints{1, 1, 1, 1}}, {"strides", Ints{1, 2}}});
  b.add("conv gemm path bias", Op::Conv, {N(F({1, 8, 9, 7})), N(F({32, 8, 3, 3})), N(F({32}))},
        {{"pads", Ints{1, 0, 2, 1}}, {"strides", Ints{1, 1}}});
  b.add("conv gemm path groups", Op::Conv, {N(F({2, 4, 9, 9})), N(F({34, 2, 1, 1}))}, {{"group", int64_t(2)}});
  b.add("conv gemm 1x3x13x11 s2 d2", Op::Conv, {N(F({1, 3, 13, 11})), N(F({70, 3, 3, 3}))},
        {{"strides", Ints{2, 1}}, {"dilations", Ints{2, 2}}, {"pads", Ints{2, 2, 2, 2}}});
  // Fused epilogues (ir/epilogue.h): codes 1 relu, 2 clip, 3 leaky_relu, 4 sigmoid, 5 gelu erf,
  // 6 gelu tanh, 7 add operand, 8 hard_swish, 9 tanh, 10 mul_silu (v *= silu(operand)); 2 args per step.
  auto epi = [](Ints codes, std::vector<double> args) {
    return Attrs{{"epilogue", codes}, {"epilogue_args", args}};
  };
  b.add("conv gemm bias+residual+relu", Op::Conv,
        {N(F({2, 8, 9, 7})), N(F({32, 8, 3, 3})), N(F({32})), N(F({2, 32, 9, 7}))},
        [&] { Attrs a = epi({7, 1}, {0, 0, 0, 0}); a["pads"] = Ints{1, 1, 1, 1}; return a; }());
  b.add("conv 1x1 plain gemm relu6", Op::Conv, {N(F({3, 20, 5, 6})), N(F({70, 20, 1, 1})), N(F({70}))},
        epi({2}, {0.0, 6.0}));
  b.add("conv direct depthwise clip+leaky", Op::Conv, {N(F({2, 6, 13, 11})), N(F({6, 1, 3, 3})), N(F({6}))},
        [&] { Attrs a = epi({2, 3}, {-0.5, 0.5, 0.2, 0}); a["group"] = int64_t(6); return a; }());
  b.add("conv direct residual sigmoid", Op::Conv,
        {N(F({1, 3, 13, 11})), N(F({8, 3, 3, 3})), N(F({8})), N(F({1, 8, 11, 9}))}, epi({7, 4}, {0, 0, 0, 0}));
  b.add("matmul bias gelu", Op::MatMul, {N(F({2, 67, 33})), N(F({33, 65})), N(F({65}))},
        epi({7, 5, 8}, {0, 0, 0, 0, 0, 0}));
  b.add("matmul trans_b bias relu", Op::MatMul, {N(F({2, 67, 33})), N(F({65, 33})), N(F({65}))},
        [&] { Attrs a = epi({7, 1}, {0, 0, 0, 0}); a["trans_b"] = int64_t(1); return a; }());
  b.add("matmul bias+residual", Op::MatMul, {N(F({67, 130})), N(F({130, 65})), N(F({1, 65})), N(F({67, 65}))},
        epi({7, 7, 6, 9}, {0, 0, 0, 0, 0, 0, 0, 0}));
  // Step 10, mul_silu (v *= silu(o)): a decode product whose operand is its gate (the matvec path),
  // with the add before it taking a row vector; tiles with a full-shape operand.
  b.add("matmul 1 row bias mul_silu", Op::MatMul, {N(F({1, 1, 96})), N(F({96, 70})), N(F({70})), N(F({1, 1, 70}))},
        epi({7, 10}, {0, 0, 0, 0}));
  b.add("matmul tiles mul_silu relu", Op::MatMul, {N(F({67, 40})), N(F({40, 65})), N(F({67, 65}))},
        epi({10, 1}, {0, 0, 0, 0}));
  // Small grids, K >= 64, not split (lower_common.h slicedGemm): the sliced core (matmul_sliced.comp,
  // conv2d_sliced.comp; lavapipe runs its 512-thread variant), two slices of alternate 16-deep steps
  // over an odd step count and a K that ends inside a step, every layout, batches, epilogues.
  b.add("matmul sliced 3x70x200 trans_b batch bias+residual", Op::MatMul,
        {N(F({3, 70, 200})), N(F({72, 200})), N(F({72})), N(F({3, 70, 72}))},
        [&] { Attrs a = epi({7, 7}, {0, 0, 0, 0}); a["trans_b"] = int64_t(1); return a; }());
  b.add("matmul sliced trans_a 150x66", Op::MatMul, {N(F({150, 66})), N(F({150, 40}))}, ta);
  b.add("conv sliced strided padded 16x3x3 bias relu", Op::Conv,
        {N(F({2, 16, 11, 9})), N(F({40, 16, 3, 3})), N(F({40}))},
        [&] { Attrs a = epi({1}, {0, 0}); a["pads"] = Ints{1, 0, 1, 2}; a["strides"] = Ints{2, 1}; return a; }());
  b.add("conv sliced 1x1 plain 96 channels", Op::Conv, {N(F({2, 96, 5, 7})), N(F({33, 96, 1, 1}))}, Attrs{});
  // Many 128x128 tiles (>= 192) and K >= 256 (lower_matmul.cpp): matmul_large.comp, vec4 operand rows,
  // partial tiles on both edges, K % 8 == 4 (the last step half empty), every layout, batch broadcast,
  // epilogue; fewer tiles but long K: matmul_medium.comp (the same core on 64x64 tiles), or, from
  // K = 1024 on grids under 256 tiles, split-K over >= 512-deep slices.
  b.add("matmul large batch 48x130x260@260x132 bias+residual", Op::MatMul,
        {N(F({48, 130, 260})), N(F({260, 132})), N(F({132})), N(F({48, 130, 132}))}, epi({7, 7}, {0, 0, 0, 0}));
  b.add("matmul large trans_a trans_b batch", Op::MatMul, {N(F({48, 260, 132})), N(F({48, 130, 260}))}, tab);
  b.add("matmul large trans_a", Op::MatMul, {N(F({2, 24, 260, 132})), N(F({260, 136}))}, ta);
  // 288 tiles of 64x64 (below 256 they split over K: the next case).
  b.add("matmul medium 32x130x512 trans_b relu", Op::MatMul, {N(F({32, 130, 512})), N(F({132, 512}))},
        [&] { Attrs a = epi({1}, {0, 0}); a["trans_b"] = int64_t(1); return a; }());
  b.add("matmul mid-grid split-K 8x130x1024 trans_b relu", Op::MatMul, {N(F({8, 130, 1024})), N(F({132, 1024}))},
        [&] { Attrs a = epi({1}, {0, 0}); a["trans_b"] = int64_t(1); return a; }());
  // The accelerated mode (ir/matmul.h, `--precision`): operands rounded to fp16 / bf16, f32 sums
  // (matmul_f16.comp, matmul_bf16.comp; the evaluator rounds the same way). Partial 64x64 tiles, K
  // not a multiple of the 32-deep steps, every layout, batch broadcast, fused epilogue.
  auto prec = [](const char* p, Attrs a = {}) { a["precision"] = std::string(p); return a; };
  b.add("matmul fp16 67x100@100x68 bias+residual", Op::MatMul,
        {N(F({67, 100})), N(F({100, 68})), N(F({68})), N(F({67, 68}))}, prec("fp16", epi({7, 7}, {0, 0, 0, 0})));
  b.add("matmul fp16 trans_a trans_b batch", Op::MatMul, {N(F({2, 1, 36, 68})), N(F({3, 72, 36}))}, prec("fp16", tab));
  b.add("matmul fp16 trans_a gelu", Op::MatMul, {N(F({260, 132})), N(F({260, 8}))},
        prec("fp16", [&] { Attrs a = epi({5}, {0, 0}); a["trans_a"] = int64_t(1); return a; }()));
  b.add("matmul fp16 batch 3x130x64@64x200", Op::MatMul, {N(F({3, 130, 64})), N(F({64, 200}))}, prec("fp16"));
  // Few 64x64 tiles and K ≥ 256: matmul_f16_splitk.comp between conv2d_finish passes (K in
  // slices that end inside a step, every layout, batches, the epilogue in the finish pass).
  b.add("matmul fp16 splitk 70x600@600x100 bias+residual", Op::MatMul,
        {N(F({70, 600})), N(F({600, 100})), N(F({100})), N(F({70, 100}))}, prec("fp16", epi({7, 7}, {0, 0, 0, 0})));
  b.add("matmul fp16 splitk trans_b batch", Op::MatMul, {N(F({3, 50, 300})), N(F({72, 300}))}, prec("fp16", tb));
  // 72 tiles of 64x64 over K 1024: the mid-grid policy's 4 slices.
  b.add("matmul fp16 mid-grid split-K 8x130x1024 trans_b relu", Op::MatMul, {N(F({8, 130, 1024})), N(F({132, 1024}))},
        prec("fp16", [&] { Attrs a = epi({1}, {0, 0}); a["trans_b"] = int64_t(1); return a; }()));
  b.add("matmul fp16 splitk trans_a gelu", Op::MatMul, {N(F({264, 40})), N(F({264, 36}))},
        prec("fp16", [&] { Attrs a = epi({5}, {0, 0}); a["trans_a"] = int64_t(1); return a; }()));
  // ≥ 192 tiles of 128x128 and K ≥ 256: matmul_f16_large.comp, every layout, partial tiles, K % 32 != 0.
  b.add("matmul fp16 large batch 48x130x260@260x132 bias+residual", Op::MatMul,
        {N(F({48, 130, 260})), N(F({260, 132})), N(F({132})), N(F({48, 130, 132}))},
        prec("fp16", epi({7, 7}, {0, 0, 0, 0})));
  b.add("matmul fp16 large trans_a trans_b batch", Op::MatMul, {N(F({48, 260, 132})), N(F({48, 130, 260}))},
        prec("fp16", tab));
  b.add("matmul fp16 large trans_a", Op::MatMul, {N(F({2, 24, 260, 132})), N(F({260, 136}))}, prec("fp16", ta));
  b.add("matmul fp16 large trans_b gelu_tanh", Op::MatMul, {N(F({50, 136, 260})), N(F({132, 260}))},
        prec("fp16", [&] { Attrs a = epi({6}, {0, 0}); a["trans_b"] = int64_t(1); return a; }()));
  b.add("matmul bf16 67x100@100x68 bias", Op::MatMul, {N(F({67, 100})), N(F({100, 68})), N(F({68}))},
        prec("bf16", epi({7}, {0, 0})));
  b.add("matmul bf16 trans_b batch", Op::MatMul, {N(F({2, 70, 36})), N(F({2, 72, 36}))}, prec("bf16", tb));
  // Few output tiles, long K: split-K (matmul_splitk between two conv2d_finish passes, lower_matmul.cpp),
  // with operands stored transposed, a batch and a fused epilogue (row-vector bias + residual).
  b.add("matmul split-k trans_b batch bias+residual+relu", Op::MatMul,
        {N(F({2, 67, 1100})), N(F({70, 1100})), N(F({70})), N(F({2, 67, 70}))},
        [&] { Attrs a = epi({7, 7, 1}, {0, 0, 0, 0, 0, 0}); a["trans_b"] = int64_t(1); return a; }());
  b.add("matmul split-k trans_a", Op::MatMul, {N(F({1300, 5})), N(F({1300, 9}))}, ta);
  // Only adds (linear): the zeroing pass starts the sum at the bias and residual, no finishing pass.
  b.add("matmul split-k bias+residual", Op::MatMul,
        {N(F({2, 67, 1100})), N(F({1100, 70})), N(F({70})), N(F({2, 67, 70}))}, epi({7, 7}, {0, 0, 0, 0}));
  // At most 4 rows (a decode step): matvec.comp, both B layouts, column counts off the workgroup width,
  // A stored transposed, batch broadcast, fused epilogue.
  b.add("matvec 1x577@577x70", Op::MatMul, {N(F({1, 577})), N(F({577, 70}))});
  // Over kMatVecNarrowUpTo columns: the wide workgroup shape (8 x 32), both layouts.
  b.add("matvec wide 1x40@40x8200", Op::MatMul, {N(F({1, 40})), N(F({40, 8200}))});
  b.add("matvec wide 2 rows trans_b 8200x40", Op::MatMul, {N(F({2, 40})), N(F({8200, 40}))}, tb);
  b.add("matvec 4 rows trans_b 45x300", Op::MatMul, {N(F({4, 300})), N(F({45, 300}))}, tb);
  b.add("matvec trans_a 3 rows", Op::MatMul, {N(F({130, 3})), N(F({130, 33}))}, ta);
  b.add("matvec batch broadcast trans_b (attention scores)", Op::MatMul,
        {N(F({1, 3, 3, 1, 64})), N(F({1, 3, 1, 37, 64}))}, tb);
  b.add("matvec bias+residual", Op::MatMul, {N(F({2, 1, 130})), N(F({130, 65})), N(F({65})), N(F({2, 1, 65}))},
        epi({7, 7}, {0, 0, 0, 0}));
  // The fused RMSNorm prologue (ir/epilogue.h; the norm weight is the last input): both workgroup
  // shapes, B stored transposed, several rows, a batch, with an epilogue.
  auto rms = [](Attrs a = {}) {
    a["rms_eps"] = 1e-5;
    return a;
  };
  b.add("matvec rms prologue 1x577@577x70", Op::MatMul, {N(F({1, 577})), N(F({577, 70})), N(F({577}))}, rms());
  b.add("matvec rms prologue wide 1x40@40x8200", Op::MatMul, {N(F({1, 40})), N(F({40, 8200})), N(F({40}))}, rms());
  b.add("matvec rms prologue 3 rows trans_b bias+residual", Op::MatMul,
        {N(F({3, 130})), N(F({65, 130})), N(F({65})), N(F({3, 65})), N(F({130}))},
        [&] { Attrs a = rms(epi({7, 7}, {0, 0, 0, 0})); a["trans_b"] = int64_t(1); return a; }());
  b.add("matvec rms prologue batch 2x1x64", Op::MatMul, {N(F({2, 1, 64})), N(F({64, 30})), N(F({64}))}, rms());
  Attrs swiglu{{"swiglu", int64_t(1)}};
  b.add("matvec swiglu prologue 1x96@96x40", Op::MatMul, {N(F({1, 96})), N(F({96, 40})), N(F({1, 96}))}, swiglu);
  b.add("matvec swiglu prologue 2 rows trans_b residual", Op::MatMul,
        {N(F({2, 1, 70})), N(F({33, 70})), N(F({2, 1, 33})), N(F({2, 1, 70}))},
        [&] { Attrs a = epi({7}, {0, 0}); a["trans_b"] = int64_t(1); a["swiglu"] = int64_t(1); return a; }());
  // Fused attention (attention.comp): GQA broadcast, a causal mask over a
  // cache (hidden keys unread), more keys than one 128-key chunk, Dv != D,
  // head dims over 128 (several accumulators per invocation).
  auto causal = [](int64_t rows, int64_t S, int64_t visibleAhead) {
    return std::pair<TensorType, Fill>{F({rows, S}), Fill{Fill::CausalMask, visibleAhead}};
  };
  b.add("attention decode GQA masked cache", Op::Attention,
        {N(F({1, 3, 3, 1, 64})), N(F({1, 3, 1, 300, 64})), N(F({1, 3, 1, 300, 64})), causal(1, 300, 170)},
        {{"scale", 0.125}});
  b.add("attention prefill 5 rows causal", Op::Attention,
        {N(F({2, 5, 16})), N(F({2, 5, 16})), N(F({2, 5, 24})), causal(5, 5, 0)}, {{"scale", 0.25}});
  b.add("attention head 6 (scalar key reads), a hidden chunk skipped", Op::Attention,
        {N(F({1, 2, 6})), N(F({1, 300, 6})), N(F({1, 300, 5})), causal(2, 300, 3)}, {{"scale", 0.4}});
  b.add("attention Dv 32 (4 key lanes) 300 keys masked", Op::Attention,
        {N(F({1, 2, 1, 32})), N(F({1, 2, 300, 32})), N(F({1, 2, 300, 32})), causal(1, 300, 201)}, {{"scale", 0.18}});
  b.add("attention no mask 260 keys head 160", Op::Attention,
        {N(F({1, 2, 3, 160})), N(F({1, 2, 260, 160})), N(F({1, 2, 260, 200}))}, {{"scale", 0.08}});
  // attention_tiled.comp (>= 32 query rows, heads of at most 64; attention_tiled24 on grids of under
  // 256 blocks of 64 rows): a partial last query block and key block, causal masks (rows hidden whole
  // in a block, the cache's hidden tail), GQA broadcast, D 60 / Dv 32, fewer keys than one block,
  // several batches (grid y), no mask.
  b.add("attention tiled 70 rows causal 2 batches", Op::Attention,
        {N(F({2, 70, 64})), N(F({2, 70, 64})), N(F({2, 70, 64})), causal(70, 70, 0)}, {{"scale", 0.125}});
  b.add("attention tiled GQA 3:1 D 60 Dv 32 cache tail hidden", Op::Attention,
        {N(F({1, 2, 3, 40, 60})), N(F({1, 2, 1, 150, 60})), N(F({1, 2, 1, 150, 32})), causal(40, 150, 90)},
        {{"scale", 0.13}});
  b.add("attention tiled 130 rows 20 keys no mask", Op::Attention,
        {N(F({3, 130, 16})), N(F({3, 20, 16})), N(F({3, 20, 8}))}, {{"scale", 0.3}});
  b.add("attention tiled 64-row blocks 260 batches causal", Op::Attention,
        {N(F({260, 70, 8})), N(F({260, 70, 8})), N(F({260, 70, 12})), causal(70, 70, 0)}, {{"scale", 0.35}});
  // The accelerated mode's attention (Attention{precision="fp16"}: attention_f16.comp, q k v and the
  // weights rounded to fp16 against each row's max, f32 sums; the evaluator rounds the same way): a
  // partial 64-row block and 64-key block, causal masks, GQA broadcast, D 60 / Dv 32 (zero-padded
  // fragments), 16 rows, several key blocks, tokens-major operands.
  // A weight whose f32 value differs from the evaluator's in its last bit can round to the
  // neighbouring fp16 (2^-11 apart), moving an output by that much of the weight's share of its row
  // times |v| (here up to 1e-4 seen on lavapipe): 3e-4. Operands left unrounded fail these cases
  // (checked: 8 of 18 runs); the weights' rounding alone is below this tolerance.
  auto f16 = [](Attrs a) { a["precision"] = std::string("fp16"); return a; };
  const double weightRounding = 3e-4;
  b.add("attention fp16 70 rows causal 2 batches", Op::Attention,
        {N(F({2, 70, 64})), N(F({2, 70, 64})), N(F({2, 70, 64})), causal(70, 70, 0)}, f16({{"scale", 0.125}}),
        weightRounding);
  b.add("attention fp16 GQA 3:1 D 60 Dv 32 cache tail hidden", Op::Attention,
        {N(F({1, 2, 3, 40, 60})), N(F({1, 2, 1, 150, 60})), N(F({1, 2, 1, 150, 32})), causal(40, 150, 90)},
        f16({{"scale", 0.13}}), weightRounding);
  b.add("attention fp16 16 rows 300 keys no mask", Op::Attention,
        {N(F({3, 16, 16})), N(F({3, 300, 16})), N(F({3, 300, 8}))}, f16({{"scale", 0.3}}), weightRounding);
  b.add("attention fp16 tokens-major 20 rows GQA", Op::Attention,
        {N(F({2, 20, 3, 2, 16})), N(F({2, 40, 3, 1, 16})), N(F({2, 40, 3, 1, 8})), causal(20, 40, 20)},
        f16({{"scale", 0.25}, {"tokens_major", int64_t(15)}}), weightRounding);
  // tokens_major operands (ir/attention_layout.h): stored [B, rows, heads.., W], read and written in
  // place by both kernels; GQA's 5-D views, k head-major next to a tokens-major v.
  b.add("attention tokens-major q k v out 2 rows GQA", Op::Attention,
        {N(F({2, 2, 3, 2, 16})), N(F({2, 40, 3, 1, 16})), N(F({2, 40, 3, 1, 8})), causal(2, 40, 38)},
        {{"scale", 0.25}, {"tokens_major", int64_t(15)}});
  b.add("attention tiled tokens-major v out, k head-major GQA 4:1", Op::Attention,
        {N(F({1, 2, 4, 50, 60})), N(F({1, 2, 1, 50, 60})), N(F({1, 50, 2, 1, 60}))},
        {{"scale", 0.13}, {"tokens_major", int64_t(12)}});
  b.add("attention tiled tokens-major q k 70 rows 3 heads causal", Op::Attention,
        {N(F({2, 70, 3, 32})), N(F({2, 70, 3, 32})), N(F({2, 3, 70, 32})), causal(70, 70, 0)},
        {{"scale", 0.17}, {"tokens_major", int64_t(3)}});
  // attention_cache.comp: RoPE on q and the new keys, the chunk's rows from k / v at [offset,
  // offset + T) and written into the caches (outputs 1, 2: compared too), the cache elsewhere.
  auto pos = [](DType t, int64_t v) { return std::pair<TensorType, Fill>{T(t, {1}), Fill{Fill::Fixed, v}}; };
  const std::pair<TensorType, Fill> noMask{TensorType{}, Fill{Fill::Absent, 0}};
  b.add("attention_cache decode GQA 3:1, row 5 of 9", Op::AttentionCache,
        {N(F({1, 6, 1, 64})), N(F({1, 2, 1, 64})), N(F({1, 2, 1, 64})), N(F({1, 2, 9, 64})), N(F({1, 2, 9, 64})),
         pos(DType::I64, 5), N(F({1, 64})), N(F({1, 64})), causal(1, 9, 5)},
        {{"scale", 0.125}});
  b.add("attention_cache decode 200-row cache, row 150 (2 key chunks, 2 key lanes)", Op::AttentionCache,
        {N(F({1, 6, 1, 64})), N(F({1, 2, 1, 64})), N(F({1, 2, 1, 64})), N(F({1, 2, 200, 64})), N(F({1, 2, 200, 64})),
         pos(DType::I64, 150), N(F({1, 64})), N(F({1, 64})), causal(1, 200, 150)},
        {{"scale", 0.125}});
  b.add("attention_cache prefill 40 rows of 64 (keys rotated as read, past the shared row buffer)", Op::AttentionCache,
        {N(F({1, 2, 40, 64})), N(F({1, 1, 40, 64})), N(F({1, 1, 40, 64})), N(F({1, 1, 64, 64})), N(F({1, 1, 64, 64})),
         pos(DType::I64, 8), N(F({40, 64})), N(F({40, 64})), causal(40, 64, 8)},
        {{"scale", 0.125}});
  b.add("attention_cache prefill 3 rows at 4, batch 2, head 6 (scalar keys), Dv 5", Op::AttentionCache,
        {N(F({2, 2, 3, 6})), N(F({2, 2, 3, 6})), N(F({2, 2, 3, 5})), N(F({2, 2, 8, 6})), N(F({2, 2, 8, 5})),
         pos(DType::I32, 4), N(F({3, 6})), N(F({3, 6})), causal(3, 8, 4)},
        {{"scale", 0.4}});
  b.add("attention_cache 300-row cache, no mask, row 170", Op::AttentionCache,
        {N(F({1, 4, 1, 32})), N(F({1, 1, 1, 32})), N(F({1, 1, 1, 40})), N(F({1, 1, 300, 32})), N(F({1, 1, 300, 40})),
         pos(DType::I64, 170), N(F({1, 32})), N(F({1, 32})), noMask},
        {{"scale", 0.2}});
  b.add("attention_cache offset past the end writes nothing", Op::AttentionCache,
        {N(F({1, 2, 2, 8})), N(F({1, 1, 2, 8})), N(F({1, 1, 2, 8})), N(F({1, 1, 6, 8})), N(F({1, 1, 6, 8})),
         pos(DType::I64, 5), N(F({2, 8})), N(F({2, 8})), causal(2, 6, 4)},
        {{"scale", 0.3}});
  // causal = 1 (fold-causal-mask): no mask input, the loop stops at offset + t; a row that sees no key
  // (offset + t < 0) scores all keys -FLT_MAX, the mask's hidden value: their plain average.
  const Attrs causalAttrs{{"scale", 0.125}, {"causal", int64_t(1)}};
  b.add("attention_cache causal decode 200-row cache, row 150", Op::AttentionCache,
        {N(F({1, 6, 1, 64})), N(F({1, 2, 1, 64})), N(F({1, 2, 1, 64})), N(F({1, 2, 200, 64})), N(F({1, 2, 200, 64})),
         pos(DType::I64, 150), N(F({1, 64})), N(F({1, 64}))},
        causalAttrs);
  b.add("attention_cache causal prefill 40 rows at 8", Op::AttentionCache,
        {N(F({1, 2, 40, 64})), N(F({1, 1, 40, 64})), N(F({1, 1, 40, 64})), N(F({1, 1, 64, 64})), N(F({1, 1, 64, 64})),
         pos(DType::I64, 8), N(F({40, 64})), N(F({40, 64}))},
        causalAttrs);
  b.add("attention_cache causal offset -3: rows 0-2 see no key", Op::AttentionCache,
        {N(F({1, 2, 5, 8})), N(F({1, 1, 5, 8})), N(F({1, 1, 5, 8})), N(F({1, 1, 6, 8})), N(F({1, 1, 6, 8})),
         pos(DType::I32, -3), N(F({5, 8})), N(F({5, 8}))},
        causalAttrs);
  b.add("rotary q [1, 9, 1, 64]", Op::Rotary, {N(F({1, 9, 1, 64})), N(F({1, 64})), N(F({1, 64}))});
  b.add("rotary prefill [2, 3, 5, 6]", Op::Rotary, {N(F({2, 3, 5, 6})), N(F({5, 6})), N(F({5, 6}))});
  // Reading q's head transpose in place: x [B, T, H, D] → out [B, H, T, D].
  b.add("rotary tokens-major [2, 5, 3, 6] -> [2, 3, 5, 6]", Op::Rotary, {N(F({2, 5, 3, 6})), N(F({5, 6})), N(F({5, 6}))},
        {{"tokens_major", int64_t(1)}});
  // Packed low-bit weights (QMatMul): qmatvec.comp up to 4 rows, qmatmul.comp's tiles above, every
  // format, odd N, epilogues (row-vector bias, residual, activation).
  auto qm = [&](const std::string& label, WeightFormat f, Shape x, int64_t n, int64_t group,
                std::vector<std::pair<TensorType, Fill>> epiOps = {}, Attrs extra = {}) {
    const int64_t K = x.back(), per = weightsPerWord(f);
    std::vector<std::pair<TensorType, Fill>> ins{N(F(x)), {T(DType::I32, {n, K / per}), Fill{Fill::Words, int64_t(f)}}};
    if (weightFormatInfo(f).scaled) ins.push_back({F({n, K / group}), Fill{Fill::Scales, 0}});
    Attrs a = std::move(extra);
    a["format"] = int64_t(f);
    a["group"] = group;
    ins.insert(ins.end(), epiOps.begin(), epiOps.end());
    b.add("qmatmul " + label, Op::QMatMul, std::move(ins), std::move(a));
  };
  qm("f16 matvec 1x64 n70", WeightFormat::F16, {1, 64}, 70, 0);
  qm("int8 matvec 2 rows bias+residual", WeightFormat::Int8, {2, 1, 128}, 45, 32, {N(F({45})), N(F({2, 1, 45}))},
     epi({7, 7}, {0, 0, 0, 0}));
  qm("int4 matvec 4 rows n33", WeightFormat::Int4, {4, 96}, 33, 32);
  qm("int8 matvec 1 row relu", WeightFormat::Int8, {1, 1, 192}, 19, 64, {}, epi({1}, {0, 0}));
  qm("f16 matvec 1 row, rows of 35 words (word path)", WeightFormat::F16, {1, 70}, 13, 0);
  qm("int4 matvec 1x8192 (16-byte loads, 4 in flight)", WeightFormat::Int4, {1, 8192}, 11, 64);
  qm("ternary matvec 1x256 n9", WeightFormat::Ternary, {1, 256}, 9, 64);
  qm("int4 matvec long row (4 words in flight)", WeightFormat::Int4, {1, 2048}, 17, 128);
  // With the RMSNorm prologue: the one-row paths (16-byte loads, words), several rows, f16's absent scales slot.
  const std::pair<TensorType, Fill> noScales{TensorType{}, Fill{Fill::Absent, 0}};
  qm("f16 matvec 1x64 n70 rms prologue", WeightFormat::F16, {1, 64}, 70, 0, {noScales, N(F({64}))}, rms());
  qm("f16 matvec 1x70 rms prologue (word path)", WeightFormat::F16, {1, 70}, 13, 0, {noScales, N(F({70}))}, rms());
  qm("int8 matvec 2 rows bias+residual rms prologue", WeightFormat::Int8, {2, 1, 128}, 45, 32,
     {N(F({45})), N(F({2, 1, 45})), N(F({128}))}, rms(epi({7, 7}, {0, 0, 0, 0})));
  qm("int4 matvec 1x4096 rms prologue (the most staged columns)", WeightFormat::Int4, {1, 4096}, 11, 64, {N(F({4096}))}, rms());
  qm("ternary matvec 1x256 rms prologue", WeightFormat::Ternary, {1, 256}, 9, 64, {N(F({256}))}, rms());
  Attrs swi{{"swiglu", int64_t(1)}};
  qm("f16 matvec 1x64 swiglu prologue", WeightFormat::F16, {1, 64}, 20, 0, {noScales, N(F({1, 64}))}, swi);
  qm("int4 matvec 1x1024 swiglu prologue", WeightFormat::Int4, {1, 1024}, 11, 64, {N(F({1, 1024}))}, swi);
  qm("int8 matvec 3 rows swiglu prologue", WeightFormat::Int8, {3, 128}, 21, 32, {N(F({3, 128}))}, swi);
  // qmatvec's one-row path (qmatvec_rows.glsl): 4 rows of W per warp, N not a multiple of 4 nor of
  // the workgroup's rows; S warps per 4 rows (lower_qmatmul.cpp: 1 for short rows, up to 8 for long
  // rows and few outputs); x staged in chunks of 4096 (two and a partial third); each format; groups
  // spanning 4-word columns (1, 2, 3 or 4 per group), half or a quarter of one (two or four scales
  // per column); the prologues and epilogues with slices.
  qm("int4 rows g32 1x1024 n37 (S 1)", WeightFormat::Int4, {1, 1024}, 37, 32);
  qm("int4 rows g128 1x2048 n70 (S 2)", WeightFormat::Int4, {1, 2048}, 70, 128);
  qm("int4 rows g64 1x2048 n8200 (S 1, 2 steps)", WeightFormat::Int4, {1, 2048}, 8200, 64);
  qm("int4 rows g16 1x512 n6 (2 scales per column)", WeightFormat::Int4, {1, 512}, 6, 16);
  qm("int4 rows g8 1x256 n5 (4 scales per column)", WeightFormat::Int4, {1, 256}, 5, 8);
  qm("int4 rows g96 1x6144 n7 (3 columns per group, 2 chunks)", WeightFormat::Int4, {1, 6144}, 7, 96);
  qm("int4 rows g64 1x11008 n13 (3 chunks)", WeightFormat::Int4, {1, 11008}, 13, 64);
  qm("int8 rows g128 1x4096 n21 (S 8)", WeightFormat::Int8, {1, 4096}, 21, 128);
  qm("int8 rows g32 1x512 n38", WeightFormat::Int8, {1, 512}, 38, 32);
  qm("int8 rows g4 1x128 n3 (a scale per word)", WeightFormat::Int8, {1, 128}, 3, 4);
  qm("ternary rows g32 1x4096 n10 (2 scales per column, S 2)", WeightFormat::Ternary, {1, 4096}, 10, 32);
  qm("ternary rows g128 1x8192 n33 (2 chunks)", WeightFormat::Ternary, {1, 8192}, 33, 128);
  qm("ternary rows g16 1x1024 n7", WeightFormat::Ternary, {1, 1024}, 7, 16);
  qm("f16 rows 1x2048 n13 (S 8)", WeightFormat::F16, {1, 2048}, 13, 0);
  qm("f16 rows 1x8200 n5 (3 chunks)", WeightFormat::F16, {1, 8200}, 5, 0);
  qm("int4 rows 1x2048 n45 bias+residual (S 2)", WeightFormat::Int4, {1, 2048}, 45, 64, {N(F({45})), N(F({1, 45}))},
     epi({7, 7}, {0, 0, 0, 0}));
  qm("int8 rows 1x2048 n29 swiglu (S 4)", WeightFormat::Int8, {1, 2048}, 29, 64, {N(F({1, 2048}))}, swi);
  qm("ternary rows 1x4096 n18 rms relu", WeightFormat::Ternary, {1, 4096}, 18, 64, {N(F({4096}))}, rms(epi({1}, {0, 0})));
  qm("f16 rows 1x1024 n66 rms", WeightFormat::F16, {1, 1024}, 66, 0, {noScales, N(F({1024}))}, rms());
  // An up product taking its gate in the epilogue (fuse-swiglu-epilogue: mul_silu after the rms
  // prologue), the one-row path with S 1 and S 2, and the word path.
  qm("int4 rows g64 1x4096 n4160 rms mul_silu (S 1)", WeightFormat::Int4, {1, 4096}, 4160, 64,
     {N(F({1, 4160})), N(F({4096}))}, rms(epi({10}, {0, 0})));
  qm("f16 rows 1x2048 n45 mul_silu (S 2)", WeightFormat::F16, {1, 2048}, 45, 0, {noScales, N(F({1, 45}))},
     epi({10}, {0, 0}));
  qm("int8 1 row g24 1x480 n7 mul_silu (word path)", WeightFormat::Int8, {1, 480}, 7, 24, {N(F({1, 7}))},
     epi({10}, {0, 0}));
  // More row groups than the 256 workgroups of a K <= 4096 grid: workgroups loop, x staged (and its
  // norm taken) by the first row group only; S 1, S 2 and S 4 (slice sums reused per row group).
  qm("int4 rows g64 1x4096 n8300 swiglu (S 1, workgroups loop)", WeightFormat::Int4, {1, 4096}, 8300, 64,
     {N(F({1, 4096}))}, swi);
  qm("int8 rows g64 1x4096 n5000 bias (S 2, workgroups loop)", WeightFormat::Int8, {1, 4096}, 5000, 64, {N(F({5000}))},
     epi({7}, {0, 0}));
  qm("f16 rows 1x4096 n2100 rms (S 4, workgroups loop)", WeightFormat::F16, {1, 4096}, 2100, 0,
     {noScales, N(F({4096}))}, rms());
  // Prologues over rows longer than one staged chunk (a 7B down_proj's K = 11008): x staged with the
  // prologue applied chunk by chunk (rms: the mean square summed over every chunk first); the word path
  // reads x with the prologue applied at any K.
  qm("int4 rows 1x11008 n13 swiglu (3 chunks)", WeightFormat::Int4, {1, 11008}, 13, 64, {N(F({1, 11008}))}, swi);
  qm("f16 rows 1x8200 n9 rms (3 chunks)", WeightFormat::F16, {1, 8200}, 9, 0, {noScales, N(F({8200}))}, rms());
  qm("int4 1 row g24 1x4800 n7 swiglu (word path, long row)", WeightFormat::Int4, {1, 4800}, 7, 24, {N(F({1, 4800}))},
     swi);
  qm("int8 1 row g24 1x6000 n5 rms (word path, long row)", WeightFormat::Int8, {1, 6000}, 5, 24, {N(F({6000}))}, rms());
  qm("int4 1 row g24 1x192 n9 (groups across columns: word path)", WeightFormat::Int4, {1, 192}, 9, 24);
  // A decode step's SwiGLU MLP in one dispatch (QGatedMlp: qgated_mlp.comp after a zeroing pass): the
  // norm and residual present or absent, every format, more row groups than workgroups (they loop),
  // more output rows than invocations, SmolLM2's K.
  auto gated = [&](const std::string& label, WeightFormat f, int64_t K, int64_t I, int64_t n, int64_t group, bool norm,
                   bool residual, double tolerance = 1e-4) {
    const int64_t per = weightsPerWord(f);
    const bool scaled = weightFormatInfo(f).scaled;
    std::vector<std::pair<TensorType, Fill>> ins{N(F({1, K}))};
    const std::pair<int64_t, int64_t> shapes[] = {{I, K}, {I, K}, {n, I}};  // gate, up, down
    for (auto [rows, cols] : shapes) ins.push_back({T(DType::I32, {rows, cols / per}), Fill{Fill::Words, int64_t(f)}});
    for (auto [rows, cols] : shapes)
      ins.push_back(scaled ? std::pair<TensorType, Fill>{F({rows, cols / group}), Fill{Fill::Scales, 0}} : noScales);
    ins.push_back(norm ? N(F({K})) : noScales);
    ins.push_back(residual ? N(F({1, n})) : noScales);
    Attrs a{{"format", int64_t(f)}, {"group", group}};
    if (norm) a["norm_eps"] = 1e-5;
    b.add("qgated_mlp " + label, Op::QGatedMlp, std::move(ins), std::move(a), tolerance);
  };
  gated("f16 1x576 I 64 n70 norm residual", WeightFormat::F16, 576, 64, 70, 0, true, true);
  gated("int8 g16 1x256 I 48 n33", WeightFormat::Int8, 256, 48, 33, 16, false, false);
  // 4160 terms of ~1 per output, summed in another order: outputs near 0 move by ~1e-4.
  gated("int4 g64 1x1024 I 4160 n20 norm (workgroups loop)", WeightFormat::Int4, 1024, 4160, 20, 64, true, false, 1e-3);
  gated("ternary g32 1x512 I 32 n300 residual (rows loop)", WeightFormat::Ternary, 512, 32, 300, 32, false, true);
  gated("int4 g128 1x4096 I 128 n64 norm residual (S 1 over a long row)", WeightFormat::Int4, 4096, 128, 64, 128, true,
        true);
  // A decode step's attention with its o_proj (attention_cache_proj.comp after a zeroing pass): every
  // format, groups finer and coarser than a head, the residual and the mask present or absent, more
  // outputs than invocations (several parts of a row; past 8 parts, rows per invocation), GQA.
  auto proj = [&](const std::string& label, int64_t H, int64_t KV, int64_t D, int64_t Dv, int64_t S, int64_t at,
                  bool mask, WeightFormat f, int64_t group, int64_t n, bool residual, bool causalOnly = false) {
    const int64_t per = weightsPerWord(f);
    std::vector<std::pair<TensorType, Fill>> ins{
        N(F({1, H, 1, D})),  N(F({1, KV, 1, D})), N(F({1, KV, 1, Dv})), N(F({1, KV, S, D})),
        N(F({1, KV, S, Dv})), pos(DType::I64, at),  N(F({1, D})),        N(F({1, D})),
        mask ? causal(1, S, at) : noMask,
        {T(DType::I32, {n, H * Dv / per}), Fill{Fill::Words, int64_t(f)}}};
    ins.push_back(weightFormatInfo(f).scaled
                      ? std::pair<TensorType, Fill>{F({n, H * Dv / group}), Fill{Fill::Scales, 0}}
                      : noScales);
    ins.push_back(residual ? N(F({1, 1, n})) : noScales);
    Attrs attrs{{"scale", 0.125}, {"format", int64_t(f)}, {"group", group}};
    if (causalOnly) {  // the mask's slot empty, causal = 1
      ins[8] = noMask;
      attrs["causal"] = int64_t(1);
    }
    b.add("attention_cache o_proj " + label, Op::AttentionCache, std::move(ins), attrs);
  };
  proj("f16 GQA 9:3 D 64, row 17 of 40, n70 residual", 9, 3, 64, 64, 40, 17, true, WeightFormat::F16, 64, 70, true);
  proj("int4 g32 D 32, 300-row cache, n300 (3 parts)", 4, 2, 32, 32, 300, 170, false, WeightFormat::Int4, 32, 300,
       false);
  proj("int4 g32 D 32, n1100 residual (8 parts, rows loop)", 2, 1, 32, 32, 9, 5, false, WeightFormat::Int4, 32, 1100,
       true);
  proj("ternary g128 D 16 Dv 64, n20 residual", 2, 1, 16, 64, 8, 3, true, WeightFormat::Ternary, 128, 20, true);
  proj("int8 g16 D 8 Dv 32, n33", 3, 3, 8, 32, 5, 4, true, WeightFormat::Int8, 16, 33, false);
  proj("f16 causal GQA 9:3 D 64, row 130 of 256, n576 residual", 9, 3, 64, 64, 256, 130, false, WeightFormat::F16, 64,
       576, true, true);
  qm("int4 tiled 2x35x64 n67", WeightFormat::Int4, {2, 35, 64}, 67, 32);
  qm("f16 tiled 67x130 n65", WeightFormat::F16, {67, 130}, 65, 0);
  qm("int8 tiled bias relu", WeightFormat::Int8, {70, 96}, 66, 48, {N(F({66}))}, epi({7, 1}, {0, 0, 0, 0}));
  qm("ternary tiled 5 rows", WeightFormat::Ternary, {5, 64}, 40, 32);
  // Few output tiles, long K: split-K (conv2d_splitk between two conv2d_finish passes, lower_conv.cpp),
  // slices not a multiple of the k step, the last one shorter.
  b.add("conv split-k 3x3 bias+residual+relu", Op::Conv,
        {N(F({1, 130, 7, 7})), N(F({96, 130, 3, 3})), N(F({96})), N(F({1, 96, 7, 7}))},
        [&] { Attrs a = epi({7, 1}, {0, 0, 0, 0}); a["pads"] = Ints{1, 1, 1, 1}; return a; }());
  b.add("conv split-k 1x1 plain groups", Op::Conv, {N(F({2, 1200, 5, 5})), N(F({80, 600, 1, 1}))},
        {{"group", int64_t(2)}});
  b.add("conv split-k 3x3 bias only", Op::Conv, {N(F({1, 130, 7, 7})), N(F({96, 130, 3, 3})), N(F({96}))},
        {{"pads", Ints{1, 1, 1, 1}}});
  // Partial 64x64 tiles in both directions, strides, dilation and groups, split.
  b.add("conv split-k 3x3 2 channel tiles bias+residual+relu", Op::Conv,
        {N(F({2, 64, 9, 9})), N(F({130, 64, 3, 3})), N(F({130})), N(F({2, 130, 9, 9}))},
        [&] { Attrs a = epi({7, 1}, {0, 0, 0, 0}); a["pads"] = Ints{1, 1, 1, 1}; return a; }());
  b.add("conv split-k groups stride 2 dilation 2", Op::Conv,
        {N(F({1, 80, 11, 10})), N(F({256, 40, 3, 3}))},
        {{"group", int64_t(2)}, {"strides", Ints{2, 2}}, {"dilations", Ints{2, 2}}, {"pads", Ints{2, 2, 2, 2}}});
  // An epilogue tail (steps after the leading adds: the finishing pass): several tiles per group, a
  // tail that reads an operand, strided convs.
  b.add("conv split-k 1x1 groups bias relu then residual", Op::Conv,
        {N(F({2, 1200, 5, 5})), N(F({130, 600, 1, 1})), N(F({130})), N(F({2, 130, 5, 5}))},
        [&] { Attrs a = epi({1, 7}, {0, 0, 0, 0}); a["group"] = int64_t(2); return a; }());
  b.add("conv split-k 3x3 stride 2 batch 3 bias gelu", Op::Conv,
        {N(F({3, 64, 16, 16})), N(F({70, 64, 3, 3})), N(F({70}))},
        [&] { Attrs a = epi({5}, {0, 0}); a["pads"] = Ints{1, 1, 1, 1}; a["strides"] = Ints{2, 2}; return a; }());
  // The accelerated mode's convs (Conv{precision="fp16"}: conv2d_f16_splitk between conv2d_finish
  // passes, x and w rounded to fp16, f32 sums; the evaluator rounds the same way): one slice (short K:
  // 3x3, 1x1 plain, groups + stride + dilation) and several, with a bias, an epilogue tail, partial
  // tiles, batches.
  b.add("conv fp16 3x3 pad bias+residual+relu", Op::Conv,
        {N(F({2, 16, 34, 34})), N(F({70, 16, 3, 3})), N(F({70})), N(F({2, 70, 34, 34}))},
        f16([&] { Attrs a = epi({7, 1}, {0, 0, 0, 0}); a["pads"] = Ints{1, 1, 1, 1}; return a; }()));
  b.add("conv fp16 1x1 plain batch 2", Op::Conv, {N(F({2, 32, 20, 20})), N(F({80, 32, 1, 1}))}, f16({}));
  b.add("conv fp16 groups stride 2 dilation 2", Op::Conv, {N(F({1, 40, 23, 21})), N(F({64, 20, 3, 3}))},
        f16({{"group", int64_t(2)}, {"strides", Ints{2, 2}}, {"dilations", Ints{2, 2}}, {"pads", Ints{2, 1, 2, 1}}}));
  b.add("conv fp16 split-k 3x3 bias+residual+relu", Op::Conv,
        {N(F({1, 132, 7, 7})), N(F({96, 132, 3, 3})), N(F({96})), N(F({1, 96, 7, 7}))},
        f16([&] { Attrs a = epi({7, 1}, {0, 0, 0, 0}); a["pads"] = Ints{1, 1, 1, 1}; return a; }()));
  b.add("conv fp16 split-k groups stride 2 dilation 2", Op::Conv, {N(F({1, 80, 11, 10})), N(F({256, 40, 3, 3}))},
        f16({{"group", int64_t(2)}, {"strides", Ints{2, 2}}, {"dilations", Ints{2, 2}}, {"pads", Ints{2, 2, 2, 2}}}));
  b.add("conv fp16 split-k 3x3 stride 2 batch 3 bias gelu", Op::Conv,
        {N(F({3, 64, 16, 16})), N(F({70, 64, 3, 3})), N(F({70}))},
        f16([&] { Attrs a = epi({5}, {0, 0}); a["pads"] = Ints{1, 1, 1, 1}; a["strides"] = Ints{2, 2}; return a; }()));
  b.add("max_pool ceil pad", Op::MaxPool, {N(F({1, 3, 13, 11}))},
        {{"kernel", Ints{3, 3}}, {"strides", Ints{2, 2}}, {"pads", Ints{1, 1, 1, 1}}, {"ceil_mode", int64_t(1)}});
  b.add("max_pool dilation", Op::MaxPool, {N(F({2, 3, 13, 11}))},
        {{"kernel", Ints{2, 3}}, {"strides", Ints{1, 2}}, {"dilations", Ints{2, 1}}});
  b.add("avg_pool exclude pad ceil", Op::AvgPool, {N(F({1, 3, 13, 11}))},
        {{"kernel", Ints{3, 3}}, {"strides", Ints{2, 2}}, {"pads", Ints{1, 1, 1, 1}}, {"ceil_mode", int64_t(1)}});
  b.add("avg_pool include pad", Op::AvgPool, {N(F({1, 3, 13, 11}))},
        {{"kernel", Ints{3, 2}}, {"strides", Ints{2, 3}}, {"pads", Ints{1, 0, 1, 1}}, {"count_include_pad", int64_t(1)},
         {"ceil_mode", int64_t(1)}});
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
  nnCases(b);
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
