// Rotary position embedding tables as transformers computes them
// (modeling_rope_utils.py): inv_freq from rope_theta and head_dim, scaled as
// config.json's rope_scaling says (linear, llama3), then for each position
// p the angles p · inv_freq, duplicated to the whole head (the rotate-half
// layout: emb = cat(freqs, freqs)). Computed in f32 step by step as
// PyTorch does, so that logits match it to rounding.
//
// The tables are indexed by position (Gather), so the same tables serve a
// fixed chunk of positions 0..T-1 and a run-time position (decode).
#pragma once

#include <vector>

#include "compiler/hf/config.h"
#include "ir/types.h"

namespace mgc::hf {

// head_dim / 2 inverse frequencies, scaling applied.
std::vector<float> ropeInverseFrequencies(const ModelConfig& c);

// cos (sine = false) or sin of the angles, f32 [positions, head_dim].
HostTensor ropeTable(const ModelConfig& c, int64_t positions, bool sine);

}  // namespace mgc::hf
