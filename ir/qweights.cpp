#include "ir/qweights.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace mgc {

namespace {

constexpr WeightFormatInfo kFormats[] = {
    {"f32", 32, false}, {"f16", 16, false}, {"int8", 8, true}, {"int4", 4, true}, {"ternary", 2, true},
};

// The largest |q| of a scaled format, and how its group scale is chosen.
int maxLevel(WeightFormat f) { return f == WeightFormat::Int8 ? 127 : f == WeightFormat::Int4 ? 7 : 1; }

// A group already ternary (every weight 0 or ±a for one a > 0: BitNet-style
// weights) gets a itself, so its values pack without loss; 0 otherwise.
float ternaryMagnitude(const float* w, int64_t n) {
  float a = 0;
  for (int64_t i = 0; i < n; ++i) {
    const float m = std::fabs(w[i]);
    if (m == 0) continue;
    if (a != 0 && m != a) return 0;
    a = m;
  }
  return std::isfinite(a) ? a : 0;
}

float groupScale(WeightFormat f, const float* w, int64_t n) {
  if (f == WeightFormat::Ternary) {
    if (const float a = ternaryMagnitude(w, n); a > 0) return a;
    double sum = 0;  // absmean, summed in f64 (reproducible from numpy / PyTorch)
    for (int64_t i = 0; i < n; ++i) sum += std::fabs(double(w[i]));
    return float(sum / double(n));
  }
  float m = 0;
  for (int64_t i = 0; i < n; ++i) m = std::max(m, std::fabs(w[i]));
  return m / float(maxLevel(f));
}

}  // namespace

const WeightFormatInfo& weightFormatInfo(WeightFormat f) {
  size_t i = size_t(f);
  if (i >= sizeof(kFormats) / sizeof(kFormats[0])) throw Error("unknown weight format " + std::to_string(i));
  return kFormats[i];
}

bool parseWeightFormat(std::string_view s, WeightFormat* out) {
  if (s == "f32" || s == "fp32") *out = WeightFormat::F32;
  else if (s == "f16" || s == "fp16") *out = WeightFormat::F16;
  else if (s == "int8") *out = WeightFormat::Int8;
  else if (s == "int4") *out = WeightFormat::Int4;
  else if (s == "ternary") *out = WeightFormat::Ternary;
  else return false;
  return true;
}

std::string quantizeProblem(WeightFormat f, int64_t K, int64_t group) {
  const int per = weightsPerWord(f);
  const std::string name = weightFormatInfo(f).name;
  if (K % per != 0)
    return name + " packs " + std::to_string(per) + " weights per 32-bit word, so in_features (" + std::to_string(K) +
           ") must be a multiple of " + std::to_string(per);
  if (!weightFormatInfo(f).scaled) return "";
  if (group <= 0 || group % per != 0)
    return "the group size " + std::to_string(group) + " must be a positive multiple of " + std::to_string(per) +
           " for " + name;
  if (K % group != 0)
    return "in_features (" + std::to_string(K) + ") must be a multiple of the group size " + std::to_string(group);
  return "";
}

std::string qgatedMlpProblem(WeightFormat f, int64_t K, int64_t I, int64_t group) {
  if (std::string why = quantizeProblem(f, K, group); !why.empty()) return why;
  if (std::string why = quantizeProblem(f, I, group); !why.empty()) return why;
  const int64_t per = weightsPerWord(f), groupWords = weightFormatInfo(f).scaled ? group / per : K / per;
  if ((K / per) % 4 != 0 || (groupWords % 4 != 0 && groupWords > 2))
    return "a gate / up row of " + std::to_string(K) + " is not whole 16-byte columns of its groups";
  if (I % kGatedMlpRows != 0)
    return "the intermediate size " + std::to_string(I) + " is not a multiple of " + std::to_string(kGatedMlpRows);
  if (weightFormatInfo(f).scaled && group % kGatedMlpRows != 0)
    return "the group size " + std::to_string(group) + " is not a multiple of " + std::to_string(kGatedMlpRows);
  return "";
}

std::string attentionProjProblem(WeightFormat f, int64_t K, int64_t Dv) {
  const int64_t per = weightsPerWord(f);
  if (K % (4 * per) != 0 || Dv % (4 * per) != 0 || Dv / per / 4 > 16)
    return "a head's slice of o (" + std::to_string(Dv) + " " + weightFormatInfo(f).name +
           " weights) is not 1 to 16 whole 16-byte loads";
  return "";
}

QuantizedWeight quantizeWeight(const HostTensor& w, WeightFormat f, int64_t group) {
  if (w.type.dtype != DType::F32 || w.type.rank() != 2) throw Error("quantizeWeight: expected f32 [N, K], got " + w.type.str());
  const int64_t N = w.type.shape[0], K = w.type.shape[1];
  const std::string problem = quantizeProblem(f, K, group);
  if (!problem.empty()) throw Error(problem);
  const int per = weightsPerWord(f), bits = weightFormatInfo(f).bits;
  QuantizedWeight q;
  q.words = HostTensor(TensorType{DType::I32, {N, K / per}});
  uint32_t* words = q.words.as<uint32_t>();
  std::fill(words, words + q.words.numel(), 0u);
  const float* src = w.as<float>();
  if (f == WeightFormat::F16) {
    for (int64_t i = 0; i < N * K; ++i)
      words[i / 2] |= uint32_t(floatToHalf(src[i])) << (16 * (i % 2));
    return q;
  }
  const int64_t groups = K / group, level = maxLevel(f);
  q.scales = HostTensor(TensorType{DType::F32, {N, groups}});
  float* scales = q.scales.as<float>();
  const uint32_t mask = (1u << bits) - 1u;
  for (int64_t r = 0; r < N; ++r)
    for (int64_t gi = 0; gi < groups; ++gi) {
      const int64_t k0 = r * K + gi * group;
      const float s = groupScale(f, src + k0, group);
      scales[r * groups + gi] = s;
      for (int64_t k = k0; k < k0 + group; ++k) {
        // Round half to even (as torch.round), then clamp to the levels.
        float v = s > 0 ? std::nearbyint(src[k] / s) : 0.0f;
        if (!(v == v)) v = 0;  // a NaN weight (or scale) stores 0
        const int64_t qi = std::clamp<int64_t>(int64_t(std::clamp(v, -float(level), float(level))), -level, level);
        words[k / per] |= (uint32_t(int32_t(qi)) & mask) << (bits * (k % per));
      }
    }
  return q;
}

HostTensor dequantizeWeight(const HostTensor& words, const HostTensor* scales, WeightFormat f, int64_t K,
                            int64_t group) {
  const int per = weightsPerWord(f), bits = weightFormatInfo(f).bits;
  const int64_t N = words.type.shape.at(0);
  if (words.type.dtype != DType::I32 || words.type.rank() != 2 || words.type.shape[1] * per != K)
    throw Error("packed " + std::string(weightFormatInfo(f).name) + " weights must be i32 [N, " +
                std::to_string(K / per) + "], got " + words.type.str());
  HostTensor out(TensorType{DType::F32, {N, K}});
  float* dst = out.as<float>();
  const uint32_t* w = words.as<uint32_t>();
  for (int64_t i = 0; i < N * K; ++i) {
    const uint32_t field = (w[i / per] >> (bits * (i % per))) & ((bits == 32 ? 0u : 1u << bits) - 1u);
    if (f == WeightFormat::F16) {
      dst[i] = halfToFloat(uint16_t(field));
      continue;
    }
    const int32_t q = int32_t(field << (32 - bits)) >> (32 - bits);  // sign-extend the field
    dst[i] = float(q) * scales->as<float>()[(i / K) * (K / group) + (i % K) / group];
  }
  return out;
}

}  // namespace mgc
