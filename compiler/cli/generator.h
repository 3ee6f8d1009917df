// A generation bundle (mgc compile FOLDER --max-seq N) driven through
// libmgrt's C API as an app would: one model, a `prefill` and a `decode`
// session sharing its state (the KV cache). Used by mgc generate and mgc
// bench-decode.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "compiler/cli/runner.h"
#include "runtime/include/mgrt.h"

namespace mgc {

class Generator {
 public:
  Generator() = default;
  ~Generator();
  Generator(const Generator&) = delete;
  Generator& operator=(const Generator&) = delete;

  // Loads the bundle and checks it is a generation bundle (entry points
  // prefill and decode with input_ids, position and logits).
  RunnerError open(const std::string& path, int device, bool validation);

  int64_t maxSeq() const { return maxSeq_; }
  int64_t chunk() const { return chunk_; }
  int64_t vocab() const { return vocab_; }
  std::string deviceName() const;

  // Runs the prompt (positions 0..n-1) in chunks; `logits` gets the last
  // prompt token's row. The prompt must be 1..maxSeq tokens of [0, vocab).
  RunnerError prefill(const std::vector<int64_t>& prompt, std::vector<float>* logits);
  // One token at `position` (< maxSeq); `logits` gets its row.
  RunnerError decode(int64_t token, int64_t position, std::vector<float>* logits);
  // GPU time of the last decode run, ms (< 0: unknown).
  double lastDecodeGpuMs() const;
  // Host time of the last run's steps, ms: setting its inputs, the run
  // (submit and wait), reading its logits back.
  struct HostSplit {
    double setInputs = 0, run = 0, getLogits = 0;
  };
  HostSplit lastHostSplit() const { return split_; }

 private:
  RunnerError fail(mgrt_status s, const std::string& what) const;
  RunnerError runChunk(mgrt_session* s, const std::vector<int64_t>& ids, int64_t position, int64_t rows,
                       int64_t row, std::vector<float>* logits);
  mgrt_context* ctx_ = nullptr;
  mgrt_model* model_ = nullptr;
  mgrt_session* prefill_ = nullptr;
  mgrt_session* decode_ = nullptr;
  std::string path_;
  int64_t maxSeq_ = 0, chunk_ = 0, vocab_ = 0;
  // A prefill chunk's logits, all rows (kept: a per-token allocation of
  // this size costs an mmap and its page faults on every call).
  std::vector<float> chunkLogits_;
  HostSplit split_;
};

}  // namespace mgc
