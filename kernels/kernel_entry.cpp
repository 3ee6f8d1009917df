#include "kernels/kernel_entry.h"

#include <algorithm>

namespace mgc {

mgb::KernelEntry kernelEntry(const KernelBinary& kb) {
  mgb::KernelEntry ke;
  ke.name = kb.name;
  ke.numBindings = kb.numBindings;
  for (size_t v = 0; v < kb.variantCount; ++v) {
    const KernelVariantBinary& kv = kb.variants[v];
    mgb::KernelVariantEntry ve;
    ve.tag = kv.tag;
    ve.spirv.assign(kv.spirv, kv.spirv + kv.spirvWords);
    ve.msl = kv.msl;
    std::copy(kv.localSize, kv.localSize + 3, ve.localSize);
    ve.features = kv.features;
    ve.subgroupSize = kv.subgroupSize;
    ke.variants.push_back(std::move(ve));
  }
  return ke;
}

}  // namespace mgc
