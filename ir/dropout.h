// DropoutMask's counter-based random numbers, shared by the CPU reference
// evaluator (eval_extra.cpp) and the lowering (kernels/lower_dropout.cpp),
// and mirrored word for word by kernels/src/dropout_mask.comp. Only 32-bit
// unsigned arithmetic, so the evaluator and every GPU agree bit for bit.
//
//   key  = pcg(stepBits ^ pcg(seed))       stepBits: the f32 step counter's bits
//   h_i  = pcg(i ^ key)                     i: the element's linear index
//   drop = (h_i >> 8) < threshold           threshold = ceil(ratio * 2^24)
//   out  = drop ? 0 : scale                 scale = f32(1 / (1 - ratio))
//
// pcg is the PCG-RXS-M-XS 32-bit output permutation ("Hash Functions for GPU
// Rendering", Jarzynski & Olano 2020): a bijection with good avalanche, so
// the top 24 bits of h_i are a uniform draw in [0, 1) with 2^-24 steps.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

namespace mgc::dropout {

inline uint32_t pcg(uint32_t v) {
  uint32_t state = v * 747796405u + 2891336453u;
  uint32_t word = ((state >> ((state >> 28u) + 4u)) ^ state) * 277803737u;
  return (word >> 22u) ^ word;
}

inline uint32_t floatBits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

// Per step: one key for all elements.
inline uint32_t stepKey(uint32_t seed, float step) { return pcg(floatBits(step) ^ pcg(seed)); }

inline uint32_t elementHash(uint32_t key, uint32_t i) { return pcg(i ^ key); }

// Elements whose 24-bit uniform is below this are dropped; ratio in [0, 1).
inline uint32_t threshold(double ratio) { return uint32_t(std::ceil(ratio * 16777216.0)); }

inline float scale(double ratio) { return float(1.0 / (1.0 - ratio)); }

inline bool dropped(uint32_t key, uint32_t i, uint32_t thresh) { return (elementHash(key, i) >> 8u) < thresh; }

}  // namespace mgc::dropout
