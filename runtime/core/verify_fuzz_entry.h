// A GPU-free dry run of mgrt_model_load + mgrt_session_create: every check
// and every host-side walk over the manifest that happens before the first
// device object is created. Used by the bundle fuzzer and its regression
// test, which have no device; the real load path runs the same code
// (verifyBundle, then the plans of plan.h).
#pragma once

#include <cstddef>
#include <cstdint>

#include "runtime/core/api.h"
#include "runtime/core/limits.h"

namespace mgrt {

// Fixed fake device limits for the dry run: index 0 = Vulkan's required
// minimums (the strictest device a bundle may meet), 1 = a roomy desktop
// GPU. Both are plain data, so results are reproducible on any machine.
const DeviceLimits& fuzzDeviceLimits(int which);

// verifyBundle against `limits`; on success also runs the load path's
// planning (plan.h: params layout and packing, state directory, every entry
// point's session plan) and checks that every range a plan produced lies
// inside its arena, params or staging buffer. Never throws (std::bad_alloc
// becomes MGRT_OUT_OF_MEMORY), never aborts.
mgrt_status dryRunLoad(const uint8_t* data, size_t size, const DeviceLimits& limits);

}  // namespace mgrt
