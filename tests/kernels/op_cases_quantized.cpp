// Packed low-bit weights (ir/qweights.h): QMatMul (qmatvec, qmatmul),
// QGatedMlp, and AttentionCache with its o_proj.

#include "ir/qweights.h"
#include "op_cases_builder.h"

namespace mgc::test {

void quantizedCases(Builder& b) {
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
}

}  // namespace mgc::test
