// Shared by `mgc run` and `mgc demo`: a bundle loaded through libmgrt's C
// API (exactly as an app would), fed and read with .npy arrays.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "formats/npy.h"
#include "runtime/include/mgrt.h"

namespace mgc {

struct RunnerError {
  int exitCode;
  std::string message;
};

// A failed libmgrt call as a RunnerError: the exit code its status means
// (docs/cli.md) and "<what>: <mgrt_last_error()>".
RunnerError runtimeError(mgrt_status s, const std::string& what);

class Runner {
 public:
  Runner() = default;
  ~Runner();
  Runner(const Runner&) = delete;
  Runner& operator=(const Runner&) = delete;

  // Each returns an empty optional-like error (exitCode 0) on success.
  // pipelineCacheDir: keep the driver's compiled pipelines in
  // DIR/<device name>.mgpc between runs (empty: no cache). The session is on
  // `entry` ("infer": a plain bundle's, or a training bundle's inference
  // entry point; "train_step": one training step).
  RunnerError open(const std::vector<uint8_t>& bundle, const std::string& source, int device, bool validation,
                   const std::string& pipelineCacheDir = "", const std::string& entry = "infer");
  RunnerError setInput(const std::string& name, const mgb::npy::Array& a, const std::string& from);
  // One submit + wait; wallMs spans both, submitMs (if given) the submit call.
  RunnerError run(double* wallMs, double* submitMs = nullptr);
  RunnerError output(int i, std::string* name, mgb::npy::Array* out);

  std::vector<mgrt_tensor_info> inputs() const;
  int outputCount() const;
  std::string deviceName() const;
  double gpuMs() const;
  int validationMessages() const;
  mgrt_session* session() const { return session_; }
  // Model load + session creation in open(), and what the pipeline cache did
  // then ("off", "empty", "loaded", "ignored") with its note, if any.
  double openMs() const { return openMs_; }
  std::string pipelineCacheState() const;
  std::string pipelineCacheNote() const { return cacheNote_; }

 private:
  RunnerError fail(mgrt_status s, const std::string& what) const;
  mgrt_context* ctx_ = nullptr;
  mgrt_model* model_ = nullptr;
  mgrt_session* session_ = nullptr;
  std::string source_;
  double openMs_ = 0;
  std::string cacheNote_;
};

std::string describe(mgrt_dtype t, const int64_t* shape, int rank);

}  // namespace mgc
