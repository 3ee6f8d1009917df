// mgc: the command-line front door. Dispatches to one file per command.
#include <cstdio>
#include <cstring>
#include <string>

#include "compiler/cli/commands.h"

namespace {

const char* kUsage =
    "mgc - compile neural networks to portable GPU bundles\n"
    "\n"
    "usage: mgc <command> [options]\n"
    "\n"
    "commands:\n"
    "  compile MODEL (.onnx|.mgir) -o OUT.mgb   compile a model into a bundle (--train: a training bundle)\n"
    "  train BUNDLE.mgb --dataset NAME          train a training bundle on the device\n"
    "  export BUNDLE.mgb --weights CK -o OUT    inference bundle from a training bundle + checkpoint\n"
    "  run BUNDLE.mgb --input NAME=FILE.npy      run a bundle with libmgrt\n"
    "  generate BUNDLE.mgb --prompt TEXT         generate text (or --prompt-ids 1,5,9; compile FOLDER --max-seq N)\n"
    "  bench-decode BUNDLE.mgb [--tokens N]      time token-by-token decode\n"
    "  tokenize BUNDLE.mgb --text T              text to token ids (--decode 1,2,3: ids to text)\n"
    "  verify BUNDLE.mgb                         run the bundle's self-check on a device (compile --embed-check)\n"
    "  inspect BUNDLE.mgb                        show what is inside a bundle\n"
    "  opt FILE.mgir [--pass NAME]...            run passes, print the IR\n"
    "  demo                                      compile and run the built-in example\n"
    "\n"
    "`mgc <command> --help` describes each command. Docs: docs/cli.md\n";

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h")) {
    std::fputs(kUsage, argc < 2 ? stderr : stdout);
    return argc < 2 ? mgc::kExitUsage : mgc::kExitOk;
  }
  std::string cmd = argv[1];
  if (cmd == "--version") {
    std::puts("mgc 0.1.0");
    return 0;
  }
  if (cmd == "compile") return mgc::compileMain(argc - 1, argv + 1);
  if (cmd == "run") return mgc::runMain(argc - 1, argv + 1);
  if (cmd == "inspect") return mgc::inspectMain(argc - 1, argv + 1);
  if (cmd == "opt") return mgc::optMain(argc - 1, argv + 1);
  if (cmd == "demo") return mgc::demoMain(argc - 1, argv + 1);
  if (cmd == "train") return mgc::trainMain(argc - 1, argv + 1);
  if (cmd == "export") return mgc::exportMain(argc - 1, argv + 1);
  if (cmd == "generate") return mgc::generateMain(argc - 1, argv + 1);
  if (cmd == "bench-decode") return mgc::benchDecodeMain(argc - 1, argv + 1);
  if (cmd == "tokenize") return mgc::tokenizeMain(argc - 1, argv + 1);
  if (cmd == "verify") return mgc::verifyMain(argc - 1, argv + 1);
  std::fprintf(stderr, "mgc: unknown command '%s'\n\n%s", cmd.c_str(), kUsage);
  return mgc::kExitUsage;
}
