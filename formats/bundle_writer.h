// Writes a .mgb file image: header + FlatBuffer manifest + weight section.
// Deterministic: the same spec gives the same bytes.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace mgb {

// One compiled form of a kernel (mgb.fbs KernelVariant).
struct KernelVariantEntry {
  std::string tag;
  std::vector<uint32_t> spirv;
  std::string msl;
  uint32_t localSize[3] = {1, 1, 1};
  uint32_t features = 0;  // mgb::Feature bits
  uint32_t subgroupSize = 0;
  std::vector<uint32_t> cooperativeMatrix;  // M, N, K or empty
};

struct KernelEntry {
  std::string name;
  uint32_t numBindings = 0;
  std::vector<KernelVariantEntry> variants;  // in order of preference
  bool stream = false;  // takes part in in-stream waits (mgb.fbs Kernel.stream)
};

struct ArenaEntry {
  uint8_t kind = 0;  // mgb::ArenaKind
  uint64_t size = 0;
  uint64_t initOffset = 0, initSize = 0;  // initial bytes in `weights` (State arenas)
};

struct TensorEntry {
  std::string name;
  uint8_t dtype = 0;        // mgb::DType (external)
  uint8_t deviceDtype = 0;  // mgb::DType: what the arena holds (formats/dtype.h canStoreOnDevice)
  std::vector<int64_t> shape;
  uint32_t arena = 0;
  uint64_t offset = 0, size = 0;
};

struct RangeEntry {
  uint32_t arena = 0;
  uint64_t offset = 0, size = 0;
};

struct DispatchEntry {
  uint32_t kernel = 0;
  std::vector<uint32_t> params;
  std::vector<RangeEntry> bindings;
  uint32_t groups[3] = {1, 1, 1};
  uint64_t items = 0;  // > 0: groups derive from the chosen variant's local size
  bool barrier = true;
  std::string node;
  // Profiling metadata (kernels/cost.h): output shape text, estimates.
  std::string shape;
  uint64_t flops = 0, bytes = 0;
};

struct EntryPointEntry {
  std::string name;
  std::vector<uint32_t> inputs, outputs;  // indices into BundleSpec::tensors
  std::vector<DispatchEntry> dispatches;
};

// A self-check (mgb.fbs Check): reference inputs and outputs of one entry
// point, each in the tensor's external dtype. Empty entryPoint: none.
struct CheckEntry {
  std::string entryPoint;
  std::vector<std::vector<uint8_t>> inputs, outputs;  // in the entry point's order
  double tolerance = 0;
};

// A piece of the data section that stays where it is (a compiler's
// constant) until the file is written, so that large weights are not copied
// into an image first; data == nullptr stands for `size` zero bytes.
struct DataSpan {
  const uint8_t* data = nullptr;
  uint64_t size = 0;
  std::shared_ptr<const void> keep;  // owns `data`, or null when the caller keeps it alive
};

struct BundleSpec {
  std::string producer;
  std::vector<KernelEntry> kernels;
  std::vector<ArenaEntry> arenas;
  std::vector<TensorEntry> tensors;
  std::vector<EntryPointEntry> entryPoints;
  // The file's data section: the initial contents of the Weights arena
  // (arena 0, its first arenas[0].size bytes), then the initial bytes of any
  // State arena (ArenaEntry::initOffset/initSize).
  // It is `weights` followed by the bytes of `spans`.
  std::vector<uint8_t> weights;
  std::vector<DataSpan> spans;
  std::vector<uint32_t> state;  // indices into tensors: the named state tensors
  std::string tokenizer;             // tokenizer.json text, or empty: none
  std::string tokenizerModel;        // SentencePiece tokenizer.model bytes, or empty: none
  std::vector<int64_t> eosTokenIds;  // ids that end a generation, or empty
  CheckEntry check;                  // --embed-check, or empty
};

// Bytes of the data section: weights.size() plus every span's size.
uint64_t dataSectionSize(const BundleSpec& spec);

// A bundle file laid out and checksummed: `bytes` (the header, the manifest,
// padding, and whatever of the data section has been copied in) followed by
// the spans of `rest`. `mgc compile` writes the pieces to the file as they
// are; assemble() copies them into `bytes`, for a bundle used in memory.
struct BundleImage {
  std::vector<uint8_t> bytes;
  std::vector<DataSpan> rest;

  uint64_t size() const;
  void assemble();
};

// The spans point where the spec's spans do, and into spec.weights (keep
// the spec alive, or assemble(), while they are used).
BundleImage layOutBundle(const BundleSpec& spec);

// layOutBundle, assembled: the file image in one vector.
std::vector<uint8_t> writeBundle(const BundleSpec& spec);

}  // namespace mgb
