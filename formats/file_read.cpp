#include "formats/file_read.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace fileio {
namespace {

// What a non-regular file is, as the message names it (null: no name).
const char* kindOf(mode_t mode) {
  if (S_ISDIR(mode)) return "a folder";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISFIFO(mode)) return "a pipe";
  if (S_ISSOCK(mode)) return "a socket";
  return nullptr;
}

std::string kindMessage(const std::string& path, mode_t mode) {
  const char* kind = kindOf(mode);
  return kind ? path + ": is " + kind + ", not a file" : path + ": not a regular file";
}

std::string openMessage(const std::string& path, int err) {
  if (err == ENOENT) return path + ": cannot open file";
  return path + ": cannot open file (" + std::strerror(err) + ")";
}

template <class Bytes>
bool readInto(const std::string& path, Bytes* out, std::string* error, uint64_t maxBytes) {
  out->clear();
  // stat before open: opening a pipe would block and opening a folder works.
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return *error = openMessage(path, errno), false;
  if (!S_ISREG(st.st_mode)) return *error = kindMessage(path, st.st_mode), false;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return *error = openMessage(path, errno), false;
  bool ok = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode);  // the file opened, not the one stat saw
  if (!ok) *error = path + ": not a regular file";
  const uint64_t size = ok ? uint64_t(st.st_size) : 0;
  if (ok && maxBytes && size > maxBytes) {
    *error = path + ": " + std::to_string(size) + " bytes, more than the " + std::to_string(maxBytes) + " allowed";
    ok = false;
  }
  if (ok) {
    out->resize(size_t(size));
    size_t at = 0;
    while (at < out->size()) {
      const ssize_t n = ::read(fd, reinterpret_cast<char*>(&(*out)[0]) + at, out->size() - at);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        *error = path + ": cannot read (" + std::strerror(errno) + ")";
        ok = false;
        break;
      }
      if (n == 0) {
        *error = path + ": changed while being read (shorter than its size)";
        ok = false;
        break;
      }
      at += size_t(n);
    }
  }
  ::close(fd);
  if (!ok) out->clear();
  return ok;
}

}  // namespace

std::string notAFile(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return openMessage(path, errno);
  if (!S_ISREG(st.st_mode)) return kindMessage(path, st.st_mode);
  if (::access(path.c_str(), R_OK) != 0) return openMessage(path, errno);
  return "";
}

bool readAll(const std::string& path, std::vector<uint8_t>* out, std::string* error, uint64_t maxBytes) {
  return readInto(path, out, error, maxBytes);
}

bool readAll(const std::string& path, std::string* out, std::string* error, uint64_t maxBytes) {
  return readInto(path, out, error, maxBytes);
}

}  // namespace fileio
