// Compiles a model in a forked child process, so that a compiler crash
// (segfault, abort, sanitizer report) or hang costs one test, not the whole
// conformance run. The child sends the bundle (or the error) back over a pipe.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace mgc::conformance {

struct CompileOutcome {
  enum class Kind {
    Ok,         // bundle holds the .mgb image
    Error,      // the compiler threw mgc::Error (message)
    Exception,  // the compiler threw something else: a bug, but not a crash
    Crash,      // the child died from a signal
    Timeout,    // the child ran past the time limit
  };
  Kind kind = Kind::Ok;
  std::vector<uint8_t> bundle;
  std::string message;
};

// isolate=false compiles in this process (for debuggers); a crash then ends
// the run, and timeoutSeconds is ignored.
CompileOutcome compileModel(const std::string& modelPath, bool isolate, int timeoutSeconds);

}  // namespace mgc::conformance
