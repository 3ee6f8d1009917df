// The resource interface of a kernel's SPIR-V against the pipeline layout
// the runtime builds for it (set 0, storage buffers at bindings 0..n, no
// images or samplers; a stream kernel adds the runtime's counters at set 1,
// binding 0 and a push-constant block, stream_sync.glsl). A module that reaches outside
// that layout makes pipeline creation's behaviour undefined, so it is
// refused here, before any driver sees it.
#include <unordered_map>

#include "runtime/core/status.h"
#include "runtime/core/verify.h"

namespace mgrt {
namespace {

constexpr uint32_t kOpVariable = 59;
constexpr uint32_t kOpDecorate = 71;
constexpr uint32_t kDecorationBinding = 33;
constexpr uint32_t kDecorationDescriptorSet = 34;
constexpr uint32_t kStorageClassPushConstant = 9;

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
mgrt_status checkSpirvInterface(const uint32_t* words, size_t count, uint32_t numBindings, bool stream,
                                const std::string& what) {
  std::unordered_map<uint32_t, uint32_t> setOf, bindingOf;  // decorated ids
  for (size_t i = 5; i < count;) {
    const uint32_t wordCount = words[i] >> 16, opcode = words[i] & 0xffffu;
    if (wordCount == 0 || wordCount > count - i) return MGRT_OK;  // checkSpirv refuses these
    if (opcode == kOpDecorate && wordCount >= 4) {
      const uint32_t target = words[i + 1], decoration = words[i + 2], value = words[i + 3];
      if (decoration == kDecorationDescriptorSet) {
        if (value != 0 && !(stream && value == 1))
          return unsupported(what, format("uses descriptor set %u; the runtime binds only set 0%s", value,
                                          stream ? " and the stream counters' set 1" : ""));
        setOf[target] = value;
      }
      if (decoration == kDecorationBinding) bindingOf[target] = value;
    }
    if (opcode == kOpVariable && wordCount >= 4 && !allowedStorageClass(words[i + 3]) &&
        !(stream && words[i + 3] == kStorageClassPushConstant))
      return unsupported(what, format("declares a variable in storage class %u (push constants outside "
                                      "in-stream waits, images and samplers are not part of the runtime's layout)",
                                      words[i + 3]));
    i += wordCount;
  }
  for (const auto& [id, binding] : bindingOf) {
    const auto set = setOf.find(id);
    if (set != setOf.end() && set->second == 1) {
      if (binding != 0) return unsupported(what, format("uses binding %u of set 1; the stream counters are binding 0", binding));
    } else if (binding > numBindings) {
      return unsupported(what, format("uses binding %u but the kernel declares %u tensor bindings "
                                      "(bindings 0..%u)", binding, numBindings, numBindings));
    }
  }
  return MGRT_OK;
}

}  // namespace mgrt
