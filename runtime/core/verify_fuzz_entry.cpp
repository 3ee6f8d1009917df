// dryRunLoad: the host-side half of loading a bundle, without a device.
#include "runtime/core/verify_fuzz_entry.h"

#include <algorithm>
#include <cstring>
#include <new>
#include <vector>

#include "runtime/core/dtype.h"
#include "runtime/core/status.h"
#include "runtime/core/verify.h"

namespace mgrt {
namespace {

DeviceLimits minimumLimits() {
  DeviceLimits l;  // the defaults are Vulkan 1.0's required minimums
  l.maxAllocationSize = uint64_t(256) << 20;
  l.deviceLocalHeapSize = uint64_t(256) << 20;
  return l;
}

DeviceLimits desktopLimits() {
  DeviceLimits l;
  l.minStorageBufferOffsetAlignment = 16;
  l.maxStorageBufferRange = uint64_t(1) << 32;
  for (int a = 0; a < 3; ++a) l.maxWorkGroupCount[a] = 1u << 31;
  l.maxWorkGroupSize[0] = l.maxWorkGroupSize[1] = l.maxWorkGroupSize[2] = 1024;
  l.maxWorkGroupInvocations = 1024;
  l.maxStorageBuffersPerStage = 64;
  l.maxAllocationSize = uint64_t(4) << 30;
  l.deviceLocalHeapSize = uint64_t(24) << 30;
  l.maxSpirvVersion = 0x00010600;
  return l;
}

// model.cpp's uploadWeightsAndParams, host half: pack every dispatch's
// params at aligned offsets. The buffer size was checked by the memory
// budget, but the dry run caps it so a fuzzer cannot ask for gigabytes.
mgrt_status packParams(const mgb::Bundle& b, uint64_t align) {
  const uint64_t total = paramsBufferSize(b, align);
  if (total > (uint64_t(64) << 20)) return MGRT_OK;  // legal but too big to simulate
  std::vector<uint8_t> params(size_t(total), 0);
  uint64_t at = 0;
  for (const mgb::EntryPoint* e : *b.entry_points()) {
    if (!e->dispatches()) continue;
    for (const mgb::Dispatch* d : *e->dispatches()) {
      if (d->params() && d->params()->size())
        std::memcpy(params.data() + at, d->params()->data(), d->params()->size() * 4);
      at += paramsSlotSize(*d, align);
    }
  }
  if (at != total) return fail(MGRT_DEVICE_ERROR, "dry run: params layout disagrees (%llu vs %llu)",
                               (unsigned long long)at, (unsigned long long)total);
  return MGRT_OK;
}

// session.cpp's describeIo + makePlan, host half: every index and range the
// recorded command buffer would use, re-checked against the manifest.
mgrt_status planSession(const mgb::Bundle& b, const mgb::EntryPoint& e) {
  uint64_t staging = 0;
  for (const auto* list : {e.inputs(), e.outputs()}) {
    if (!list) continue;
    for (uint32_t ti : *list) {
      const mgb::Tensor* t = b.tensors()->Get(ti);
      uint64_t numel = 0;
      if (!shapeNumel(t->shape(), &numel))
        return fail(MGRT_DEVICE_ERROR, "dry run: verified tensor %u has a bad shape", ti);
      const uint64_t arena = b.arenas()->Get(t->arena())->size();
      if (externalElementSize(t->dtype()) == 0 || t->size() != numel * deviceElementSize(t->device_dtype()) || t->offset() > arena ||
          t->size() > arena - t->offset())
        return fail(MGRT_DEVICE_ERROR, "dry run: tensor %u escapes its arena", ti);
      staging += (t->size() + 15) / 16 * 16;
    }
  }
  (void)staging;
  if (!e.dispatches()) return MGRT_OK;
  for (const mgb::Dispatch* d : *e.dispatches()) {
    if (d->kernel() >= b.kernels()->size())
      return fail(MGRT_DEVICE_ERROR, "dry run: dispatch names a missing kernel");
    if (!d->bindings()) continue;  // as session.cpp: absent = no tensor bindings
    for (const mgb::BufferRange* r : *d->bindings()) {
      const uint64_t arena = b.arenas()->Get(r->arena())->size();
      if (r->offset() > arena || r->size() > arena - r->offset())
        return fail(MGRT_DEVICE_ERROR, "dry run: a binding escapes its arena");
    }
    for (int a = 0; a < 3; ++a) (void)d->groups()->Get(uint32_t(a));
  }
  return MGRT_OK;
}

}  // namespace

const DeviceLimits& fuzzDeviceLimits(int which) {
  static const DeviceLimits kMinimum = minimumLimits(), kDesktop = desktopLimits();
  return which == 0 ? kMinimum : kDesktop;
}

mgrt_status dryRunLoad(const uint8_t* data, size_t size, const DeviceLimits& limits) {
  try {
    VerifiedBundle vb;
    MGRT_TRY(verifyBundle(data, size, limits, &vb));
    const mgb::Bundle& b = *vb.manifest;
    MGRT_TRY(packParams(b, std::max<uint64_t>(limits.minStorageBufferOffsetAlignment, 16)));
    for (const mgb::EntryPoint* e : *b.entry_points()) MGRT_TRY(planSession(b, *e));
    return MGRT_OK;
  } catch (const std::bad_alloc&) {
    return fail(MGRT_OUT_OF_MEMORY, "out of host memory");
  }
}

}  // namespace mgrt
