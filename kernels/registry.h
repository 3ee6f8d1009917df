// The kernel library: GLSL compute kernels compiled to SPIR-V (validated)
// and translated to MSL when mgc is built, embedded in the binary. A kernel
// family has one or more variants (kernels/CMakeLists.txt: `mgc-variant`
// lines) sharing its parameter block and bindings; the last one is the
// portable build that needs no optional device feature.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace mgc {

struct KernelVariantBinary {
  const char* tag;  // "portable" for the plain build
  const uint32_t* spirv;
  size_t spirvWords;
  const char* msl;        // "" when no Metal translation exists
  uint32_t localSize[3];  // reflected from the module
  uint32_t features;      // mgb::Feature bits it needs
  uint32_t subgroupSize;  // 0 = any
  uint32_t coopShape[3];  // M, N, K of the cooperative matrices it needs; 0s = none
};

struct KernelBinary {
  const char* name;
  uint32_t numBindings;  // tensor bindings 1..n (binding 0 is params)
  const KernelVariantBinary* variants;  // in order of preference
  size_t variantCount;                  // >= 1
  // The params words its specialization constants stand for
  // (kernels/specialize.h), ascending, from the portable module's
  // reflection at build time; none: the kernel is never specialized.
  const uint32_t* specIds;
  size_t specIdCount;
  // Takes part in in-stream waits (stream_sync.glsl; mgb.fbs Kernel.stream).
  bool stream;
  const KernelVariantBinary& portable() const { return variants[variantCount - 1]; }
};

// nullptr if no such kernel.
const KernelBinary* findKernel(std::string_view name);
size_t kernelCount();
const KernelBinary& kernelAt(size_t i);

}  // namespace mgc
