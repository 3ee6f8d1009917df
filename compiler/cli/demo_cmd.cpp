// mgc demo: the main job on the shipped example. Compiles examples/cnn.onnx
// (a Fashion-MNIST CNN exported from PyTorch), runs it on the default device
// through libmgrt, and compares the logits with PyTorch's. Then trains the
// same CNN on Fashion-MNIST on the device (a short run), saves a checkpoint,
// exports an inference bundle with the trained weights and classifies the
// example images with it.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>

#include "compiler/cli/commands.h"
#include "compiler/cli/runner.h"
#include "compiler/bundle_export.h"
#include "compiler/cli/trainer.h"
#include "compiler/driver.h"
#include "compiler/driver_train.h"
#include "formats/idx.h"
#include "formats/safetensors.h"

#ifndef MGC_SOURCE_DIR
#define MGC_SOURCE_DIR "."
#endif

namespace mgc {

namespace {

const char* kClasses[] = {"T-shirt/top", "Trouser", "Pullover", "Dress", "Coat",
                          "Sandal",      "Shirt",   "Sneaker",  "Bag",   "Ankle boot"};

int fail(int code, const std::string& msg) {
  std::fprintf(stderr, "mgc demo: error: %s\n", msg.c_str());
  return code;
}

// Train → checkpoint → export → classify (the second half of the demo).
int trainDemo(const std::string& model, const std::string& outDir, const mgb::npy::Array& images, int device,
              int64_t steps) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::create_directories(outDir, ec);
  if (ec) return fail(kExitIo, outDir + ": cannot create folder (" + ec.message() + ")");
  const std::string trainPath = (fs::path(outDir) / "cnn-train.mgb").string();
  const std::string ckptPath = (fs::path(outDir) / "cnn.safetensors").string();
  const std::string inferPath = (fs::path(outDir) / "cnn.mgb").string();

  std::printf("== train (mgc compile --train, mgc train, mgc export)\n");
  TrainOptions to;
  to.optimizer.kind = OptimizerKind::AdamW;
  to.optimizer.lr = 1e-3;
  std::string err;
  try {
    TrainCompileResult tr = compileTrainingFile(model, to);
    std::printf("%s\n", tr.compile.summary.c_str());
    if (!safetensors::writeFileAtomic(trainPath, tr.compile.bundle, &err)) return fail(kExitIo, err);
  } catch (const Error& e) {
    return fail(kExitBadInput, e.what());
  }
  idx::Dataset train, test;
  try {
    train = idx::loadMnistDir(datasetDir("fashion-mnist"), true);
    test = idx::loadMnistDir(datasetDir("fashion-mnist"), false);
  } catch (const std::exception& e) {
    return fail(kExitIo, std::string(e.what()) + " (install Debian's dataset-fashion-mnist: tools/setup.sh)");
  }
  int code = 0;
  {
    Trainer t;
    if (std::string e = t.open(trainPath, device, &code); !e.empty()) return fail(code, e);
    Samples data;
    if (std::string e = datasetColumns(train, t.trainInputs(), true, &data); !e.empty()) return fail(kExitBadInput, e);
    TrainLoopOptions o;
    o.maxSteps = steps;
    o.checkpoint = ckptPath;
    TrainLoopResult r;
    if (std::string e = t.train(data, o, &r, &code); !e.empty()) return fail(code, e);
    std::printf("trained %lld steps of batch %lld: loss %.3f -> %.3f, %.1f images/s; checkpoint %s\n", (long long)r.steps,
                (long long)t.batch(), r.losses.empty() ? 0.0 : double(r.losses.front()), r.lastLoss, r.samplesPerSecond,
                ckptPath.c_str());
  }
  std::vector<uint8_t> trainBundle, ckpt;
  if (!safetensors::readFile(trainPath, &trainBundle, &err) || !safetensors::readFile(ckptPath, &ckpt, &err))
    return fail(kExitIo, err);
  std::vector<uint8_t> inferBundle;
  try {
    inferBundle = exportInferenceBundle(trainBundle, ckpt, ckptPath);
  } catch (const Error& e) {
    return fail(kExitBadInput, e.what());
  }
  if (!safetensors::writeFileAtomic(inferPath, inferBundle, &err)) return fail(kExitIo, err);
  std::printf("exported %s (%.1f KiB)\n== classify the example images with %s\n", inferPath.c_str(),
              double(inferBundle.size()) / 1024.0, inferPath.c_str());

  Runner runner;
  if (RunnerError e = runner.open(inferBundle, inferPath, device, false); e.exitCode) return fail(e.exitCode, e.message);
  if (RunnerError e = runner.setInput("x", images, "cnn_input.npy"); e.exitCode) return fail(e.exitCode, e.message);
  double ms = 0;
  if (RunnerError e = runner.run(&ms); e.exitCode) return fail(e.exitCode, e.message);
  std::string name;
  mgb::npy::Array y;
  if (RunnerError e = runner.output(0, &name, &y); e.exitCode) return fail(e.exitCode, e.message);
  const float* got = reinterpret_cast<const float*>(y.data.data());
  const size_t classes = 10, n = y.data.size() / 4 / classes;
  size_t correct = 0;
  for (size_t b = 0; b < n && b < test.labels.size(); ++b) {
    size_t best = size_t(std::max_element(got + b * classes, got + (b + 1) * classes) - (got + b * classes));
    size_t truth = size_t(test.labels[b]);
    correct += best == truth;
    std::printf("  image %zu: %-12s (true: %s)%s\n", b, kClasses[best], kClasses[truth], best == truth ? "" : "  <- wrong");
  }
  std::printf("%zu of %zu right after %lld training steps\n", correct, n, (long long)steps);
  return kExitOk;
}

}  // namespace

int demoMain(int argc, char** argv) {
  CLI::App app{"Compile and run the shipped example CNN, compare with PyTorch", "mgc demo"};
  std::string dir = std::string(MGC_SOURCE_DIR) + "/examples";
  int device = -1, iterations = 20;
  app.add_option("--examples", dir, "folder with cnn.onnx, cnn_input.npy, cnn_expected.npy");
  app.add_option("--device", device, "Vulkan device index");
  app.add_option("--iterations", iterations, "timed runs")->check(CLI::Range(1, 100000));
  int64_t trainSteps = 150;
  std::string outDir = "mgc-demo";
  app.add_option("--train-steps", trainSteps, "training steps of the second half (0: skip training)")
      ->check(CLI::Range(int64_t(0), int64_t(1) << 40));
  app.add_option("--out-dir", outDir, "where the training bundle, checkpoint and exported bundle go");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? kExitOk : kExitUsage;
  }

  std::string model = dir + "/cnn.onnx";
  std::printf("== compile %s\n", model.c_str());
  CompileResult r;
  try {
    r = compileFile(model);
  } catch (const Error& e) {
    return fail(kExitBadInput, e.what());
  }
  std::printf("%s", r.summary.c_str());

  mgb::npy::Array x, expected;
  std::string err;
  // npy's messages name the file.
  if (!mgb::npy::readFile(dir + "/cnn_input.npy", &x, &err) || !mgb::npy::readFile(dir + "/cnn_expected.npy", &expected, &err))
    return fail(kExitIo, err);

  std::printf("== run\n");
  Runner runner;
  if (RunnerError e = runner.open(r.bundle, model, device, false); e.exitCode) return fail(e.exitCode, e.message);
  std::printf("device: %s\n", runner.deviceName().c_str());
  if (RunnerError e = runner.setInput("x", x, "cnn_input.npy"); e.exitCode) return fail(e.exitCode, e.message);
  double ms = 0;
  if (RunnerError e = runner.run(&ms); e.exitCode) return fail(e.exitCode, e.message);  // warm-up
  std::vector<double> wall, gpu;
  for (int i = 0; i < iterations; ++i) {
    if (RunnerError e = runner.run(&ms); e.exitCode) return fail(e.exitCode, e.message);
    wall.push_back(ms);
    gpu.push_back(runner.gpuMs());
  }
  std::sort(wall.begin(), wall.end());
  std::sort(gpu.begin(), gpu.end());
  std::printf("run: %.3f ms wall, %.3f ms GPU (median of %d, batch %lld)\n", wall[wall.size() / 2],
              gpu[gpu.size() / 2], iterations, (long long)x.shape[0]);

  std::string name;
  mgb::npy::Array y;
  if (RunnerError e = runner.output(0, &name, &y); e.exitCode) return fail(e.exitCode, e.message);
  if (y.data.size() != expected.data.size()) return fail(kExitBadInput, "output size differs from cnn_expected.npy");
  const float* got = reinterpret_cast<const float*>(y.data.data());
  const float* want = reinterpret_cast<const float*>(expected.data.data());
  size_t n = y.data.size() / 4, classes = 10;
  double maxErr = 0, maxRef = 0;
  for (size_t i = 0; i < n; ++i) {
    maxErr = std::max(maxErr, double(std::fabs(got[i] - want[i])));
    maxRef = std::max(maxRef, double(std::fabs(want[i])));
  }
  std::printf("== result (random weights: the classes are arbitrary, the numbers must match PyTorch)\n");
  for (size_t b = 0; b * classes < n; ++b) {
    size_t best = size_t(std::max_element(got + b * classes, got + (b + 1) * classes) - (got + b * classes));
    size_t ref = size_t(std::max_element(want + b * classes, want + (b + 1) * classes) - (want + b * classes));
    std::printf("  image %zu: class %zu (%s)%s\n", b, best, kClasses[best], best == ref ? "" : "  <- PyTorch differs");
  }
  double rel = maxErr / std::max(maxRef, 1e-6);
  std::printf("max |mgc - PyTorch| = %.3g (relative %.3g): %s\n", maxErr, rel, rel <= 1e-4 ? "match" : "MISMATCH");
  if (rel > 1e-4) return kExitBadInput;
  if (trainSteps == 0) return kExitOk;
  return trainDemo(model, outDir, x, device, trainSteps);
}

}  // namespace mgc
