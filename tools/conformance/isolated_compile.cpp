#include "tools/conformance/isolated_compile.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "compiler/driver.h"

namespace mgc::conformance {

namespace {

CompileOutcome compileInProcess(const std::string& modelPath) {
  CompileOutcome out;
  try {
    out.bundle = compileFile(modelPath).bundle;
  } catch (const Error& e) {
    out.kind = CompileOutcome::Kind::Error;
    out.message = e.what();
  } catch (const std::exception& e) {
    out.kind = CompileOutcome::Kind::Exception;
    out.message = std::string("internal compiler error (") + e.what() + ")";
  }
  return out;
}

bool writeAll(int fd, const void* data, size_t n) {
  const char* p = static_cast<const char*>(data);
  while (n > 0) {
    ssize_t w = ::write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    p += w;
    n -= size_t(w);
  }
  return true;
}

// Wire format, child → parent: kind (1 byte), message size (u64), message,
// bundle bytes up to EOF.
[[noreturn]] void runChild(int fd, const std::string& modelPath, int timeoutSeconds) {
  if (timeoutSeconds > 0) alarm(unsigned(timeoutSeconds));
  CompileOutcome out = compileInProcess(modelPath);
  uint8_t kind = uint8_t(out.kind);
  uint64_t msgSize = out.message.size();
  bool ok = writeAll(fd, &kind, 1) && writeAll(fd, &msgSize, sizeof msgSize) &&
            writeAll(fd, out.message.data(), out.message.size()) &&
            writeAll(fd, out.bundle.data(), out.bundle.size());
  ::close(fd);
  _exit(ok ? 0 : 1);  // _exit: never run the parent's atexit handlers or flush its buffers twice
}

std::vector<uint8_t> readAll(int fd) {
  std::vector<uint8_t> bytes;
  uint8_t buf[1 << 16];
  for (;;) {
    ssize_t r = ::read(fd, buf, sizeof buf);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    bytes.insert(bytes.end(), buf, buf + r);
  }
  return bytes;
}

CompileOutcome decode(const std::vector<uint8_t>& bytes) {
  CompileOutcome out;
  uint64_t msgSize = 0;
  if (bytes.size() < 1 + sizeof msgSize) {
    out.kind = CompileOutcome::Kind::Crash;
    out.message = "compiler child exited without a result";
    return out;
  }
  out.kind = CompileOutcome::Kind(bytes[0]);
  std::memcpy(&msgSize, bytes.data() + 1, sizeof msgSize);
  size_t at = 1 + sizeof msgSize;
  if (msgSize > bytes.size() - at) {
    out.kind = CompileOutcome::Kind::Crash;
    out.message = "compiler child sent a truncated result";
    return out;
  }
  out.message.assign(reinterpret_cast<const char*>(bytes.data() + at), size_t(msgSize));
  out.bundle.assign(bytes.begin() + long(at + msgSize), bytes.end());
  return out;
}

}  // namespace

CompileOutcome compileModel(const std::string& modelPath, bool isolate, int timeoutSeconds) {
  if (!isolate) return compileInProcess(modelPath);
  int fds[2];
  if (::pipe(fds) != 0) return {CompileOutcome::Kind::Crash, {}, std::string("pipe: ") + std::strerror(errno)};
  std::fflush(stdout);
  std::fflush(stderr);
  pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    return {CompileOutcome::Kind::Crash, {}, std::string("fork: ") + std::strerror(errno)};
  }
  if (pid == 0) {
    ::close(fds[0]);
    runChild(fds[1], modelPath, timeoutSeconds);
  }
  ::close(fds[1]);
  std::vector<uint8_t> bytes = readAll(fds[0]);  // read before waiting: the pipe holds only 64 KiB
  ::close(fds[0]);
  int wstatus = 0;
  while (::waitpid(pid, &wstatus, 0) < 0 && errno == EINTR) {
  }
  if (WIFSIGNALED(wstatus)) {
    int sig = WTERMSIG(wstatus);
    if (sig == SIGALRM)
      return {CompileOutcome::Kind::Timeout, {}, "compile timed out after " + std::to_string(timeoutSeconds) + " s"};
    return {CompileOutcome::Kind::Crash, {}, std::string("compiler crashed: ") + strsignal(sig)};
  }
  if (WIFEXITED(wstatus) && WEXITSTATUS(wstatus) != 0) {
    CompileOutcome out = decode(bytes);
    if (out.kind == CompileOutcome::Kind::Ok) {
      // A sanitizer report exits with status 1 after the child's result may
      // already be on its way; trust the exit status over the partial result.
      out.kind = CompileOutcome::Kind::Crash;
      out.message = "compiler child exited with status " + std::to_string(WEXITSTATUS(wstatus));
      out.bundle.clear();
    }
    return out;
  }
  return decode(bytes);
}

}  // namespace mgc::conformance
