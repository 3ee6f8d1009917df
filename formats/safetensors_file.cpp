// safetensors files read piecewise (safetensors.h, "files too large to read
// whole"): a header, then one tensor at a time with pread, so that a
// multi-GB checkpoint never sits in memory as one more copy.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "formats/dtype.h"
#include "formats/safetensors.h"

namespace safetensors {

namespace {

bool failWith(std::string* error, const std::string& why) {
  *error = why;
  return false;
}

// Reads exactly `n` bytes at `offset`; false on an error or an early end.
bool preadAll(int fd, void* dst, uint64_t n, uint64_t offset) {
  auto* p = static_cast<uint8_t*>(dst);
  while (n > 0) {
    size_t chunk = size_t(n < (uint64_t(1) << 30) ? n : (uint64_t(1) << 30));
    ssize_t r = ::pread(fd, p, chunk, off_t(offset));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    p += r, n -= uint64_t(r), offset += uint64_t(r);
  }
  return true;
}

class Fd {
 public:
  explicit Fd(const std::string& path) : fd_(::open(path.c_str(), O_RDONLY | O_CLOEXEC)) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

}  // namespace

bool readHeaderFile(const std::string& path, Header* out, std::string* error) {
  *out = Header();
  Fd fd(path);
  if (fd.get() < 0) return failWith(error, std::string("cannot open: ") + std::strerror(errno));
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) return failWith(error, "not a regular file");
  const uint64_t fileSize = uint64_t(st.st_size);
  uint8_t first8[8] = {};
  if (fileSize >= 8 && !preadAll(fd.get(), first8, 8, 0)) return failWith(error, "cannot read the header length");
  uint64_t n = 0;
  if (!headerLength(first8, fileSize, &n, error)) return false;
  std::vector<uint8_t> head(size_t(8 + n));
  std::memcpy(head.data(), first8, 8);
  if (!preadAll(fd.get(), head.data() + 8, n, 8)) return failWith(error, "cannot read the header");
  return parseHeaderPrefix(head.data(), head.size(), fileSize, out, error);
}

bool readTensorData(const std::string& path, const Header& h, const TensorInfo& t, void* dst, std::string* error) {
  Fd fd(path);
  if (fd.get() < 0) return failWith(error, std::string("cannot open: ") + std::strerror(errno));
  if (!preadAll(fd.get(), dst, t.end - t.begin, h.dataOffset + t.begin))
    return failWith(error, "tensor '" + t.name + "': short read (file changed or truncated?)");
  return true;
}

bool floatsToF32(const std::string& dtype, const void* src, uint64_t count, float* dst) {
  if (dtype == "F32") {
    std::memcpy(dst, src, size_t(count) * 4);
    return true;
  }
  const bool half = dtype == "F16";
  if (!half && dtype != "BF16") return false;
  const auto* s = static_cast<const uint8_t*>(src);
  for (uint64_t i = 0; i < count; ++i) {
    uint16_t bits = uint16_t(s[2 * i] | (s[2 * i + 1] << 8));  // little-endian, any alignment
    dst[i] = half ? mgb::dtype::halfToFloat(bits) : mgb::dtype::bf16ToFloat(bits);
  }
  return true;
}

}  // namespace safetensors
