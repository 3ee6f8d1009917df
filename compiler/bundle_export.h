// `mgc export`: an inference bundle from a training bundle and (optionally)
// a checkpoint. The "infer" entry point is kept; the state tensors it reads
// (parameters, running statistics) are baked into the read-only weights
// arena with the checkpoint's values; kernels, constants and state that
// only train_step used are dropped. The result is an ordinary inference
// bundle (no State arena), as `mgc compile` without --train makes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace mgc {

struct ExportStats {
  size_t stateBaked = 0;     // state tensors written into the weights arena
  size_t kernels = 0;
  uint64_t weightsBytes = 0;
  uint64_t activationBytes = 0;
};

// `checkpoint` empty: the bundle's initial state. Throws mgc::Error naming
// the problem (not a training bundle, no entry point `entry`, a checkpoint
// tensor that is missing or mismatched, ...).
std::vector<uint8_t> exportInferenceBundle(const std::vector<uint8_t>& trainBundle,
                                           const std::vector<uint8_t>& checkpoint, const std::string& checkpointName,
                                           const std::string& entry = "infer", ExportStats* stats = nullptr);

}  // namespace mgc
