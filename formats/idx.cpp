#include "formats/idx.h"

#include <zlib.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <stdexcept>

namespace idx {

namespace {

std::vector<uint8_t> readMaybeGzip(const std::string& path) {
  gzFile f = gzopen(path.c_str(), "rb");  // reads plain files unchanged
  if (!f) throw std::runtime_error(path + ": cannot open file");
  std::vector<uint8_t> out;
  uint8_t buf[1 << 16];
  for (;;) {
    int n = gzread(f, buf, sizeof buf);
    if (n < 0) {
      int code = 0;
      std::string why = gzerror(f, &code);
      gzclose(f);
      throw std::runtime_error(path + ": cannot read: " + why);
    }
    if (n == 0) break;
    out.insert(out.end(), buf, buf + n);
    if (out.size() > (size_t(4) << 30)) {
      gzclose(f);
      throw std::runtime_error(path + ": larger than 4 GiB");
    }
  }
  gzclose(f);
  return out;
}

uint32_t be32(const uint8_t* p) { return uint32_t(p[0]) << 24 | uint32_t(p[1]) << 16 | uint32_t(p[2]) << 8 | p[3]; }

}  // namespace

int64_t Array::rowSize() const {
  int64_t n = 1;
  for (size_t i = 1; i < shape.size(); ++i) n *= shape[i];
  return n;
}

Array read(const std::string& path) { return parse(readMaybeGzip(path), path); }

Array parse(const std::vector<uint8_t>& bytes, const std::string& path) {
  if (bytes.size() < 4 || bytes[0] != 0 || bytes[1] != 0)
    throw std::runtime_error(path + ": not an IDX file (bad magic)");
  const uint8_t type = bytes[2], ndim = bytes[3];
  size_t esize = 0;
  switch (type) {
    case 0x08: case 0x09: esize = 1; break;
    case 0x0B: esize = 2; break;
    case 0x0C: case 0x0D: esize = 4; break;
    case 0x0E: esize = 8; break;
    default: throw std::runtime_error(path + ": unknown IDX element type " + std::to_string(type));
  }
  if (ndim == 0 || ndim > 8) throw std::runtime_error(path + ": IDX rank " + std::to_string(ndim) + " is not 1..8");
  if (bytes.size() < 4 + 4 * size_t(ndim)) throw std::runtime_error(path + ": truncated IDX header");
  Array a;
  // Every partial product of the dims (rowSize(), a row's offset) must stay
  // small, not only numel: a zero dim makes numel 0 while the others could
  // still multiply past int64 (found by fuzz_cli: [0, 3.5e9, 3.5e9]). So
  // the product of the non-zero dims is bounded, and numel with it.
  uint64_t numel = 1, bound = 1;
  for (int d = 0; d < ndim; ++d) {
    uint32_t dim = be32(bytes.data() + 4 + 4 * d);
    if (dim != 0 && bound > (uint64_t(1) << 32) / dim) throw std::runtime_error(path + ": IDX dims are too large");
    if (dim != 0) bound *= dim;
    numel *= dim;
    a.shape.push_back(int64_t(dim));
  }
  const size_t at = 4 + 4 * size_t(ndim);
  if (bytes.size() - at < numel * esize)
    throw std::runtime_error(path + ": truncated: " + std::to_string(bytes.size() - at) + " data bytes, shape needs " +
                             std::to_string(numel * esize));
  a.values.resize(size_t(numel));
  const uint8_t* p = bytes.data() + at;
  for (uint64_t i = 0; i < numel; ++i) {
    const uint8_t* e = p + i * esize;
    switch (type) {
      case 0x08: a.values[i] = float(e[0]); break;
      case 0x09: a.values[i] = float(int8_t(e[0])); break;
      case 0x0B: a.values[i] = float(int16_t(uint16_t(e[0] << 8 | e[1]))); break;
      case 0x0C: a.values[i] = float(int32_t(be32(e))); break;
      case 0x0D: {
        uint32_t bits = be32(e);
        float f;
        std::memcpy(&f, &bits, 4);
        a.values[i] = f;
        break;
      }
      default: {
        uint64_t bits = uint64_t(be32(e)) << 32 | be32(e + 4);
        double f;
        std::memcpy(&f, &bits, 8);
        a.values[i] = float(f);
        break;
      }
    }
  }
  return a;
}

Dataset loadMnistDir(const std::string& dir, bool train) {
  const std::string prefix = dir + "/" + (train ? "train" : "t10k");
  auto pick = [](const std::string& base) {
    std::string gz = base + ".gz";
    if (std::FILE* f = std::fopen(gz.c_str(), "rb")) {
      std::fclose(f);
      return gz;
    }
    return base;
  };
  return makeDataset(read(pick(prefix + "-images-idx3-ubyte")), read(pick(prefix + "-labels-idx1-ubyte")), prefix);
}

Dataset makeDataset(Array images, Array labels, const std::string& name) {
  Dataset d;
  d.images = std::move(images);
  if (d.images.shape.size() == 3) d.images.shape.insert(d.images.shape.begin() + 1, 1);
  if (labels.shape.size() != 1 || labels.rows() != d.images.rows())
    throw std::runtime_error(name + ": " + std::to_string(d.images.rows()) + " images but " +
                             std::to_string(labels.values.size()) + " labels");
  for (float& v : d.images.values) v /= 255.0f;
  d.labels.reserve(labels.values.size());
  for (float v : labels.values) {
    // A float or int32 IDX label file may hold NaN, a fraction or a huge
    // value: int64_t(NaN) is undefined behaviour, so refuse anything that
    // is not a small non-negative integer (labels are class indices).
    if (!(v >= 0 && v < 2147483648.0f) || v != std::floor(v))
      throw std::runtime_error(name + ": label " + std::to_string(v) + " is not a class index (0, 1, 2, ...)");
    d.labels.push_back(int64_t(v));
  }
  return d;
}

std::vector<int64_t> epochOrder(int64_t n, uint64_t seed, bool shuffle) {
  std::vector<int64_t> order(size_t(std::max<int64_t>(n, 0)));
  for (int64_t i = 0; i < n; ++i) order[size_t(i)] = i;
  if (!shuffle) return order;
  std::mt19937_64 rng(seed);
  for (int64_t i = n - 1; i > 0; --i) {
    int64_t j = int64_t(rng() % uint64_t(i + 1));
    std::swap(order[size_t(i)], order[size_t(j)]);
  }
  return order;
}

}  // namespace idx
