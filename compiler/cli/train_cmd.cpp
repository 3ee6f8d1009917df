// mgc train BUNDLE.mgb (--dataset NAME|DIR | --data NAME=FILE.npy ...) [--epochs N]
//   [--steps N] [--batch N] [--checkpoint FILE] [--resume] [--no-shuffle] [--seed N]
//   [--log FILE.csv] [--test-data NAME=FILE.npy ... --test-labels FILE.npy] [--profile FILE]
// Trains a bundle made by `mgc compile --train` on the device (docs/cli.md).
// --profile: every step is timed per dispatch; the trace and the top-kernels
// table are of the last step, which runs warm (the first pays for caches).
#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstring>
#include <map>

#include "compiler/cli/commands.h"
#include "compiler/cli/profile.h"
#include "compiler/cli/trainer.h"
#include "formats/idx.h"
#include "formats/npy.h"

namespace mgc {

namespace {

int report(int code, const std::string& msg) {
  std::fprintf(stderr, "mgc train: error: %s\n", msg.c_str());
  return code;
}

std::string npyColumns(const std::vector<std::string>& specs, const std::vector<mgrt_tensor_info>& inputs,
                       Samples* out, int* code) {
  out->rows = -1;
  for (const std::string& spec : specs) {
    size_t eq = spec.find('=');
    if (eq == std::string::npos || eq == 0) {
      *code = kExitUsage;
      return "--data '" + spec + "' is not NAME=FILE.npy";
    }
    std::string name = spec.substr(0, eq), file = spec.substr(eq + 1), err;
    const mgrt_tensor_info* in = nullptr;
    for (const mgrt_tensor_info& i : inputs)
      if (name == i.name) in = &i;
    if (!in) {
      *code = kExitUsage;
      return "the bundle has no input '" + name + "'";
    }
    mgb::npy::Array a;
    if (!mgb::npy::readFile(file, &a, &err)) {
      *code = kExitBadInput;
      return file + ": " + err;
    }
    if (int(a.dtype) != int(in->dtype) || a.shape.empty()) {
      *code = kExitBadInput;
      return file + ": input '" + name + "' needs " + mgb::npy::dtypeName(mgb::npy::DType(in->dtype)) +
             " samples along the first axis, got " + mgb::npy::dtypeName(a.dtype) + " of rank " +
             std::to_string(a.shape.size());
    }
    Column c;
    c.name = name;
    c.dtype = in->dtype;
    c.rowBytes = in->bytes / size_t(in->rank ? in->shape[0] : 1);
    if (a.data.size() != size_t(a.shape[0]) * c.rowBytes) {
      // Samples along the first axis, each shaped like one batch row of the
      // input: targets of any rank ([S], [S, T], [S, H, W]) work this way.
      std::string want = "[S";
      for (int d = 1; d < in->rank; ++d) want += ", " + std::to_string(in->shape[d]);
      std::string got = "[";
      for (size_t d = 0; d < a.shape.size(); ++d) got += (d ? ", " : "") + std::to_string(a.shape[d]);
      *code = kExitBadInput;
      return file + ": input '" + name + "' takes samples shaped " + want + "] (S samples, " +
             std::to_string(c.rowBytes) + " bytes each), got " + got + "]";
    }
    if (out->rows >= 0 && out->rows != a.shape[0]) {
      *code = kExitBadInput;
      return file + ": " + std::to_string(a.shape[0]) + " samples, the other --data files have " + std::to_string(out->rows);
    }
    out->rows = a.shape[0];
    c.data = std::move(a.data);
    out->columns.push_back(std::move(c));
  }
  return "";
}

}  // namespace

int trainMain(int argc, char** argv) {
  CLI::App app{"Train a bundle made by `mgc compile --train`", "mgc train"};
  std::string path, dataset, checkpoint, logCsv, testLabels, profile;
  std::vector<std::string> dataSpecs, testSpecs;
  int epochs = 1, device = -1;
  int64_t steps = -1, batch = 0, testLimit = -1;
  uint64_t seed = 0;
  bool resume = false, noShuffle = false, quiet = false;
  app.add_option("bundle", path, "training bundle (.mgb)")->required();
  app.add_option("--dataset", dataset, "fashion-mnist, mnist, or a folder of MNIST-format IDX files (gzipped or not)");
  app.add_option("--data", dataSpecs, "NAME=FILE.npy: samples for a train_step input (first axis = samples)");
  app.add_option("--test-data", testSpecs, "NAME=FILE.npy: test samples for an infer input");
  app.add_option("--test-labels", testLabels, "FILE.npy: integer class of each test sample");
  app.add_option("--test-limit", testLimit, "evaluate only the first N test samples");
  app.add_option("--epochs", epochs, "passes over the training data")->check(CLI::Range(1, 1000000));
  app.add_option("--steps", steps, "stop after this many steps in all (resumed ones included)");
  app.add_option("--batch", batch, "must equal the bundle's batch size (fixed at compile time)");
  app.add_option("--checkpoint", checkpoint, "save the state here (safetensors) after every epoch");
  app.add_flag("--resume", resume, "load --checkpoint first and continue where it stopped");
  app.add_flag("--no-shuffle", noShuffle, "visit samples in file order (exact, reproducible)");
  app.add_option("--seed", seed, "shuffling seed (epoch e uses seed + e)");
  app.add_option("--log", logCsv, "write step,epoch,loss,accuracy of every step as CSV");
  app.add_option("--device", device, "Vulkan device index (default: env MGRT_DEVICE, else the first discrete GPU)");
  app.add_flag("-q,--quiet", quiet, "no progress line");
  app.add_option("--profile", profile, "write a Chrome/Perfetto trace of the last train step here and print its top kernels");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? kExitOk : kExitUsage;
  }
  if (dataset.empty() == dataSpecs.empty()) return report(kExitUsage, "give either --dataset or --data");
  if (resume && checkpoint.empty()) return report(kExitUsage, "--resume needs --checkpoint");

  Trainer t;
  int code = 0;
  if (std::string e = t.open(path, device, &code); !e.empty()) return report(code, e);
  if (batch && batch != t.batch())
    return report(kExitUsage, "--batch " + std::to_string(batch) + ": the bundle was compiled for batch " +
                                  std::to_string(t.batch()) + " (shapes are static)");

  Samples train, test;
  std::vector<int64_t> testLabelValues;
  try {
    if (!dataset.empty()) {
      const std::string dir = datasetDir(dataset);
      idx::Dataset d = idx::loadMnistDir(dir, true);
      if (std::string e = datasetColumns(d, t.trainInputs(), true, &train); !e.empty()) return report(kExitBadInput, e);
      idx::Dataset td = idx::loadMnistDir(dir, false);
      if (testLimit >= 0 && testLimit < td.images.rows()) {
        td.images.shape[0] = testLimit;
        td.images.values.resize(size_t(testLimit * td.images.rowSize()));
        td.labels.resize(size_t(testLimit));
      }
      if (std::string e = datasetColumns(td, t.inferInputs(), false, &test); !e.empty()) return report(kExitBadInput, e);
      testLabelValues = td.labels;
    }
  } catch (const std::exception& e) {
    return report(kExitIo, e.what());
  }
  if (!dataSpecs.empty())
    if (std::string e = npyColumns(dataSpecs, t.trainInputs(), &train, &code); !e.empty()) return report(code, e);
  if (!testSpecs.empty()) {
    if (testLabels.empty()) return report(kExitUsage, "--test-data needs --test-labels");
    if (std::string e = npyColumns(testSpecs, t.inferInputs(), &test, &code); !e.empty()) return report(code, e);
    mgb::npy::Array a;
    std::string err;
    if (!mgb::npy::readFile(testLabels, &a, &err)) return report(kExitBadInput, testLabels + ": " + err);
    if (a.dtype != mgb::npy::DType::I64 || a.shape.size() != 1 || a.shape[0] != test.rows)
      return report(kExitBadInput, testLabels + ": needs i64 [" + std::to_string(test.rows) + "] class indices");
    testLabelValues.assign(reinterpret_cast<const int64_t*>(a.data.data()),
                           reinterpret_cast<const int64_t*>(a.data.data()) + test.rows);
  }

  if (!profile.empty())
    if (std::string e = enableProfiling(t.trainSession()); !e.empty())
      return report(kExitDevice, "--profile: " + e + "; no trace written");
  std::printf("device: %s\n", t.deviceName().c_str());
  std::printf("training %s: %lld samples, batch %lld, %d epoch(s)\n", path.c_str(), (long long)train.rows,
              (long long)t.batch(), epochs);
  TrainLoopOptions o;
  o.epochs = epochs;
  o.maxSteps = steps;
  o.seed = seed;
  o.shuffle = !noShuffle;
  o.checkpoint = checkpoint;
  o.resume = resume;
  o.logCsv = logCsv;
  o.progress = !quiet;
  TrainLoopResult r;
  if (std::string e = t.train(train, o, &r, &code); !e.empty()) return report(code, e);
  std::printf("trained %lld steps (step %lld in all): last loss %.4f, %.1f samples/s\n", (long long)r.steps,
              (long long)r.globalStep, r.lastLoss, r.samplesPerSecond);
  if (r.lastEpochAccuracy >= 0) std::printf("training accuracy (last epoch): %.2f%%\n", 100 * r.lastEpochAccuracy);
  if (!checkpoint.empty()) std::printf("checkpoint: %s\n", checkpoint.c_str());
  if (!profile.empty()) {
    if (r.steps == 0) return report(kExitUsage, "--profile: no train step ran; no trace written");
    if (std::string e = reportProfile(t.trainSession(), profile,
                                      "mgc train " + path + " (last step) on " + t.deviceName());
        !e.empty())
      return report(kExitIo, "--profile: " + e);
  }
  if (test.rows > 0) {
    double acc = 0;
    if (std::string e = t.evaluate(test, testLabelValues, &acc, &code); !e.empty()) return report(code, e);
    std::printf("test accuracy: %.2f%% (%lld samples)\n", 100 * acc, (long long)test.rows);
  }
  return kExitOk;
}

}  // namespace mgc
