#include "kernels/kernel_entry.h"

#include <algorithm>
#include <map>
#include <mutex>

#include "kernels/specialize.h"

namespace mgc {

namespace {

// kern::paramSpecIds of the kernel's portable variant, walked once per kernel.
const std::vector<uint32_t>& specIds(const KernelBinary& kb) {
  static std::mutex mu;
  static std::map<const KernelBinary*, std::vector<uint32_t>> cache;
  std::lock_guard<std::mutex> lock(mu);
  auto it = cache.find(&kb);
  if (it == cache.end()) it = cache.emplace(&kb, kern::paramSpecIds(kb.portable().spirv, kb.portable().spirvWords)).first;
  return it->second;
}

}  // namespace

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
    if (kv.coopShape[0] != 0) ve.cooperativeMatrix.assign(kv.coopShape, kv.coopShape + 3);
    ke.variants.push_back(std::move(ve));
  }
  return ke;
}

std::string specializationKey(const KernelBinary& kb, const std::vector<uint32_t>& params) {
  std::string key = kb.name;
  for (uint32_t id : specIds(kb))
    key += "," + std::to_string(id < params.size() ? params[id] : 0u);
  return key;
}

mgb::KernelEntry specializedKernelEntry(const KernelBinary& kb, const std::vector<uint32_t>& params) {
  mgb::KernelEntry ke = kernelEntry(kb);
  if (specIds(kb).empty()) return ke;
  for (mgb::KernelVariantEntry& v : ke.variants) v.spirv = kern::specializeSpirv(v.spirv.data(), v.spirv.size(), params);
  return ke;
}

}  // namespace mgc
