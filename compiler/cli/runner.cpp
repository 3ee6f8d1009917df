#include "compiler/cli/runner.h"

#include <cctype>
#include <chrono>
#include <filesystem>

#include "compiler/cli/commands.h"

namespace mgc {

std::string describe(mgrt_dtype t, const int64_t* shape, int rank) {
  std::string s = mgb::npy::dtypeName(mgb::npy::DType(t));
  s += "[";
  for (int i = 0; i < rank; ++i) s += (i ? "," : "") + std::to_string(shape[i]);
  return s + "]";
}

Runner::~Runner() {
  if (session_) mgrt_session_destroy(session_);
  if (model_) mgrt_model_destroy(model_);
  if (ctx_) mgrt_context_destroy(ctx_);
}

RunnerError runtimeError(mgrt_status s, const std::string& what) {
  int code = kExitDevice;
  if (s == MGRT_INVALID_BUNDLE || s == MGRT_INVALID_ARGUMENT) code = kExitBadInput;
  if (s == MGRT_IO_ERROR) code = kExitIo;
  return {code, what.empty() ? std::string(mgrt_last_error()) : what + ": " + mgrt_last_error()};
}

RunnerError Runner::fail(mgrt_status s, const std::string& what) const { return runtimeError(s, what); }

RunnerError Runner::open(const std::vector<uint8_t>& bundle, const std::string& source, int device, bool validation,
                         const std::string& pipelineCacheDir, const std::string& entry) {
  source_ = source;
  mgrt_context_options opts{device, validation ? 1 : 0, 0};
  if (mgrt_status s = mgrt_context_create(&opts, &ctx_)) return fail(s, "cannot open a Vulkan device");
  if (!pipelineCacheDir.empty()) {
    // One file per device: a cache is only valid on the device and driver
    // that wrote it (libmgrt checks; naming by device avoids thrashing
    // between two GPUs). Pipelines of every bundle run share the file.
    std::string name;  // "NVIDIA H200 (Vulkan 1.4)" -> "nvidia-h200-vulkan-1-4"
    for (char c : std::string(mgrt_context_device_name(ctx_))) {
      if (std::isalnum(static_cast<unsigned char>(c)))
        name += char(std::tolower(static_cast<unsigned char>(c)));
      else if (!name.empty() && name.back() != '-')
        name += '-';
    }
    while (!name.empty() && name.back() == '-') name.pop_back();
    if (name.empty()) name = "device";
    std::error_code ec;
    std::filesystem::create_directories(pipelineCacheDir, ec);
    if (ec || !std::filesystem::is_directory(pipelineCacheDir)) {
      cacheNote_ = "pipeline cache folder '" + pipelineCacheDir + "' cannot be created (" + ec.message() + ")";
    } else {
      const std::string file = (std::filesystem::path(pipelineCacheDir) / (name + ".mgpc")).string();
      if (mgrt_status s = mgrt_context_set_pipeline_cache(ctx_, file.c_str())) return fail(s, "pipeline cache");
    }
  }
  const auto t0 = std::chrono::steady_clock::now();
  if (mgrt_status s = mgrt_model_load(ctx_, bundle.data(), bundle.size(), &model_)) return fail(s, source);
  if (mgrt_status s = mgrt_session_create(model_, entry.c_str(), &session_))
    return fail(s, source + ": entry point '" + entry + "'");
  openMs_ = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  if (cacheNote_.empty()) cacheNote_ = mgrt_context_pipeline_cache_note(ctx_);
  return {0, ""};
}

std::string Runner::pipelineCacheState() const {
  switch (mgrt_context_pipeline_cache_state(ctx_)) {
    case MGRT_PIPELINE_CACHE_EMPTY: return "empty";
    case MGRT_PIPELINE_CACHE_LOADED: return "loaded";
    case MGRT_PIPELINE_CACHE_IGNORED: return "ignored";
    default: return "off";
  }
}

std::vector<mgrt_tensor_info> Runner::inputs() const {
  std::vector<mgrt_tensor_info> r(size_t(mgrt_session_input_count(session_)));
  for (size_t i = 0; i < r.size(); ++i) mgrt_session_input_info(session_, int(i), &r[i]);
  return r;
}

int Runner::outputCount() const { return mgrt_session_output_count(session_); }
std::string Runner::deviceName() const { return mgrt_context_device_name(ctx_); }
double Runner::gpuMs() const { return mgrt_session_last_gpu_ms(session_); }
int Runner::validationMessages() const { return mgrt_context_validation_messages(ctx_); }

RunnerError Runner::setInput(const std::string& name, const mgb::npy::Array& a, const std::string& from) {
  for (const mgrt_tensor_info& info : inputs()) {
    if (name != info.name) continue;
    std::vector<int64_t> want(info.shape, info.shape + info.rank);
    if (int(a.dtype) != int(info.dtype) || a.shape != want)
      return {kExitBadInput, source_ + ": input '" + name + "' expects " + describe(info.dtype, info.shape, info.rank) +
                                 ", but " + from + " holds " +
                                 describe(mgrt_dtype(a.dtype), a.shape.data(), int(a.shape.size()))};
    if (mgrt_status s = mgrt_session_set_input(session_, name.c_str(), a.data.data(), a.data.size()))
      return fail(s, "input '" + name + "'");
    return {0, ""};
  }
  std::string names;
  for (const mgrt_tensor_info& info : inputs())
    names += std::string(names.empty() ? "" : ", ") + info.name + ": " + describe(info.dtype, info.shape, info.rank);
  return {kExitBadInput, source_ + ": no input named '" + name + "' (inputs: " + names + ")"};
}

RunnerError Runner::run(double* wallMs, double* submitMs) {
  auto t0 = std::chrono::steady_clock::now();
  mgrt_status s = mgrt_session_submit(session_);
  auto t1 = std::chrono::steady_clock::now();
  if (!s) s = mgrt_session_wait(session_);
  *wallMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  if (submitMs) *submitMs = std::chrono::duration<double, std::milli>(t1 - t0).count();
  if (s) return fail(s, source_ + ": run failed");
  return {0, ""};
}

RunnerError Runner::output(int i, std::string* name, mgb::npy::Array* out) {
  mgrt_tensor_info info;
  if (mgrt_status s = mgrt_session_output_info(session_, i, &info)) return fail(s, "output " + std::to_string(i));
  *name = info.name;
  out->dtype = mgb::npy::DType(info.dtype);
  out->shape.assign(info.shape, info.shape + info.rank);
  out->data.resize(info.bytes);
  if (mgrt_status s = mgrt_session_get_output(session_, info.name, out->data.data(), out->data.size()))
    return fail(s, "output '" + *name + "'");
  return {0, ""};
}

}  // namespace mgc
