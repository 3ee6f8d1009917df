// IDX files (the MNIST / Fashion-MNIST format), gzipped or not, and the
// dataset plumbing training needs: shuffling by seed and batching.
// Compiler/CLI side only (uses zlib); libmgrt never reads datasets.
//
// IDX: big-endian u32 magic = 0x00 0x00 type ndim, then ndim big-endian u32
// dims, then the data (type 0x08 = u8, the only one MNIST uses; 0x09 i8,
// 0x0B i16, 0x0C i32, 0x0D f32, 0x0E f64 are also read).
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace idx {

struct Array {
  std::vector<int64_t> shape;
  std::vector<float> values;  // converted to float, row-major
  int64_t rows() const { return shape.empty() ? 0 : shape[0]; }
  int64_t rowSize() const;    // product of shape[1..]
};

// Reads an IDX file (gzip detected by its magic). Throws std::runtime_error
// naming the file and the problem (bad magic, truncated data, dims too big).
Array read(const std::string& path);

// The same from bytes already in memory (not gzipped); `path` only names the
// source in errors. read() is readMaybeGzip + parse; the fuzz target
// (tests/fuzz/fuzz_idx.cpp) feeds parse directly.
Array parse(const std::vector<uint8_t>& bytes, const std::string& path);

// A labelled dataset: images scaled to [0, 1] as [N, 1, H, W] rows, labels.
struct Dataset {
  Array images;  // shape [N, 1, H, W] (rank-3 IDX images get a channel axis)
  std::vector<int64_t> labels;
};

// `dir`/{train,t10k}-{images-idx3,labels-idx1}-ubyte[.gz]
Dataset loadMnistDir(const std::string& dir, bool train);

// The images and labels read from two IDX arrays (what loadMnistDir does
// after reading): checks the counts match and every label is a class index.
// `name` prefixes errors (std::runtime_error).
Dataset makeDataset(Array images, Array labels, const std::string& name);

// A permutation of 0..n-1 from a seed (std::mt19937_64 + Fisher-Yates, so
// the same on every platform), or the identity when !shuffle.
std::vector<int64_t> epochOrder(int64_t n, uint64_t seed, bool shuffle);

}  // namespace idx
