// Token sampling (sampler.h).
#include "compiler/cli/sampler.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

namespace mgc {

double Sampler::uniform() {
  uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return double(z >> 11) * (1.0 / 9007199254740992.0);
}

int64_t Sampler::next(const float* raw, int64_t n, const std::vector<int64_t>& context) {
  if (n <= 0) return 0;
  const float* logits = raw;
  std::vector<float> penalized;
  if (o_.repetitionPenalty != 1 && !context.empty()) {
    penalized.assign(raw, raw + n);
    const float p = float(o_.repetitionPenalty);
    std::vector<bool> seen(size_t(n), false);
    for (int64_t t : context)
      if (t >= 0 && t < n && !seen[size_t(t)]) {
        seen[size_t(t)] = true;
        float& l = penalized[size_t(t)];
        l = l < 0 ? l * p : l / p;
      }
    logits = penalized.data();
  }
  // NaN never wins: compare as "greater, or the best so far is NaN".
  auto better = [&](int64_t a, int64_t b) { return logits[a] > logits[b] || (std::isnan(logits[b]) && !std::isnan(logits[a])); };
  if (o_.temperature <= 0) {
    int64_t best = 0;
    for (int64_t i = 1; i < n; ++i)
      if (better(i, best)) best = i;
    return best;
  }
  std::vector<int64_t> order(static_cast<size_t>(n));
  std::iota(order.begin(), order.end(), int64_t(0));
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return better(a, b); });
  size_t keep = o_.topK > 0 ? std::min(size_t(o_.topK), order.size()) : order.size();
  const double top = logits[order[0]];
  std::vector<double> p(keep);
  double sum = 0;
  for (size_t i = 0; i < keep; ++i) {
    double l = logits[order[i]];
    p[i] = std::isfinite(l) ? std::exp((l - top) / o_.temperature) : 0.0;
    sum += p[i];
  }
  if (!(sum > 0)) return order[0];
  if (o_.topP < 1) {  // the smallest prefix whose probability reaches top-p
    double mass = 0;
    size_t k = 0;
    while (k < keep && mass < o_.topP * sum) mass += p[k++];
    keep = std::max<size_t>(k, 1);
    sum = mass > 0 ? mass : p[0];
  }
  double u = uniform() * sum;
  for (size_t i = 0; i < keep; ++i) {
    if (u < p[i]) return order[i];
    u -= p[i];
  }
  return order[keep - 1];
}

}  // namespace mgc
