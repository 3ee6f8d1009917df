// mgc compile MODEL -o OUT.mgb [--report FILE.json] [--print-ir-after-all] [--verify-each] [--no-specialize]
//             [--precision fp32|fp16|bf16]
//   [--seq N]   (a Hugging Face checkpoint folder: tokens per run)
//   [--max-seq N [--prefill-chunk T]]   (a checkpoint folder: prefill/decode over a KV cache)
//   [--embed-check [--check-tolerance X]]   (a self-check for mgc verify / mgrt_model_verify)
//   [--train --loss KIND --labels NAME --optimizer sgd|adam|adamw --lr X ...]
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "compiler/cli/commands.h"
#include "compiler/driver.h"
#include "compiler/driver_train.h"
#include "formats/file_read.h"
#include "kernels/program_codegen.h"
#include "passes/graph/pipeline.h"

namespace mgc {

namespace {

// `bytes`, then the spans of `rest` (zero spans as zeros), to `path` by way
// of a temporary file, so that a failed write leaves no partial bundle.
bool writeFileAtomically(const std::string& path, const void* bytes, size_t size, std::string* err,
                         const std::vector<mgb::DataSpan>& rest = {}) {
  std::string tmp = path + ".tmp";
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    if (!f) {
      *err = path + ": cannot write file";
      return false;
    }
    f.write(static_cast<const char*>(bytes), std::streamsize(size));
    static const char kZeros[4096] = {};
    for (const mgb::DataSpan& s : rest) {
      if (s.data) f.write(reinterpret_cast<const char*>(s.data), std::streamsize(s.size));
      for (uint64_t left = s.data ? 0 : s.size; left > 0 && f; left -= std::min<uint64_t>(left, sizeof kZeros))
        f.write(kZeros, std::streamsize(std::min<uint64_t>(left, sizeof kZeros)));
    }
    if (!f) {
      *err = path + ": write failed";
      std::remove(tmp.c_str());
      return false;
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    *err = path + ": cannot write file";
    return false;
  }
  return true;
}

}  // namespace

int compileMain(int argc, char** argv) {
  CLI::App app{"Compile an ONNX model or text IR into a .mgb bundle", "mgc compile"};
  std::string input, output, reportPath;
  bool printIr = false, verifyEach = false, quiet = false;
  app.add_option("model", input, "model file (.onnx or .mgir) or Hugging Face checkpoint folder")->required();
  app.add_option("-o,--output", output, "bundle to write (.mgb)")->required();
  app.add_option("--report", reportPath, "write a JSON report (ops, kernels, sizes, arenas, phase times)");
  app.add_flag("--print-ir-after-all", printIr, "print the IR to stderr after every pass");
  app.add_flag("--verify-each", verifyEach, "run the IR verifier after every pass (an error names the pass)");
  app.add_flag("-q,--quiet", quiet, "print nothing on success");
  bool noSpecialize = false;
  app.add_flag("--no-specialize", noSpecialize,
               "one generic copy of each kernel instead of copies specialized to their dispatches (elementwise programs, "
               "reduction and convolution shapes; kernels/README.md)");
  std::string precision = "fp32";
  app.add_option("--precision", precision,
                 "fp32 (default: strict), or the accelerated mode fp16 / bf16: matrix products round their operands "
                 "to that type and sum in f32, on the GPU's matrix units where it has them; fp16 training scales its loss "
                 "(docs/precision.md)");
  bool embedCheck = false;
  double checkTolerance = kDefaultCheckTolerance;
  auto* embedFlag = app.add_flag("--embed-check", embedCheck,
                                 "store reference inputs and CPU-reference outputs of the first entry point, for "
                                 "mgc verify");
  app.add_option("--check-tolerance", checkTolerance,
                 "--embed-check: per element |got - want| <= X * max(1, |want|) (default 1e-3)")
      ->needs(embedFlag)
      ->check(CLI::Range(0.0, 1e30));
  int64_t seqLen = 0;
  app.add_option("--seq", seqLen, "checkpoint folder: tokens per run, input_ids [1, N] (default 128)")
      ->check(CLI::Range(int64_t(1), int64_t(1) << 20));
  int64_t maxSeq = 0, chunk = 0;
  auto* maxSeqOpt =
      app.add_option("--max-seq", maxSeq,
                     "checkpoint folder: build a generation bundle (entry points prefill + decode over a KV cache of N "
                     "positions; mgc generate runs it)")
          ->check(CLI::Range(int64_t(1), int64_t(1) << 20));
  app.add_option("--prefill-chunk", chunk, "generation bundle: tokens per prefill run (default 64, or --max-seq if less); "
                                           "must divide --max-seq")
      ->needs(maxSeqOpt)
      ->check(CLI::Range(int64_t(1), int64_t(1) << 20));
  std::string weights = "f32";
  int64_t group = 64;
  app.add_option("--weights", weights,
                 "checkpoint folder: weights of the linear layers, f32 (default), f16, int8, int4 or ternary "
                 "(packed, decoded inside the matrix kernels; embeddings and norms stay f32)");
  app.add_option("--group-size", group, "int8 / int4 / ternary: weights per scale (default 64; 32-128 typical)")
      ->check(CLI::Range(int64_t(1), int64_t(1) << 20));
  // Training (docs/cli.md, docs/training.md).
  bool train = false, nesterov = false;
  std::string loss = "cross_entropy", optimizer = "sgd", schedule = "constant";
  TrainOptions to;
  OptimizerOptions& oo = to.optimizer;
  auto* trainFlag = app.add_flag("--train", train, "build a training bundle: entry points train_step + infer over shared state");
  trainFlag->excludes(maxSeqOpt);
  auto needsTrain = [&](CLI::Option* o) { o->needs(trainFlag); };
  needsTrain(app.add_option("--loss", loss, "cross_entropy (default), mse, l1, bce_with_logits; put on the first output"));
  needsTrain(app.add_option("--labels", to.labels, "name of the target input of train_step (default: labels)"));
  needsTrain(app.add_option("--prediction", to.prediction, "model output the loss is put on (default: the first)"));
  needsTrain(app.add_option("--class-axis", to.loss.classAxis,
                            "cross_entropy: class axis of the logits, 1 (default, [N, C, ...]) or -1 ([N, ..., C], "
                            "e.g. [N, T, vocab] with [N, T] token targets)"));
  needsTrain(app.add_option("--label-smoothing", to.loss.labelSmoothing, "cross_entropy label smoothing in [0, 1]"));
  needsTrain(app.add_option("--optimizer", optimizer, "sgd (default), adam, adamw"));
  needsTrain(app.add_option("--lr", oo.lr, "learning rate (default 0.01)"));
  needsTrain(app.add_option("--momentum", oo.momentum, "sgd momentum (default 0)"));
  needsTrain(app.add_flag("--nesterov", nesterov, "sgd: Nesterov momentum"));
  needsTrain(app.add_option("--weight-decay", oo.weightDecay, "L2 (sgd, adam) or decoupled (adamw) weight decay"));
  needsTrain(app.add_option("--beta1", oo.beta1, "adam/adamw beta1 (default 0.9)"));
  needsTrain(app.add_option("--beta2", oo.beta2, "adam/adamw beta2 (default 0.999)"));
  needsTrain(app.add_option("--eps", oo.eps, "adam/adamw epsilon (default 1e-8)"));
  needsTrain(app.add_option("--clip-norm", oo.clipNorm, "clip gradients to this global L2 norm (default: off)"));
  needsTrain(app.add_option("--schedule", schedule, "learning-rate schedule: constant (default), step, cosine"));
  needsTrain(app.add_option("--step-size", oo.stepSize, "step schedule: steps between decays"));
  needsTrain(app.add_option("--gamma", oo.gamma, "step schedule: decay factor (default 0.1)"));
  needsTrain(app.add_option("--warmup", oo.warmup, "cosine schedule: linear warmup steps"));
  needsTrain(app.add_option("--total-steps", oo.totalSteps, "cosine schedule: steps until the rate reaches 0"));
  needsTrain(app.add_option("--freeze", to.freeze, "keep parameters whose name matches this glob fixed (repeatable)"));
  needsTrain(app.add_option("--loss-scale", oo.lossScale,
                            "dynamic loss scaling from this scale (default with --precision fp16: 65536; "
                            "docs/precision.md)")
                 ->check(CLI::Range(0.0, 3.0e38)));
  needsTrain(app.add_option("--seed", to.seed, "dropout masks: moves every Dropout node's seed (default 0)"));
  std::vector<std::string> disabledPasses;
  app.add_option("--disable-pass", disabledPasses,
                 "skip this pipeline pass (repeatable; also the comma-separated MGC_DISABLE_PASSES): an A/B of one "
                 "optimization");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? kExitOk : kExitUsage;
  }

  // A folder is a checkpoint folder (the frontend checks for config.json).
  if (std::string problem = fileio::notAFile(input);
      !problem.empty() && !std::filesystem::is_directory(input)) {
    std::fprintf(stderr, "mgc compile: error: %s\n", problem.c_str());
    return kExitIo;
  }
  CompileOptions opts;
  opts.printIrAfterAll = printIr;
  opts.verifyEachPass = verifyEach;
  opts.specializeKernels = !noSpecialize;
  if (const char* env = std::getenv("MGC_DISABLE_PASSES")) {
    std::istringstream names(env);
    for (std::string name; std::getline(names, name, ',');)
      if (!name.empty()) disabledPasses.push_back(name);
  }
  for (const std::string& name : disabledPasses) {
    if (!findPass(name)) {
      std::fprintf(stderr, "mgc compile: error: --disable-pass '%s' is no pass (mgc opt --help lists them)\n", name.c_str());
      return kExitUsage;
    }
    opts.disabledPasses.insert(name);
  }
  opts.frontend.seqLen = seqLen;
  opts.embedCheck = embedCheck;
  opts.checkTolerance = checkTolerance;
  opts.assembleBundle = false;  // written from the pieces below
  if (!parseWeightFormat(weights, &opts.frontend.linear.format)) {
    std::fprintf(stderr, "mgc compile: error: --weights '%s' is not one of f32, f16, int8, int4, ternary\n", weights.c_str());
    return kExitUsage;
  }
  opts.frontend.linear.group = group;
  if (!parsePrecision(precision, &opts.precision)) {
    std::fprintf(stderr, "mgc compile: error: --precision '%s' is not one of fp32, fp16, bf16\n", precision.c_str());
    return kExitUsage;
  }
  if (train && opts.frontend.linear.format != WeightFormat::F32) {
    std::fprintf(stderr, "mgc compile: error: --weights %s is for inference; --train keeps f32 weights\n", weights.c_str());
    return kExitUsage;
  }
  // glslang's set-up for the generated kernels overlaps the import.
  std::future<void> warm;
  if (opts.specializeKernels) warm = kern::warmUpCodegenAsync();
  CompileResult r;
  try {
    if (train) {
      to.loss.kind = parseLossKind(loss);
      oo.kind = parseOptimizerKind(optimizer);
      oo.schedule = parseLrSchedule(schedule);
      oo.nesterov = nesterov;
      TrainCompileResult tr = compileTrainingFile(input, to, opts);
      for (const std::string& w : tr.program.warnings) std::fprintf(stderr, "mgc compile: warning: %s\n", w.c_str());
      r = std::move(tr.compile);
    } else if (maxSeq > 0) {
      r = compileGenerationFile(input, maxSeq, chunk > 0 ? chunk : std::min<int64_t>(64, maxSeq), opts);
    } else {
      r = compileFile(input, opts);
    }
  } catch (const Error& e) {
    std::fprintf(stderr, "mgc compile: error: %s\n", e.what());
    return kExitBadInput;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "mgc compile: internal error while compiling %s: %s\n", input.c_str(), e.what());
    return kExitBadInput;
  }
  for (const std::string& w : r.warnings) std::fprintf(stderr, "mgc compile: warning: %s\n", w.c_str());
  std::string err;
  if (!writeFileAtomically(output, r.pieces.bytes.data(), r.pieces.bytes.size(), &err, r.pieces.rest) ||
      (!reportPath.empty() && !writeFileAtomically(reportPath, r.reportJson.data(), r.reportJson.size(), &err))) {
    std::fprintf(stderr, "mgc compile: error: %s\n", err.c_str());
    return kExitIo;
  }
  if (!quiet) std::printf("%s  wrote %s\n", r.summary.c_str(), output.c_str());
  return kExitOk;
}

}  // namespace mgc
