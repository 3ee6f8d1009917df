// The fixed 64-byte header at the start of every .mgb file. Header-only so
// that both the writer (compiler) and the reader (runtime) share it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace mgb {

constexpr char kMagic[4] = {'M', 'G', 'B', '\x1a'};
constexpr uint32_t kFormatVersion = 1;
constexpr uint64_t kWeightsAlign = 64;   // weight section alignment in the file
constexpr uint64_t kTensorAlign = 256;   // tensor offsets inside arenas
constexpr size_t kHeaderSize = 64;

struct Header {
  char magic[4];
  uint32_t version;
  uint64_t file_size;
  uint64_t manifest_offset, manifest_size;  // FlatBuffer (mgb.fbs)
  uint64_t weights_offset, weights_size;    // initial contents of the Weights arena
  uint64_t checksum;                        // FNV-1a 64 of the file with this field zeroed
  uint64_t reserved;
};
static_assert(sizeof(Header) == kHeaderSize, "header layout");

inline uint64_t fnv1a(const uint8_t* p, size_t n, uint64_t h = 1469598103934665603ull) {
  for (size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 1099511628211ull;
  return h;
}

// Checksum of a whole file image, treating the checksum field as zero.
inline uint64_t bundleChecksum(const uint8_t* file, size_t n) {
  constexpr size_t at = offsetof(Header, checksum);
  if (n < kHeaderSize) return 0;
  static const uint8_t zeros[8] = {};
  uint64_t h = fnv1a(file, at);
  h = fnv1a(zeros, 8, h);
  return fnv1a(file + at + 8, n - at - 8, h);
}

}  // namespace mgb
