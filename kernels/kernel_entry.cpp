#include "kernels/kernel_entry.h"

#include <algorithm>

#include "kernels/program_codegen.h"
#include "kernels/specialize.h"

namespace mgc {

mgb::KernelEntry kernelEntry(const KernelBinary& kb) {
  mgb::KernelEntry ke;
  ke.name = kb.name;
  ke.numBindings = kb.numBindings;
  ke.stream = kb.stream;
  for (size_t v = 0; v < kb.variantCount; ++v) {
    const KernelVariantBinary& kv = kb.variants[v];
    mgb::KernelVariantEntry ve;
    ve.tag = kv.tag;
    ve.spirv.assign(kv.spirv, kv.spirv + kv.spirvWords);
    ve.msl = kv.msl;
    std::copy(kv.localSize, kv.localSize + 3, ve.localSize);
    ve.features = kv.features;
    ve.subgroupSize = kv.subgroupSize;
    if (kv.coopShape[0] != 0) ve.cooperativeMatrix.assign(kv.coopShape, kv.coopShape + 3);
    ke.variants.push_back(std::move(ve));
  }
  return ke;
}

std::string specializationKey(const KernelBinary& kb, const std::vector<uint32_t>& params) {
  std::string key = kb.name;
  for (size_t i = 0; i < kb.specIdCount; ++i) {
    const uint32_t id = kb.specIds[i];
    key += "," + std::to_string(id < params.size() ? params[id] : 0u);
  }
  return key;
}

mgb::KernelEntry specializedKernelEntry(const KernelBinary& kb, const std::vector<uint32_t>& params) {
  mgb::KernelEntry ke = kernelEntry(kb);
  if (kb.specIdCount == 0) return ke;
  for (mgb::KernelVariantEntry& v : ke.variants) {
    if (v.tag == "portable" && kern::hasGeneratedProgram(kb.name, params)) v.spirv = kern::generatedProgramSpirv(kb.name, params);
    v.spirv = kern::specializeSpirv(v.spirv.data(), v.spirv.size(), params);
  }
  return ke;
}

}  // namespace mgc
