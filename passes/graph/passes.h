// Every graph pass, one per file in passes/.
#pragma once

#include "ir/graph.h"
#include "ir/matmul.h"

namespace mgc {

void verifyGraph(Graph& g);    // verify.cpp: structural + type checks; throws mgc::Error
void constFold(Graph& g);      // const_fold.cpp: nodes with all-constant inputs → constants
void canonicalize(Graph& g);   // canonicalize.cpp: one spelling per op (BN folding, x*1, ...)
void canonicalizePatterns(Graph& g);  // canonicalize_patterns.cpp: exported LayerNorm / Gelu spellings → one op
void fuseRotary(Graph& g);     // fuse_rotary.cpp: exported rotate-half RoPE → rotary
void fuseAttention(Graph& g);  // fuse_attention.cpp: exported q kᵀ → softmax → · v → attention
void foldRepeatKv(Graph& g);   // fold_repeat_kv.cpp: attention over repeated K/V heads → GQA broadcast
void conv1x1Grads(Graph& g);  // conv1x1_grads.cpp: gradients of pointwise convolutions → matmuls
void splitLongRows(Graph& g);  // split_long_rows.cpp: norms / sums over a few long rows → two-step reductions
void fuseConvEpilogue(Graph& g);  // fuse_conv_epilogue.cpp: conv/matmul + activations/adds → epilogue
void foldReluInput(Graph& g);  // fold_relu_input.cpp: conv → ReLU → conv: the second conv applies the ReLU
void fusePrologue(Graph& g);  // fuse_prologue.cpp: rms_norm / silu·up → decode-sized matmuls' prologue
void fuseGatedMlp(Graph& g);  // fuse_gated_mlp.cpp: a decode step's gate / up / down qmatmuls → qgated_mlp
void fuseSwigluEpilogue(Graph& g);  // fuse_swiglu_epilogue.cpp: a long row's SwiGLU from down's prologue into up's epilogue
void fuseStateWrite(Graph& g);  // fuse_state_write.cpp: rotary → the state_write that stores it
void fuseAttentionCache(Graph& g);  // fuse_attention_cache.cpp: rotary + KV-cache writes + attention → attention_cache
void foldCausalMask(Graph& g);  // fold_causal_mask.cpp: attention_cache's causal mask of its offset → causal = 1
void fuseAttentionProj(Graph& g);  // fuse_attention_proj.cpp: a decode step's o_proj → its attention_cache
void foldAttentionLayout(Graph& g);  // fold_attention_layout.cpp: head transposes around attention → tokens_major
void fuseElementwise(Graph& g);   // fuse_elementwise.cpp: chains of elementwise ops → one fused_eltwise
void deadCodeElim(Graph& g);   // dce.cpp: drop nodes nothing uses
// mark_precision.cpp: the accelerated mode: tiled MatMuls → precision = "fp16" / "bf16"
void markPrecision(Graph& g, MatMulPrecision p);

}  // namespace mgc
