// Status + per-thread last error message, and the macros that propagate them.
#pragma once

#include <new>
#include <string>

#include "runtime/core/api.h"

namespace mgrt {

// Records a formatted message as this thread's last error and returns s.
mgrt_status fail(mgrt_status s, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
// Same, with a prepared message.
mgrt_status failMessage(mgrt_status s, const std::string& message);
const std::string& lastError();

// printf into a std::string (for building messages in pieces).
std::string format(const char* fmt, ...) __attribute__((format(printf, 1, 2)));

}  // namespace mgrt

#define MGRT_TRY(expr)                      \
  do {                                      \
    const mgrt_status mgrt_try_ = (expr);   \
    if (mgrt_try_ != MGRT_OK) return mgrt_try_; \
  } while (0)

// Wraps a public entry point so no C++ exception (std::bad_alloc from a
// container, mostly) ever crosses the C API.
#define MGRT_API_GUARD(...)                                                    \
  try {                                                                        \
    __VA_ARGS__                                                                \
  } catch (const std::bad_alloc&) {                                            \
    return mgrt::fail(MGRT_OUT_OF_MEMORY, "out of host memory");               \
  } catch (...) {                                                              \
    return mgrt::fail(MGRT_DEVICE_ERROR, "internal error (unexpected exception)"); \
  }
