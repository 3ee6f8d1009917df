// mgc export TRAIN.mgb [--weights CHECKPOINT.safetensors] -o OUT.mgb
// An inference bundle ("infer" only, weights baked in) from a training
// bundle and the state saved by `mgc train --checkpoint` (docs/cli.md).
#include <CLI/CLI.hpp>
#include <cstdio>

#include "compiler/bundle_export.h"
#include "compiler/cli/commands.h"
#include "ir/types.h"
#include "formats/safetensors.h"

namespace mgc {

int exportMain(int argc, char** argv) {
  CLI::App app{"Export an inference bundle from a training bundle and a checkpoint", "mgc export"};
  std::string input, weights, output;
  bool quiet = false;
  app.add_option("bundle", input, "training bundle (.mgb, from `mgc compile --train`)")->required();
  app.add_option("--weights", weights, "checkpoint (.safetensors, from `mgc train --checkpoint`); default: the bundle's initial state");
  app.add_option("-o,--output", output, "inference bundle to write (.mgb)")->required();
  app.add_flag("-q,--quiet", quiet, "print nothing on success");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? kExitOk : kExitUsage;
  }
  std::vector<uint8_t> bundle, ckpt;
  std::string err;
  if (!safetensors::readFile(input, &bundle, &err)) {
    std::fprintf(stderr, "mgc export: error: %s\n", err.c_str());
    return kExitIo;
  }
  if (!weights.empty() && !safetensors::readFile(weights, &ckpt, &err)) {
    std::fprintf(stderr, "mgc export: error: %s\n", err.c_str());
    return kExitIo;
  }
  std::vector<uint8_t> out;
  ExportStats st;
  try {
    out = exportInferenceBundle(bundle, ckpt, weights, "infer", &st);
  } catch (const Error& e) {
    std::fprintf(stderr, "mgc export: error: %s: %s\n", input.c_str(), e.what());
    return kExitBadInput;
  }
  if (!safetensors::writeFileAtomic(output, out, &err)) {
    std::fprintf(stderr, "mgc export: error: %s\n", err.c_str());
    return kExitIo;
  }
  if (!quiet)
    std::printf("exported 'infer': %zu kernels, %.2f MiB weights (%zu state ranges baked in), %.2f MiB activations  wrote %s\n",
                st.kernels, double(st.weightsBytes) / 1048576.0, st.stateBaked, double(st.activationBytes) / 1048576.0,
                output.c_str());
  return kExitOk;
}

}  // namespace mgc
