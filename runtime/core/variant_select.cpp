// Picking a kernel variant for the device. The compiler orders a kernel's
// variants by preference and ends with a portable one; the runtime takes
// the first the device can run, so a bundle built once runs its fastest
// form wherever it lands.
#include "runtime/core/variant_select.h"

#include "formats/features.h"
#include "formats/grid.h"
#include "runtime/core/status.h"
#include "runtime/core/verify.h"

namespace mgrt {
namespace {

typedef unsigned long long ull;

// Why the device cannot run variant `v`, or "" if it can.
std::string unfit(const mgb::KernelVariant& v, const DeviceLimits& lim) {
  const uint32_t missing = uint32_t(v.features()) & ~lim.features;
  if (missing) return "needs " + mgb::featureNames(missing);
  const auto* spirv = v.spirv();
  if (spirv->Get(1) > lim.maxSpirvVersion)
    return format("SPIR-V version %u.%u is newer than the device accepts (%u.%u)", (spirv->Get(1) >> 16) & 0xff,
                  (spirv->Get(1) >> 8) & 0xff, (lim.maxSpirvVersion >> 16) & 0xff, (lim.maxSpirvVersion >> 8) & 0xff);
  if (v.subgroup_size() != 0 && v.subgroup_size() != lim.subgroupSize)
    return format("was written for subgroups of %u, the device's are %u", v.subgroup_size(), lim.subgroupSize);
  uint64_t invocations = 1;
  for (uint32_t a = 0; a < 3; ++a) {
    const uint32_t l = v.local_size()->Get(a);
    if (l > lim.maxWorkGroupSize[a])
      return format("local_size[%u] = %u exceeds the device limit %u", a, l, lim.maxWorkGroupSize[a]);
    invocations *= l;
  }
  if (invocations > lim.maxWorkGroupInvocations)
    return format("%llu invocations per workgroup exceed the device limit %u", (ull)invocations,
                  lim.maxWorkGroupInvocations);
  // Verified: checkSpirv accepted this module (its version is at most 1.6).
  const uint64_t shared = workgroupBytes(spirv->data(), spirv->size());
  if (shared > lim.maxSharedMemory)
    return format("uses %llu bytes of workgroup memory, the device has %u", (ull)shared, lim.maxSharedMemory);
  const auto* coop = v.cooperative_matrix();
  if (coop && coop->size() == 3) {
    bool found = false;
    for (uint32_t i = 0; i < lim.coopShapeCount && i < DeviceLimits::kMaxCoopShapes; ++i)
      found |= lim.coopShapes[i][0] == coop->Get(0) && lim.coopShapes[i][1] == coop->Get(1) &&
               lim.coopShapes[i][2] == coop->Get(2);
    if (!found)
      return format("needs %ux%ux%u cooperative matrices, which the device does not list", coop->Get(0), coop->Get(1),
                    coop->Get(2));
  }
  return "";
}

}  // namespace

mgrt_status chooseVariant(const mgb::Kernel& k, const std::string& where, const DeviceLimits& lim,
                          uint32_t* chosen) {
  std::string reasons;
  for (uint32_t i = 0; i < k.variants()->size(); ++i) {
    const mgb::KernelVariant& v = *k.variants()->Get(i);
    const std::string why = unfit(v, lim);
    if (why.empty()) {
      *chosen = i;
      return MGRT_OK;
    }
    reasons += format("%s variant %u ('%s') %s", reasons.empty() ? "" : ";", i, v.tag() ? v.tag()->c_str() : "",
                      why.c_str());
  }
  return failMessage(MGRT_UNSUPPORTED, where + ": no variant runs on this device:" + reasons);
}

mgrt_status dispatchGroups(const mgb::Kernel& k, uint32_t variant, const mgb::Dispatch& d,
                           const std::string& where, uint32_t groups[3]) {
  if (d.items() == 0) {
    for (uint32_t a = 0; a < 3; ++a) groups[a] = d.groups()->Get(a);
    return MGRT_OK;
  }
  if (d.items() > 0xffffffffull)
    return failMessage(MGRT_INVALID_BUNDLE, where + format(": %llu items exceed the kernels' 32-bit index space",
                                                          (ull)d.items()));
  const auto* ls = k.variants()->Get(variant)->local_size();
  const uint32_t local[3] = {ls->Get(0), ls->Get(1), ls->Get(2)};
  if (!mgb::itemGrid(d.items(), local, groups))
    return failMessage(MGRT_INVALID_BUNDLE, where + format(": %llu items need more workgroups than a 2-D grid holds",
                                                          (ull)d.items()));
  return MGRT_OK;
}

}  // namespace mgrt
