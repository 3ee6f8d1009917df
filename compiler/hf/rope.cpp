// RoPE tables (rope.h).
#include "compiler/hf/rope.h"

#include <cmath>

namespace mgc::hf {

std::vector<float> ropeInverseFrequencies(const ModelConfig& c) {
  const int64_t half = c.headDim / 2;
  const float base = float(c.ropeTheta);
  std::vector<float> inv(static_cast<size_t>(half));
  // _compute_default_rope_parameters: 1 / base ** (arange(0, dim, 2) / dim).
  for (int64_t i = 0; i < half; ++i) inv[size_t(i)] = 1.0f / std::pow(base, float(2 * i) / float(c.headDim));
  const RopeScaling& s = c.rope;
  const float factor = float(s.factor);
  switch (s.kind) {
    case RopeScaling::Kind::None:
      break;
    case RopeScaling::Kind::Linear:
      for (float& f : inv) f /= factor;
      break;
    case RopeScaling::Kind::Llama3: {
      // _compute_llama3_parameters: long wavelengths slowed by `factor`,
      // short ones kept, the band between blended smoothly.
      const float oldContext = float(s.originalMaxPositions);
      const float lowFactor = float(s.lowFreqFactor), highFactor = float(s.highFreqFactor);
      const float lowWavelen = oldContext / lowFactor, highWavelen = oldContext / highFactor;
      const float pi = float(M_PI);
      for (float& f : inv) {
        const float wavelen = 2 * pi / f;
        const float scaled = wavelen > lowWavelen ? f / factor : f;
        if (wavelen < highWavelen || wavelen > lowWavelen) {
          f = scaled;
        } else {
          const float smooth = (oldContext / wavelen - lowFactor) / (highFactor - lowFactor);
          f = (1 - smooth) * scaled / factor + smooth * scaled;
        }
      }
      break;
    }
  }
  return inv;
}

HostTensor ropeTable(const ModelConfig& c, int64_t positions, bool sine) {
  const std::vector<float> inv = ropeInverseFrequencies(c);
  const int64_t half = int64_t(inv.size());
  HostTensor t(TensorType{DType::F32, {positions, 2 * half}});
  float* out = t.as<float>();
  for (int64_t p = 0; p < positions; ++p) {
    for (int64_t i = 0; i < half; ++i) {
      const float angle = float(p) * inv[size_t(i)];  // f32, as the reference's matmul
      const float v = float(sine ? std::sin(double(angle)) : std::cos(double(angle)));
      out[p * 2 * half + i] = v;
      out[p * 2 * half + half + i] = v;
    }
  }
  return t;
}

}  // namespace mgc::hf
