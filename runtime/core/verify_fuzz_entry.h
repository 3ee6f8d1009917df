// A GPU-free dry run of mgrt_model_load + mgrt_session_create: every check
// and every host-side walk over the manifest that happens before the first
// Vulkan object is created. Used by the bundle fuzzer and its regression
// test, which have no VkDevice; the real load path runs the same code
// (verifyBundle) plus the same manifest walks.
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

// verifyBundle against `limits`; on success also lays out the params buffer
// and every entry point's session (staging offsets, external byte counts,
// dispatch bindings) exactly as model.cpp and session.cpp do, touching every
// byte those steps would touch. Never throws (std::bad_alloc becomes
// MGRT_OUT_OF_MEMORY), never aborts.
mgrt_status dryRunLoad(const uint8_t* data, size_t size, const DeviceLimits& limits);

}  // namespace mgrt
