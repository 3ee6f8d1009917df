// mgc train BUNDLE.mgb (--dataset NAME|DIR | --data NAME=FILE.npy ...) [--epochs N]
//   [--steps N] [--batch N] [--checkpoint FILE] [--resume] [--no-shuffle] [--seed N]
//   [--log FILE.csv] [--test-data NAME=FILE.npy ... --test-labels FILE.npy] [--profile FILE]
// Trains a bundle made by `mgc compile --train` on the device (docs/cli.md).
// --profile: every step is timed per dispatch; the trace and the top-kernels
// table are of the last step, which runs warm (the first pays for caches).
#include <cstdio>
#include <cstring>
#include <map>

#include "compiler/cli/cli_args.h"
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

}  // namespace

int trainMain(int argc, char** argv) {
  TrainArgs args;
  if (int code = parseTrainArgs(argc, argv, &args); code >= 0) return code;
  const std::string &path = args.bundle, &dataset = args.dataset;
  const int64_t testLimit = args.testLimit;
  const NpyLoader loadNpy = mgb::npy::readFile;

  Trainer t;
  int code = 0;
  if (std::string e = t.open(path, args.device, &code); !e.empty()) return report(code, e);
  if (args.batch && args.batch != t.batch())
    return report(kExitUsage, "--batch " + std::to_string(args.batch) + ": the bundle was compiled for batch " +
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
  if (!args.dataSpecs.empty())
    if (std::string e = npyColumns(args.dataSpecs, t.trainInputs(), loadNpy, &train, &code); !e.empty())
      return report(code, e);
  if (!args.testSpecs.empty()) {
    if (std::string e = npyColumns(args.testSpecs, t.inferInputs(), loadNpy, &test, &code); !e.empty())
      return report(code, e);
    mgb::npy::Array a;
    std::string err;
    if (!mgb::npy::readFile(args.testLabels, &a, &err)) return report(kExitBadInput, args.testLabels + ": " + err);
    if (std::string e = npyLabels(args.testLabels, a, test.rows, &testLabelValues); !e.empty())
      return report(kExitBadInput, e);
  }

  if (!args.profile.empty())
    if (std::string e = enableProfiling(t.trainSession()); !e.empty())
      return report(kExitDevice, "--profile: " + e + "; no trace written");
  std::printf("device: %s\n", t.deviceName().c_str());
  std::printf("training %s: %lld samples, batch %lld, %d epoch(s)\n", path.c_str(), (long long)train.rows,
              (long long)t.batch(), args.epochs);
  TrainLoopOptions o;
  o.epochs = args.epochs;
  o.maxSteps = args.steps;
  o.seed = args.seed;
  o.shuffle = !args.noShuffle;
  o.checkpoint = args.checkpoint;
  o.resume = args.resume;
  o.logCsv = args.logCsv;
  o.progress = !args.quiet;
  TrainLoopResult r;
  if (std::string e = t.train(train, o, &r, &code); !e.empty()) return report(code, e);
  std::printf("trained %lld steps (step %lld in all): last loss %.4f, %.1f samples/s\n", (long long)r.steps,
              (long long)r.globalStep, r.lastLoss, r.samplesPerSecond);
  if (r.lastEpochAccuracy >= 0) std::printf("training accuracy (last epoch): %.2f%%\n", 100 * r.lastEpochAccuracy);
  if (!args.checkpoint.empty()) std::printf("checkpoint: %s\n", args.checkpoint.c_str());
  if (!args.profile.empty()) {
    if (r.steps == 0) return report(kExitUsage, "--profile: no train step ran; no trace written");
    if (std::string e = reportProfile(t.trainSession(), args.profile,
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
