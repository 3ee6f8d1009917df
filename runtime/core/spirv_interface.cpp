// The resource interface of a kernel's SPIR-V against the pipeline layout
// the runtime builds for it (set 0, storage buffers at bindings 0..n, no
// push constants, no images or samplers). A module that reaches outside
// that layout makes pipeline creation's behaviour undefined, so it is
// refused here, before any driver sees it.
#include "runtime/core/status.h"
#include "runtime/core/verify.h"

namespace mgrt {
namespace {

constexpr uint32_t kOpVariable = 59;
constexpr uint32_t kOpDecorate = 71;
constexpr uint32_t kDecorationBinding = 33;
constexpr uint32_t kDecorationDescriptorSet = 34;

// Storage classes a compute kernel may use with that layout: Input
// (builtins), Uniform and StorageBuffer (the storage buffers), Workgroup
// (shared memory), Private and Function.
bool allowedStorageClass(uint32_t c) {
  switch (c) {
    case 1: case 2: case 4: case 6: case 7: case 12: return true;
    default: return false;
  }
}

mgrt_status unsupported(const std::string& what, const std::string& msg) {
  return failMessage(MGRT_UNSUPPORTED, what + ": SPIR-V " + msg);
}

}  // namespace

// Runs after checkSpirv: instruction lengths are known to be sound.
mgrt_status checkSpirvInterface(const uint32_t* words, size_t count, uint32_t numBindings,
                                const std::string& what) {
  for (size_t i = 5; i < count;) {
    const uint32_t wordCount = words[i] >> 16, opcode = words[i] & 0xffffu;
    if (wordCount == 0 || wordCount > count - i) return MGRT_OK;  // checkSpirv refuses these
    if (opcode == kOpDecorate && wordCount >= 4) {
      const uint32_t decoration = words[i + 2], value = words[i + 3];
      if (decoration == kDecorationDescriptorSet && value != 0)
        return unsupported(what, format("uses descriptor set %u; the runtime binds only set 0", value));
      if (decoration == kDecorationBinding && value > numBindings)
        return unsupported(what, format("uses binding %u but the kernel declares %u tensor bindings "
                                        "(bindings 0..%u)", value, numBindings, numBindings));
    }
    if (opcode == kOpVariable && wordCount >= 4 && !allowedStorageClass(words[i + 3]))
      return unsupported(what, format("declares a variable in storage class %u (push constants, "
                                      "images and samplers are not part of the runtime's layout)",
                                      words[i + 3]));
    i += wordCount;
  }
  return MGRT_OK;
}

}  // namespace mgrt
