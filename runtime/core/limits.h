// The device limits a bundle is verified against. Plain data, no Vulkan
// types, so verification can be tested without a GPU.
#pragma once

#include <cstdint>

namespace mgrt {

struct DeviceLimits {
  uint64_t minStorageBufferOffsetAlignment = 256;
  uint64_t maxStorageBufferRange = uint64_t(1) << 27;
  uint32_t maxWorkGroupCount[3] = {65535, 65535, 65535};
  uint32_t maxWorkGroupSize[3] = {128, 128, 64};
  uint32_t maxWorkGroupInvocations = 128;
  uint32_t maxStorageBuffersPerStage = 4;   // per-stage and per-set minimum of the two
  uint64_t maxAllocationSize = uint64_t(1) << 30;
  uint64_t deviceLocalHeapSize = uint64_t(1) << 30;  // largest device-local heap
  // Newest SPIR-V version word the device accepts: 1.0 on Vulkan 1.0, 1.3 on
  // 1.1, 1.5 on 1.2, 1.6 on 1.3.
  uint32_t maxSpirvVersion = 0x00010000;
  // What kernel variants may use (runtime/core/variant_select.cpp): the
  // optional features (mgb::Feature bits) the device has AND the runtime
  // enabled, its subgroup size (0 = unknown), workgroup memory, and the
  // cooperative matrix shapes (M, N, K) it supports with fp16 inputs and f32
  // accumulators in subgroup scope.
  uint32_t features = 0;
  uint32_t subgroupSize = 0;
  uint32_t maxSharedMemory = 16384;
  static constexpr uint32_t kMaxCoopShapes = 8;
  uint32_t coopShapes[kMaxCoopShapes][3] = {};
  uint32_t coopShapeCount = 0;
};

}  // namespace mgrt
