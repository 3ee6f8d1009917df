// Choosing the next token from a row of logits (mgc generate): greedy at
// temperature 0, otherwise softmax(logits / temperature) cut to the top-k
// tokens and to the smallest set whose probability reaches top-p, drawn
// with a seeded generator (splitmix64): the same seed, bundle and prompt
// give the same tokens.
#pragma once

#include <cstdint>

namespace mgc {

struct SamplerOptions {
  double temperature = 0;  // 0: greedy (argmax; the first of equal maxima)
  int64_t topK = 0;        // 0: no cut
  double topP = 1;         // 1: no cut
  uint64_t seed = 0;
};

class Sampler {
 public:
  explicit Sampler(const SamplerOptions& o) : o_(o), state_(o.seed) {}
  int64_t next(const float* logits, int64_t n);

 private:
  double uniform();  // [0, 1)
  SamplerOptions o_;
  uint64_t state_;
};

}  // namespace mgc
