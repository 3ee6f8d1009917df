// The kernel library: GLSL compute kernels compiled to SPIR-V (validated)
// and translated to MSL when mgc is built, embedded in the binary.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace mgc {

struct KernelBinary {
  const char* name;
  const uint32_t* spirv;
  size_t spirvWords;
  const char* msl;
  uint32_t localSize[3];
  uint32_t numBindings;  // tensor bindings 1..n (binding 0 is params)
};

// nullptr if no such kernel.
const KernelBinary* findKernel(std::string_view name);
size_t kernelCount();
const KernelBinary& kernelAt(size_t i);

}  // namespace mgc
