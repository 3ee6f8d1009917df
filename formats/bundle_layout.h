// The fixed 64-byte header at the start of every .mgb file. Header-only so
// that both the writer (compiler) and the reader (runtime) share it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace mgb {

constexpr char kMagic[4] = {'M', 'G', 'B', '\x1a'};
constexpr uint32_t kFormatVersion = 2;  // 2: kernel variants, Dispatch.items
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
// FNV-1a steps over 64-bit little-endian words in four interleaved lanes
// (fast enough for 100 MB of weights), then the tail bytes. Each step is a
// bijection of the lane state, so any change to a single word changes the
// result. It detects corruption; it is not a signature.
inline uint64_t bundleChecksum(const uint8_t* file, size_t n) {
  constexpr uint64_t kPrime = 1099511628211ull;
  constexpr size_t kChecksumWord = offsetof(Header, checksum) / 8;
  static_assert(offsetof(Header, checksum) % 8 == 0, "checksum must be word aligned");
  if (n < kHeaderSize) return 0;
  uint64_t lane[4] = {1469598103934665603ull, 0x9e3779b97f4a7c15ull, 0xbf58476d1ce4e5b9ull, 0x94d049bb133111ebull};
  size_t words = n / 8;
  for (size_t i = 0; i < words; ++i) {
    uint64_t w = 0;
    if (i != kChecksumWord) std::memcpy(&w, file + 8 * i, 8);
    lane[i & 3] = (lane[i & 3] ^ w) * kPrime;
  }
  uint64_t h = fnv1a(file + 8 * words, n - 8 * words, lane[0]);
  for (int k = 1; k < 4; ++k) h = (h ^ lane[k]) * kPrime;
  return h ^ uint64_t(n);
}

}  // namespace mgb
