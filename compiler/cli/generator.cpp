// Prefill + decode over a generation bundle (generator.h).
#include "compiler/cli/generator.h"

#include <algorithm>
#include <chrono>

#include "compiler/cli/commands.h"

namespace mgc {

namespace {

// The shape of `name` among a session's inputs or outputs, or empty.
std::vector<int64_t> shapeOf(const mgrt_session* s, const char* name, bool output) {
  int n = output ? mgrt_session_output_count(s) : mgrt_session_input_count(s);
  for (int i = 0; i < n; ++i) {
    mgrt_tensor_info info{};
    if ((output ? mgrt_session_output_info(s, i, &info) : mgrt_session_input_info(s, i, &info)) != MGRT_OK) continue;
    if (std::string(info.name) == name) return std::vector<int64_t>(info.shape, info.shape + info.rank);
  }
  return {};
}

}  // namespace

Generator::~Generator() {
  if (decode_) mgrt_session_destroy(decode_);
  if (prefill_) mgrt_session_destroy(prefill_);
  if (model_) mgrt_model_destroy(model_);
  if (ctx_) mgrt_context_destroy(ctx_);
}

RunnerError Generator::fail(mgrt_status s, const std::string& what) const { return runtimeError(s, what); }

std::string Generator::deviceName() const { return ctx_ ? mgrt_context_device_name(ctx_) : ""; }

RunnerError Generator::open(const std::string& path, int device, bool validation) {
  path_ = path;
  mgrt_context_options opts{device, validation ? 1 : 0, 0};
  if (mgrt_status s = mgrt_context_create(&opts, &ctx_)) return fail(s, "cannot open a Vulkan device");
  // libmgrt's message names the file.
  if (mgrt_status s = mgrt_model_load_file(ctx_, path.c_str(), &model_)) return fail(s, "");
  const std::string notGeneration =
      path + ": not a generation bundle (build one with mgc compile CHECKPOINT_FOLDER --max-seq N)";
  if (mgrt_session_create(model_, "prefill", &prefill_) != MGRT_OK ||
      mgrt_session_create(model_, "decode", &decode_) != MGRT_OK)
    return {kExitBadInput, notGeneration};
  std::vector<int64_t> ids = shapeOf(prefill_, "input_ids", false), one = shapeOf(decode_, "input_ids", false),
                       logits = shapeOf(decode_, "logits", true), pos = shapeOf(decode_, "position", false);
  int64_t maxSeq = 0;
  for (int i = 0; i < mgrt_model_state_count(model_); ++i) {
    mgrt_tensor_info info{};
    if (mgrt_model_state_info(model_, i, &info) == MGRT_OK && std::string(info.name) == "kv.0.k" && info.rank == 4)
      maxSeq = info.shape[2];
  }
  if (ids.size() != 2 || one != std::vector<int64_t>{1, 1} || logits.size() != 3 || logits[1] != 1 ||
      pos != std::vector<int64_t>{1} || maxSeq < 1)
    return {kExitBadInput, notGeneration};
  chunk_ = ids[1];
  vocab_ = logits[2];
  maxSeq_ = maxSeq;
  return {0, ""};
}

RunnerError Generator::runChunk(mgrt_session* s, const std::vector<int64_t>& ids, int64_t position, int64_t rows,
                                int64_t row, std::vector<float>* logits) {
  using Clock = std::chrono::steady_clock;
  auto ms = [](Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double, std::milli>(b - a).count(); };
  const Clock::time_point t0 = Clock::now();
  if (mgrt_status st = mgrt_session_set_input(s, "input_ids", ids.data(), ids.size() * sizeof(int64_t)))
    return fail(st, path_ + ": input_ids");
  if (mgrt_status st = mgrt_session_set_input(s, "position", &position, sizeof position))
    return fail(st, path_ + ": position");
  const Clock::time_point t1 = Clock::now();
  if (mgrt_status st = mgrt_session_run(s)) return fail(st, path_ + ": run");
  const Clock::time_point t2 = Clock::now();
  // One row (decode) goes straight into `logits`, reused from call to call.
  std::vector<float>* all = rows == 1 ? logits : &chunkLogits_;
  all->resize(size_t(rows * vocab_));
  if (mgrt_status st = mgrt_session_get_output(s, "logits", all->data(), all->size() * sizeof(float)))
    return fail(st, path_ + ": logits");
  if (all != logits) logits->assign(all->begin() + row * vocab_, all->begin() + (row + 1) * vocab_);
  split_ = {ms(t0, t1), ms(t1, t2), ms(t2, Clock::now())};
  return {0, ""};
}

RunnerError Generator::prefill(const std::vector<int64_t>& prompt, std::vector<float>* logits) {
  const int64_t n = int64_t(prompt.size());
  if (n < 1 || n > maxSeq_)
    return {kExitUsage, "the prompt has " + std::to_string(n) + " tokens; this bundle takes 1 to " +
                            std::to_string(maxSeq_) + " (its --max-seq)"};
  for (int64_t t : prompt)
    if (t < 0 || t >= vocab_)
      return {kExitUsage, "token id " + std::to_string(t) + " is outside the vocabulary [0, " + std::to_string(vocab_) + ")"};
  // Chunks start at multiples of chunk (maxSeq is one, so each fits); the
  // last is padded with token 0, whose cache rows later tokens overwrite
  // before anything attends to them.
  for (int64_t start = 0; start < n; start += chunk_) {
    std::vector<int64_t> ids(size_t(chunk_), 0);
    const int64_t count = std::min(chunk_, n - start);
    std::copy(prompt.begin() + start, prompt.begin() + start + count, ids.begin());
    if (RunnerError e = runChunk(prefill_, ids, start, chunk_, count - 1, logits); e.exitCode) return e;
  }
  return {0, ""};
}

RunnerError Generator::decode(int64_t token, int64_t position, std::vector<float>* logits) {
  if (position < 0 || position >= maxSeq_)
    return {kExitUsage, "position " + std::to_string(position) + " is past this bundle's --max-seq (" +
                            std::to_string(maxSeq_) + ")"};
  if (token < 0 || token >= vocab_)
    return {kExitUsage, "token id " + std::to_string(token) + " is outside the vocabulary [0, " + std::to_string(vocab_) + ")"};
  return runChunk(decode_, {token}, position, 1, 0, logits);
}

double Generator::lastDecodeGpuMs() const { return decode_ ? mgrt_session_last_gpu_ms(decode_) : -1; }

}  // namespace mgc
