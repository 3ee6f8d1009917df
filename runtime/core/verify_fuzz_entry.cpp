// dryRunLoad: the host-side half of loading a bundle, without a device. It
// runs the real planning code (plan.cpp) and then checks its results, so a
// range that verification let through and planning turned into an
// out-of-bounds binding or copy is a fuzzer finding, not a GPU fault.
#include "runtime/core/verify_fuzz_entry.h"

#include <new>
#include <vector>

#include "runtime/core/dtype.h"
#include "runtime/core/plan.h"
#include "runtime/core/status.h"
#include "runtime/core/stream_plan.h"
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

// [offset, offset + size) inside [0, limit) without overflow.
bool inside(uint64_t offset, uint64_t size, uint64_t limit) { return offset <= limit && size <= limit - offset; }

mgrt_status escapes(const char* what) { return fail(MGRT_DEVICE_ERROR, "dry run: %s escapes its buffer", what); }

// A host-visible tensor: its device range inside its arena, sized for its
// elements, and (session inputs/outputs) its words inside the staging buffer.
mgrt_status checkTensor(const mgb::Bundle& b, const TensorPlan& t, const uint64_t* stagingSize, const char* what) {
  if (externalElementSize(t.dtype) == 0 || t.size != t.numel * deviceElementSize(t.deviceDtype))
    return fail(MGRT_DEVICE_ERROR, "dry run: %s '%s' has a bad dtype or size", what, t.name.c_str());
  if (t.arena >= b.arenas()->size() || !inside(t.offset, t.size, b.arenas()->Get(t.arena)->size()))
    return escapes(what);
  if (stagingSize && !inside(t.stagingOffset, t.size, *stagingSize)) return escapes(what);
  return MGRT_OK;
}

mgrt_status checkParams(const mgb::Bundle& b, const ParamsPlan& p) {
  if (p.size != paramsBufferSize(b, p.align) || p.offset.size() != b.entry_points()->size())
    return fail(MGRT_DEVICE_ERROR, "dry run: params layout disagrees with paramsBufferSize");
  // Packing is the load path's only write into a host buffer the plan sized;
  // legal but huge params buffers are not simulated (the fuzzer must not ask
  // for gigabytes).
  if (p.size > (uint64_t(64) << 20)) return MGRT_OK;
  std::vector<uint8_t> bytes(size_t(p.size), 0);
  packParams(b, p, bytes.data());
  return MGRT_OK;
}

mgrt_status checkSession(const mgb::Bundle& b, const ParamsPlan& params, const SessionPlan& s) {
  for (const TensorPlan& t : s.inputs) MGRT_TRY(checkTensor(b, t, &s.inputStagingSize, "an input"));
  for (const TensorPlan& t : s.outputs) MGRT_TRY(checkTensor(b, t, &s.outputStagingSize, "an output"));
  for (uint32_t a : s.arenas)
    if (a == 0 || a >= b.arenas()->size()) return fail(MGRT_DEVICE_ERROR, "dry run: session arena %u", a);
  for (const DispatchPlan& d : s.dispatches) {
    if (d.kernel >= b.kernels()->size()) return fail(MGRT_DEVICE_ERROR, "dry run: dispatch names a missing kernel");
    if (!inside(d.params.offset, d.params.size, params.size)) return escapes("a dispatch's params");
    for (const ArenaRange& r : d.bindings)
      if (r.arena >= b.arenas()->size() || !inside(r.offset, r.size, b.arenas()->Get(r.arena)->size()))
        return escapes("a binding");
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
    const ParamsPlan params = planParams(b, limits);
    MGRT_TRY(checkParams(b, params));
    for (const TensorPlan& t : planState(b).tensors) MGRT_TRY(checkTensor(b, t, nullptr, "a state tensor"));
    for (uint32_t e = 0; e < b.entry_points()->size(); ++e) {
      SessionPlan session = planSession(vb, e, params);
      planStreamWaits(b, true, &session);  // as on a device with StreamSync
      MGRT_TRY(checkSession(b, params, session));
    }
    return MGRT_OK;
  } catch (const std::bad_alloc&) {
    return fail(MGRT_OUT_OF_MEMORY, "out of host memory");
  }
}

}  // namespace mgrt
