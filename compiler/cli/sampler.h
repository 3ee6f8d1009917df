// Choosing the next token from a row of logits (mgc generate): greedy at
// temperature 0, otherwise softmax(logits / temperature) cut to the top-k
// tokens and to the smallest set whose probability reaches top-p, drawn
// with a seeded generator (splitmix64): the same seed, bundle and prompt
// give the same tokens. A repetition penalty p != 1 first divides the
// positive logits of every token already in the context by p and
// multiplies the negative ones by p (transformers'
// RepetitionPenaltyLogitsProcessor), at any temperature.
#pragma once

#include <cstdint>
#include <vector>

namespace mgc {

struct SamplerOptions {
  double temperature = 0;  // 0: greedy (argmax; the first of equal maxima)
  int64_t topK = 0;        // 0: no cut
  double topP = 1;         // 1: no cut
  uint64_t seed = 0;
  double repetitionPenalty = 1;  // 1: none; > 1 discourages repeats
};

class Sampler {
 public:
  explicit Sampler(const SamplerOptions& o) : o_(o), state_(o.seed) {}
  // `context`: the tokens so far (prompt and generated), for the penalty.
  int64_t next(const float* logits, int64_t n, const std::vector<int64_t>& context = {});

 private:
  double uniform();  // [0, 1)
  SamplerOptions o_;
  uint64_t state_;
};

}  // namespace mgc
