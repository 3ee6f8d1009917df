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

// Checksum of a file image, treating the checksum field as zero, fed in
// pieces (the writer checksums the weights where they lie, without an
// assembled image). FNV-1a steps over 64-bit little-endian words in four
// interleaved lanes (fast enough for 100 MB of weights), then the tail
// bytes. Each step is a bijection of the lane state, so any change to a
// single word changes the result. It detects corruption; it is not a
// signature.
class BundleChecksum {
 public:
  // The next `n` bytes of the file; p == nullptr: `n` zero bytes.
  void add(const uint8_t* p, size_t n) {
    total_ += n;
    while (n > 0 && pending_ > 0) {  // complete a word split across pieces
      tail_[pending_++] = p ? *p++ : 0;
      --n;
      if (pending_ == 8) {
        uint64_t w;
        std::memcpy(&w, tail_, 8);
        step(w);
        pending_ = 0;
      }
    }
    // Whole words, with the lanes in locals (p may alias any member).
    uint64_t lane[4] = {lane_[0], lane_[1], lane_[2], lane_[3]};
    uint64_t i = words_;
    for (; n >= 8; n -= 8, ++i) {
      uint64_t w = 0;
      if (p) {
        std::memcpy(&w, p, 8);
        p += 8;
      }
      if (i == kChecksumWord) w = 0;
      lane[i & 3] = (lane[i & 3] ^ w) * kPrime;
    }
    std::memcpy(lane_, lane, sizeof lane);
    words_ = i;
    for (; n > 0; --n) tail_[pending_++] = p ? *p++ : 0;
  }
  // 0 for a file shorter than its header.
  uint64_t finish() const {
    if (total_ < kHeaderSize) return 0;
    uint64_t h = fnv1a(tail_, pending_, lane_[0]);
    for (int k = 1; k < 4; ++k) h = (h ^ lane_[k]) * kPrime;
    return h ^ total_;
  }

 private:
  static constexpr uint64_t kPrime = 1099511628211ull;
  static constexpr uint64_t kChecksumWord = offsetof(Header, checksum) / 8;
  static_assert(offsetof(Header, checksum) % 8 == 0, "checksum must be word aligned");
  uint64_t lane_[4] = {1469598103934665603ull, 0x9e3779b97f4a7c15ull, 0xbf58476d1ce4e5b9ull, 0x94d049bb133111ebull};
  uint64_t words_ = 0, total_ = 0;
  uint8_t tail_[8] = {};
  size_t pending_ = 0;  // bytes in tail_

  void step(uint64_t w) {
    if (words_ == kChecksumWord) w = 0;
    lane_[words_ & 3] = (lane_[words_ & 3] ^ w) * kPrime;
    ++words_;
  }
};

// The checksum of a whole file image.
inline uint64_t bundleChecksum(const uint8_t* file, size_t n) {
  BundleChecksum c;
  c.add(file, n);
  return c.finish();
}

}  // namespace mgb
