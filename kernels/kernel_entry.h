// A library kernel (kernels/registry.h) as the bundle writer's KernelEntry:
// every variant, in the library's order of preference.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "formats/bundle_writer.h"
#include "kernels/registry.h"

namespace mgc {

// The generic kernel: its specialization constants (if any) keep their
// defaults, so it reads everything from the params.
mgb::KernelEntry kernelEntry(const KernelBinary& kb);

// The key of the copy of `kb` that a dispatch with `params` runs: the
// kernel's name, plus the params words it is specialized to when it
// declares specialization constants (kernels/specialize.h). Dispatches with
// equal keys share one bundle kernel.
std::string specializationKey(const KernelBinary& kb, const std::vector<uint32_t>& params);

// The copy of `kb` specialized to `params` (every variant's SPIR-V; the MSL
// stays generic); kernelEntry(kb) when it declares no such constants. The
// portable SPIR-V of eltwise and reduce_fused is built with the dispatch's
// program as code (kernels/program_codegen.h).
mgb::KernelEntry specializedKernelEntry(const KernelBinary& kb, const std::vector<uint32_t>& params);

}  // namespace mgc
