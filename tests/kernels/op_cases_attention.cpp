// Fused attention (attention, attention_tiled, attention_f16), attention_cache
// and rotary.

#include "op_cases_builder.h"

namespace mgc::test {

void attentionCases(Builder& b) {
  // Fused attention (attention.comp): GQA broadcast, a causal mask over a
  // cache (hidden keys unread), more keys than one 128-key chunk, Dv != D,
  // head dims over 128 (several accumulators per invocation).
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
}

}  // namespace mgc::test
