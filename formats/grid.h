// The workgroup grid of an "item" dispatch (Dispatch.items > 0): one
// invocation per item, indexed by kernels/src/common.glsl's
// linearInvocation() as (wg.y * gx + wg.x) * invocationsPerGroup + local.
// Header-only: the compiler (lowering) and the runtime (the chosen
// variant's grid) must agree on it exactly.
#pragma once

#include <cstdint>

namespace mgb {

constexpr uint32_t kMaxGridDim = 65535;  // Vulkan's guaranteed minimum per axis

// A 2-D grid of `count` workgroups: gx = min(count, 65535) (at least 1),
// gy = ceil(count / gx). False if gy does not fit either.
inline bool groupGrid(uint64_t count, uint32_t groups[3]) {
  uint64_t gx = count < kMaxGridDim ? count : kMaxGridDim;
  if (gx == 0) gx = 1;
  const uint64_t gy = (count + gx - 1) / gx;
  if (gy > kMaxGridDim) return false;
  groups[0] = uint32_t(gx);
  groups[1] = uint32_t(gy == 0 ? 1 : gy);
  groups[2] = 1;
  return true;
}

// The grid covering `items` items with workgroups of localSize invocations.
inline bool itemGrid(uint64_t items, const uint32_t localSize[3], uint32_t groups[3]) {
  const uint64_t perGroup = uint64_t(localSize[0]) * localSize[1] * localSize[2];
  if (perGroup == 0) return false;
  return groupGrid((items + perGroup - 1) / perGroup, groups);
}

}  // namespace mgb
