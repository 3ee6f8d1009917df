#include "compiler/cli/trainer.h"

#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "compiler/cli/commands.h"
#include "formats/dtype.h"
#include "formats/idx.h"

namespace mgc {

namespace {

using Clock = std::chrono::steady_clock;

int64_t readIndex(mgrt_dtype t, const uint8_t* p) {
  switch (t) {
    case MGRT_I64: { int64_t v; std::memcpy(&v, p, 8); return v; }
    case MGRT_I32: { int32_t v; std::memcpy(&v, p, 4); return v; }
    case MGRT_U8: return p[0];
    case MGRT_I8: return int8_t(p[0]);
    case MGRT_F32: { float v; std::memcpy(&v, p, 4); return int64_t(v); }
    default: return -1;
  }
}

const Column* findColumn(const Samples& s, const char* name) {
  for (const Column& c : s.columns)
    if (c.name == name) return &c;
  return nullptr;
}

int64_t argmaxRow(const float* row, int64_t n) {
  int64_t best = 0;
  for (int64_t k = 1; k < n; ++k)
    if (row[k] > row[best]) best = k;
  return best;
}

// Where the classes of a prediction sit relative to integer targets: the
// prediction is [outer, classes, inner] with targets [outer, inner]. The
// class axis is 1 ([N, C, d...] against [N, d...]) or the last ([N, T, V]
// against [N, T]), as the cross-entropy loss reads them; classes == 0 when
// the prediction is not class scores for these targets.
struct ClassLayout {
  int64_t outer = 0, classes = 0, inner = 0;
  int64_t targets() const { return outer * inner; }
  int64_t argmax(const float* p, int64_t t) const {  // the predicted class of target element t
    int64_t o = t / inner, i = t % inner, best = 0;
    const float* base = p + o * classes * inner + i;
    for (int64_t k = 1; k < classes; ++k)
      if (base[k * inner] > base[best * inner]) best = k;
    return best;
  }
};

ClassLayout classLayout(const mgrt_tensor_info& pred, const mgrt_tensor_info& target) {
  ClassLayout l;
  if (pred.dtype != MGRT_F32 || pred.rank != target.rank + 1 || pred.rank < 2) return l;
  if (target.dtype != MGRT_I64 && target.dtype != MGRT_I32) return l;
  for (int axis : {1, pred.rank - 1}) {
    bool match = true;
    for (int d = 0, t = 0; d < pred.rank && match; ++d)
      if (d != axis) match = pred.shape[d] == target.shape[t++];
    if (!match) continue;
    l.outer = 1, l.inner = 1, l.classes = pred.shape[axis];
    for (int d = 0; d < axis; ++d) l.outer *= pred.shape[d];
    for (int d = axis + 1; d < pred.rank; ++d) l.inner *= pred.shape[d];
    return l;
  }
  return l;
}

}  // namespace

std::string datasetDir(const std::string& name) {
  if (name == "fashion-mnist") return "/usr/share/datasets/fashion-mnist";
  if (name == "mnist") return "/usr/share/datasets/mnist";
  return name;  // a folder with MNIST-format files
}

// An IDX dataset as columns for the given inputs: the image input (the first
// float input) gets the images, the target input gets the labels.
std::string datasetColumns(const idx::Dataset& d, const std::vector<mgrt_tensor_info>& inputs, bool withTarget,
                       Samples* out) {
  out->rows = d.images.rows();
  out->columns.clear();
  for (size_t i = 0; i < inputs.size(); ++i) {
    const mgrt_tensor_info& in = inputs[i];
    const bool isTarget = withTarget && i + 1 == inputs.size();
    Column c;
    c.name = in.name;
    c.dtype = in.dtype;
    const int64_t batch = in.rank ? in.shape[0] : 1;
    c.rowBytes = in.bytes / size_t(batch);
    if (isTarget) {
      if (c.rowBytes != dtypeBytes(in.dtype))
        return std::string("target input '") + in.name + "' takes " + std::to_string(c.rowBytes) +
               " bytes per sample; an IDX dataset gives one class index";
      c.data.resize(size_t(out->rows) * c.rowBytes);
      for (int64_t r = 0; r < out->rows; ++r) {
        int64_t v = d.labels[size_t(r)];
        uint8_t* p = c.data.data() + size_t(r) * c.rowBytes;
        if (in.dtype == MGRT_I64) std::memcpy(p, &v, 8);
        else if (in.dtype == MGRT_I32) { int32_t w = int32_t(v); std::memcpy(p, &w, 4); }
        else if (in.dtype == MGRT_F32) { float w = float(v); std::memcpy(p, &w, 4); }
        else return std::string("target input '") + in.name + "' has an unsupported dtype";
      }
    } else {
      if (in.dtype != MGRT_F32) return std::string("input '") + in.name + "' is not f32; cannot take images";
      const size_t pixels = size_t(d.images.rowSize());
      if (c.rowBytes != pixels * 4)
        return std::string("input '") + in.name + "' takes " + std::to_string(c.rowBytes / 4) +
               " values per sample but the images have " + std::to_string(pixels);
      c.data.resize(d.images.values.size() * 4);
      if (!c.data.empty()) std::memcpy(c.data.data(), d.images.values.data(), c.data.size());  // none: no data() to copy
    }
    out->columns.push_back(std::move(c));
  }
  return "";
}

size_t dtypeBytes(mgrt_dtype t) {
  return mgb::dtype::isValid(unsigned(t)) ? mgb::dtype::size(mgb::dtype::DType(t)) : 0;
}

Trainer::~Trainer() {
  mgrt_session_destroy(trainSession_);
  mgrt_session_destroy(inferSession_);
  mgrt_model_destroy(model_);
  mgrt_context_destroy(ctx_);
}

std::string Trainer::fail(mgrt_status s, const std::string& what, int* exitCode) const {
  *exitCode = s == MGRT_NO_DEVICE || s == MGRT_DEVICE_ERROR ? kExitDevice
              : s == MGRT_IO_ERROR                        ? kExitIo
                                                          : kExitBadInput;
  return what + ": " + mgrt_last_error();
}

std::string Trainer::open(const std::string& path, int device, int* exitCode) {
  const char* v = std::getenv("MGRT_VALIDATION");
  mgrt_context_options opts{device, v && *v == '1' ? 1 : 0, 0};
  if (mgrt_status s = mgrt_context_create(&opts, &ctx_)) return fail(s, "cannot open a Vulkan device", exitCode);
  if (mgrt_status s = mgrt_model_load_file(ctx_, path.c_str(), &model_)) return fail(s, "cannot load bundle", exitCode);
  if (mgrt_status s = mgrt_session_create(model_, "train_step", &trainSession_))
    return fail(s, path + " is not a training bundle (compile it with `mgc compile --train`)", exitCode);
  for (int i = 0; i < mgrt_session_input_count(trainSession_); ++i) {
    mgrt_tensor_info info;
    mgrt_session_input_info(trainSession_, i, &info);
    trainInputs_.push_back(info);
  }
  if (mgrt_session_create(model_, "infer", &inferSession_) == MGRT_OK) {
    for (int i = 0; i < mgrt_session_input_count(inferSession_); ++i) {
      mgrt_tensor_info info;
      mgrt_session_input_info(inferSession_, i, &info);
      inferInputs_.push_back(info);
    }
  }
  return "";
}

int64_t Trainer::batch() const {
  if (trainInputs_.empty() || trainInputs_[0].rank == 0) return 1;
  return trainInputs_[0].shape[0];
}

std::string Trainer::deviceName() const { return ctx_ ? mgrt_context_device_name(ctx_) : ""; }

std::string Trainer::train(const Samples& data, const TrainLoopOptions& o, TrainLoopResult* r, int* exitCode) {
  *exitCode = kExitBadInput;
  const int64_t B = batch();
  if (trainInputs_.size() < 2) return "train_step needs the model's inputs and a target input";
  const size_t targetIndex = trainInputs_.size() - 1;
  std::vector<const Column*> cols;
  for (const mgrt_tensor_info& in : trainInputs_) {
    const Column* c = findColumn(data, in.name);
    if (!c) return std::string("no data for train_step input '") + in.name + "'";
    if (in.rank == 0 || in.shape[0] != B || c->rowBytes * size_t(B) != in.bytes || c->dtype != in.dtype)
      return std::string("data for input '") + in.name + "' does not match its shape (" +
             std::to_string(c->rowBytes) + " bytes per sample, the input takes " + std::to_string(in.bytes / size_t(B)) +
             ")";
    cols.push_back(c);
  }
  const int64_t perEpoch = data.rows / B;
  if (perEpoch == 0)
    return "the data has " + std::to_string(data.rows) + " samples, fewer than one batch of " + std::to_string(B);

  if (o.resume) {
    if (mgrt_status s = mgrt_model_load_state(model_, o.checkpoint.c_str())) return fail(s, "cannot resume", exitCode);
  }
  float stepF = 0;
  mgrt_model_read_state(model_, "opt.step", &stepF, 4);  // absent (no optimizer): start at 0
  int64_t global = int64_t(stepF);

  // Outputs: 0 = loss; 1 = prediction (accuracy when the target is a class index).
  int outCount = mgrt_session_output_count(trainSession_);
  mgrt_tensor_info lossInfo, predInfo{};
  mgrt_session_output_info(trainSession_, 0, &lossInfo);
  // Accuracy (per target element: a token, a pixel) when the prediction
  // holds class scores for the target input.
  const mgrt_tensor_info& target = trainInputs_[targetIndex];
  ClassLayout layout;
  if (outCount > 1) {
    mgrt_session_output_info(trainSession_, 1, &predInfo);
    layout = classLayout(predInfo, target);
  }
  const bool haveAcc = layout.classes > 0;
  const size_t targetBytes = dtypeBytes(target.dtype);
  std::vector<float> pred(haveAcc ? predInfo.bytes / 4 : 0);
  std::FILE* log = nullptr;
  if (!o.logCsv.empty()) {
    log = std::fopen(o.logCsv.c_str(), global > 0 ? "a" : "w");
    if (!log) {
      *exitCode = kExitIo;
      return o.logCsv + ": cannot write file";
    }
    if (global == 0) std::fprintf(log, "step,epoch,loss,accuracy\n");
  }
  std::vector<std::vector<uint8_t>> bufs(cols.size());
  for (size_t i = 0; i < trainInputs_.size(); ++i) bufs[i].resize(trainInputs_[i].bytes);

  const bool tty = isatty(2);
  auto t0 = Clock::now(), lastPrint = t0;
  int64_t samples = 0;
  std::string err;
  for (int64_t epoch = global / perEpoch; epoch < o.epochs && err.empty(); ++epoch) {
    std::vector<int64_t> order = idx::epochOrder(data.rows, o.seed + uint64_t(epoch), o.shuffle);
    int64_t correct = 0, seen = 0;
    for (int64_t s = global % perEpoch; s < perEpoch; ++s) {
      if (o.maxSteps >= 0 && global >= o.maxSteps) break;
      for (size_t i = 0; i < cols.size(); ++i) {
        const Column& c = *cols[i];
        for (int64_t k = 0; k < B; ++k)
          std::memcpy(bufs[i].data() + size_t(k) * c.rowBytes, c.data.data() + size_t(order[size_t(s * B + k)]) * c.rowBytes,
                      c.rowBytes);
        if (mgrt_status st = mgrt_session_set_input(trainSession_, trainInputs_[i].name, bufs[i].data(), bufs[i].size()))
          return fail(st, "set input", exitCode);
      }
      if (mgrt_status st = mgrt_session_run(trainSession_)) return fail(st, "train step", exitCode);
      float loss = 0;
      if (mgrt_status st = mgrt_session_get_output(trainSession_, lossInfo.name, &loss, 4))
        return fail(st, "reading the loss", exitCode);
      if (haveAcc) {
        mgrt_session_get_output(trainSession_, predInfo.name, pred.data(), pred.size() * 4);
        for (int64_t t = 0; t < layout.targets(); ++t)
          correct += layout.argmax(pred.data(), t) ==
                     readIndex(target.dtype, bufs[targetIndex].data() + size_t(t) * targetBytes);
        seen += layout.targets();
      }
      ++global;
      ++r->steps;
      samples += B;
      r->losses.push_back(loss);
      r->lastLoss = loss;
      if (log) std::fprintf(log, "%lld,%lld,%.9g,%s\n", (long long)global, (long long)epoch + 1, double(loss),
                            haveAcc ? std::to_string(double(correct) / double(seen)).c_str() : "");
      if (!std::isfinite(loss)) err = "the loss is " + std::to_string(loss) + " at step " + std::to_string(global);
      auto now = Clock::now();
      if (o.progress && (std::chrono::duration<double>(now - lastPrint).count() > (tty ? 0.2 : 5.0) || s + 1 == perEpoch)) {
        lastPrint = now;
        double secs = std::chrono::duration<double>(now - t0).count();
        std::fprintf(stderr, "%sepoch %lld/%d  step %lld/%lld  loss %.4f", tty ? "\r" : "", (long long)epoch + 1,
                     o.epochs, (long long)(s + 1), (long long)perEpoch, double(loss));
        if (haveAcc) std::fprintf(stderr, "  acc %5.1f%%", 100.0 * double(correct) / double(seen));
        std::fprintf(stderr, "  %.0f samples/s%s", double(samples) / std::max(secs, 1e-9), tty ? "   " : "\n");
      }
      if (!err.empty()) break;
    }
    if (o.progress && tty) std::fprintf(stderr, "\n");
    if (seen) r->lastEpochAccuracy = double(correct) / double(seen);
    if (!o.checkpoint.empty()) {
      if (mgrt_status st = mgrt_model_save_state(model_, o.checkpoint.c_str())) return fail(st, "checkpoint", exitCode);
    }
    if (o.maxSteps >= 0 && global >= o.maxSteps) break;
  }
  if (log) std::fclose(log);
  double secs = std::chrono::duration<double>(Clock::now() - t0).count();
  r->samplesPerSecond = double(samples) / std::max(secs, 1e-9);
  r->globalStep = global;
  if (!err.empty()) return err;
  *exitCode = kExitOk;
  return "";
}

std::string Trainer::evaluate(const Samples& data, const std::vector<int64_t>& labels, double* accuracy, int* exitCode) {
  *exitCode = kExitBadInput;
  if (!inferSession_) return "the bundle has no 'infer' entry point";
  mgrt_tensor_info out;
  mgrt_session_output_info(inferSession_, 0, &out);
  if (out.rank != 2 || out.dtype != MGRT_F32) return "infer output 0 is not f32 [batch, classes]";
  const int64_t B = out.shape[0], classes = out.shape[1];
  std::vector<const Column*> cols;
  std::vector<std::vector<uint8_t>> bufs;
  for (const mgrt_tensor_info& in : inferInputs_) {
    const Column* c = findColumn(data, in.name);
    if (!c || in.rank == 0 || in.shape[0] != B || c->rowBytes * size_t(B) != in.bytes)
      return std::string("no matching test data for infer input '") + in.name + "'";
    cols.push_back(c);
    bufs.emplace_back(in.bytes, 0);
  }
  std::vector<float> pred(size_t(B * classes));
  int64_t correct = 0;
  for (int64_t start = 0; start < data.rows; start += B) {
    const int64_t n = std::min(B, data.rows - start);
    for (size_t i = 0; i < cols.size(); ++i) {
      std::fill(bufs[i].begin(), bufs[i].end(), 0);
      std::memcpy(bufs[i].data(), cols[i]->data.data() + size_t(start) * cols[i]->rowBytes, size_t(n) * cols[i]->rowBytes);
      if (mgrt_status st = mgrt_session_set_input(inferSession_, inferInputs_[i].name, bufs[i].data(), bufs[i].size()))
        return fail(st, "set input", exitCode);
    }
    if (mgrt_status st = mgrt_session_run(inferSession_)) return fail(st, "infer", exitCode);
    if (mgrt_status st = mgrt_session_get_output(inferSession_, out.name, pred.data(), pred.size() * 4))
      return fail(st, "infer output", exitCode);
    for (int64_t k = 0; k < n; ++k) correct += argmaxRow(pred.data() + k * classes, classes) == labels[size_t(start + k)];
  }
  *accuracy = data.rows ? double(correct) / double(data.rows) : 0;
  *exitCode = kExitOk;
  return "";
}

}  // namespace mgc
