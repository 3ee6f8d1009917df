// Convs split over K (conv2d_splitk), the accelerated mode's convs
// (conv2d_f16_splitk), and pooling.

#include "op_cases_builder.h"

namespace mgc::test {

void convPoolCases(Builder& b) {
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
  // relu_input (passes/graph/fold_relu_input.cpp): each conv kernel reads x through a ReLU (x has
  // negatives) — split-K (taps and the plain 1x1 path), the GEMM core with and without taps, a small
  // grid (conv2d_sliced), depthwise (conv2d_direct), and the accelerated mode's one slice and several.
  auto reluIn = [](Attrs a) { a["relu_input"] = int64_t(1); return a; };
  b.add("conv relu_input split-k 3x3 bias+residual+relu", Op::Conv,
        {N(F({1, 130, 7, 7})), N(F({96, 130, 3, 3})), N(F({96})), N(F({1, 96, 7, 7}))},
        reluIn([&] { Attrs a = epi({7, 1}, {0, 0, 0, 0}); a["pads"] = Ints{1, 1, 1, 1}; return a; }()));
  b.add("conv relu_input split-k 1x1 plain groups", Op::Conv, {N(F({2, 1200, 5, 5})), N(F({80, 600, 1, 1}))},
        reluIn({{"group", int64_t(2)}}));
  b.add("conv relu_input 3x3 pad bias", Op::Conv, {N(F({2, 16, 34, 34})), N(F({70, 16, 3, 3})), N(F({70}))},
        reluIn({{"pads", Ints{1, 1, 1, 1}}}));
  b.add("conv relu_input 1x1 plain", Op::Conv, {N(F({2, 32, 20, 20})), N(F({80, 32, 1, 1}))}, reluIn({}));
  b.add("conv relu_input small grid 3x3", Op::Conv, {N(F({1, 16, 8, 8})), N(F({32, 16, 3, 3}))},
        reluIn({{"pads", Ints{1, 1, 1, 1}}}));
  b.add("conv relu_input depthwise stride 2", Op::Conv, {N(F({1, 8, 9, 9})), N(F({8, 1, 3, 3})), N(F({8}))},
        reluIn({{"group", int64_t(8)}, {"strides", Ints{2, 2}}, {"pads", Ints{1, 1, 1, 1}}}));
  b.add("conv fp16 relu_input 3x3 pad bias", Op::Conv, {N(F({2, 16, 34, 34})), N(F({70, 16, 3, 3})), N(F({70}))},
        f16(reluIn({{"pads", Ints{1, 1, 1, 1}}})));
  b.add("conv fp16 relu_input split-k 3x3 bias+residual+relu", Op::Conv,
        {N(F({1, 132, 7, 7})), N(F({96, 132, 3, 3})), N(F({96})), N(F({1, 96, 7, 7}))},
        f16(reluIn([&] { Attrs a = epi({7, 1}, {0, 0, 0, 0}); a["pads"] = Ints{1, 1, 1, 1}; return a; }())));
  b.add("max_pool ceil pad", Op::MaxPool, {N(F({1, 3, 13, 11}))},
        {{"kernel", Ints{3, 3}}, {"strides", Ints{2, 2}}, {"pads", Ints{1, 1, 1, 1}}, {"ceil_mode", int64_t(1)}});
  b.add("max_pool dilation", Op::MaxPool, {N(F({2, 3, 13, 11}))},
        {{"kernel", Ints{2, 3}}, {"strides", Ints{1, 2}}, {"dilations", Ints{2, 1}}});
  b.add("avg_pool exclude pad ceil", Op::AvgPool, {N(F({1, 3, 13, 11}))},
        {{"kernel", Ints{3, 3}}, {"strides", Ints{2, 2}}, {"pads", Ints{1, 1, 1, 1}}, {"ceil_mode", int64_t(1)}});
  b.add("avg_pool include pad", Op::AvgPool, {N(F({1, 3, 13, 11}))},
        {{"kernel", Ints{3, 2}}, {"strides", Ints{2, 3}}, {"pads", Ints{1, 0, 1, 1}}, {"count_include_pad", int64_t(1)},
         {"ceil_mode", int64_t(1)}});
}

}  // namespace mgc::test
