#include "runtime/core/status.h"

#include <cstdarg>
#include <cstdio>
#include <new>

namespace mgrt {
namespace {

thread_local std::string tLastError;

std::string vformat(const char* fmt, va_list args) {
  va_list copy;
  va_copy(copy, args);
  const int n = std::vsnprintf(nullptr, 0, fmt, copy);
  va_end(copy);
  if (n <= 0) return std::string();
  std::string s(size_t(n) + 1, '\0');
  std::vsnprintf(&s[0], s.size(), fmt, args);
  s.resize(size_t(n));
  return s;
}

}  // namespace

mgrt_status fail(mgrt_status s, const char* fmt, ...) {
  va_list args;
  va_start(args, fmt);
  try {
    tLastError = vformat(fmt, args);
  } catch (const std::bad_alloc&) {
    tLastError.clear();  // keeps the status; the message is lost
  }
  va_end(args);
  return s;
}

mgrt_status failMessage(mgrt_status s, const std::string& message) {
  try {
    tLastError = message;
  } catch (const std::bad_alloc&) {
    tLastError.clear();
  }
  return s;
}

const std::string& lastError() { return tLastError; }

std::string format(const char* fmt, ...) {
  va_list args;
  va_start(args, fmt);
  std::string s = vformat(fmt, args);
  va_end(args);
  return s;
}

}  // namespace mgrt

const char* mgrt_last_error(void) { return mgrt::lastError().c_str(); }

const char* mgrt_status_string(mgrt_status s) {
  switch (s) {
    case MGRT_OK: return "ok";
    case MGRT_INVALID_ARGUMENT: return "invalid argument";
    case MGRT_INVALID_BUNDLE: return "invalid bundle";
    case MGRT_UNSUPPORTED: return "unsupported";
    case MGRT_NO_DEVICE: return "no device";
    case MGRT_OUT_OF_MEMORY: return "out of memory";
    case MGRT_DEVICE_ERROR: return "device error";
    case MGRT_IO_ERROR: return "i/o error";
  }
  return "unknown status";
}
