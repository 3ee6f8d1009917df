// `mgc <command>`: each command is one file with one entry point.
#pragma once

namespace mgc {

// Exit codes (docs/cli.md).
enum ExitCode : int {
  kExitOk = 0,
  kExitBadInput = 1,   // model, bundle, .npy or IR is invalid or unsupported
  kExitUsage = 2,      // bad command line
  kExitDevice = 3,     // no Vulkan device, or the device failed
  kExitIo = 4,         // a file could not be read or written
  kExitMismatch = 5,   // mgc verify: the device's outputs differ from the bundle's reference
};

int compileMain(int argc, char** argv);
int runMain(int argc, char** argv);
int inspectMain(int argc, char** argv);
int optMain(int argc, char** argv);
int demoMain(int argc, char** argv);
int trainMain(int argc, char** argv);   // train_cmd.cpp
int exportMain(int argc, char** argv);  // export_cmd.cpp
int generateMain(int argc, char** argv);     // generate_cmd.cpp
int benchDecodeMain(int argc, char** argv);  // generate_cmd.cpp
int tokenizeMain(int argc, char** argv);     // tokenize_cmd.cpp
int verifyMain(int argc, char** argv);       // verify_cmd.cpp

}  // namespace mgc
