// Bundles and a shared context for the runtime tests.
#pragma once

#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "formats/bundle_writer.h"
#include "runtime/include/mgrt.h"

namespace rt_test {

inline uint32_t floatBits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

// The compiled tests/runtime/kernels/add.comp (3 tensor bindings, 64x1x1).
mgb::KernelEntry addKernel();

// y1 = a + b + 0.5; y2 = y1 + b + 1 (two dispatches with a barrier), where
// b = 0.25 * i lives in the weights arena and a, y1, y2 in activations.
// Inputs: "a"; outputs: "y2", "y1". With chain = false only y1 exists.
mgb::BundleSpec addSpec(uint32_t n, bool chain = true);

// An entry point "identity" with no dispatches whose input tensor "x" is
// also its output: a round trip through the device dtype (deviceDtype < 0:
// the compiler's choice, F32 or I32; else that mgb::DType, sized to it).
mgb::BundleSpec identitySpec(uint8_t dtype, std::vector<int64_t> shape, int deviceDtype = -1);

// One context per test binary, validation on; destroyed at exit.
mgrt_context* context();

// Loads spec (or raw bytes), asserting success.
mgrt_model* load(const std::vector<uint8_t>& bytes);

// Writes `spec` after `edit` and checks that mgrt_model_load refuses it
// with `status`, no model, and a message containing `needle`.
void expectRejected(mgb::BundleSpec spec, const std::function<void(mgb::BundleSpec&)>& edit, mgrt_status status,
                    const std::string& needle);

// Recomputes the header checksum after a deliberate edit.
void fixChecksum(std::vector<uint8_t>* file);

}  // namespace rt_test
