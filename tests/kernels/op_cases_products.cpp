// MatMul and matvec products in f32, fp16 and bf16, with the convs that share
// their GEMM cores (im2col, sliced, epilogues) where they come in the case order.

#include "op_cases_builder.h"

namespace mgc::test {

void productCases(Builder& b) {
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
  // Tall (>= 1024 rows) mid-grid products: matmul_medium_splitk (the 8x8 core on 64x64 tiles, K in 3
  // slices, the last ending inside a step), partial tiles, the epilogue in the finish pass; transposed.
  b.add("matmul tall mid-grid split-K 1100x300@300x260 bias+gelu", Op::MatMul,
        {N(F({1100, 300})), N(F({300, 260})), N(F({260}))}, epi({7, 5}, {0, 0, 0, 0}));
  b.add("matmul tall mid-grid split-K trans_a trans_b", Op::MatMul, {N(F({300, 1100})), N(F({260, 300}))}, tab);
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
}

}  // namespace mgc::test
