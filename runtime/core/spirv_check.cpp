// A structural walk over a SPIR-V module: enough to refuse garbage before a
// driver's compiler sees it. Full validation is the compiler's job (spirv-val).
#include <cstring>

#include "runtime/core/status.h"
#include "runtime/core/verify.h"

namespace mgrt {
namespace {

constexpr uint32_t kSpirvMagic = 0x07230203;
constexpr uint32_t kOpEntryPoint = 15;
constexpr uint32_t kOpExecutionMode = 16;
constexpr uint32_t kExecutionModelGLCompute = 5;
constexpr uint32_t kExecutionModeLocalSize = 17;
constexpr uint32_t kOpExtension = 10;
constexpr uint32_t kOpExtInstImport = 11;
constexpr uint32_t kOpCapability = 17;
// The logical device enables no optional features (only robustBufferAccess)
// and no extensions, so a module may declare only the capabilities every
// Vulkan compute device has: Matrix (implied by Shader) and Shader. Anything
// else (Float64, Int64, Int16, ...) would be undefined behaviour in the driver.
constexpr uint32_t kCapabilityMatrix = 0;
constexpr uint32_t kCapabilityShader = 1;

mgrt_status bad(const std::string& what, const std::string& msg) {
  return failMessage(MGRT_INVALID_BUNDLE, what + ": SPIR-V " + msg);
}

// True if the literal string in words[0, count) equals `s` (NUL-terminated
// inside the operand, as SPIR-V requires).
bool literalEquals(const uint32_t* words, size_t count, const char* s) {
  const size_t bytes = count * 4;
  const size_t len = std::strlen(s);
  if (bytes < len + 1) return false;
  const char* text = reinterpret_cast<const char*>(words);
  return std::memcmp(text, s, len) == 0 && text[len] == '\0';
}

}  // namespace

mgrt_status checkSpirv(const uint32_t* words, size_t count, const uint32_t localSize[3],
                       const std::string& what) {
  if (count < 5) return bad(what, "module is shorter than its header");
  if (words[0] != kSpirvMagic) return bad(what, format("magic is 0x%08x, expected 0x%08x", words[0], kSpirvMagic));
  const uint32_t version = words[1];
  if ((version & 0xff0000ffu) != 0 || version < 0x00010000u || version > 0x00010600u)
    return bad(what, format("version word 0x%08x is not SPIR-V 1.0-1.6", version));
  if (words[3] == 0) return bad(what, "id bound is 0");
  if (words[4] != 0) return bad(what, "reserved schema word is not 0");

  bool haveMain = false;
  for (size_t i = 5; i < count;) {
    const uint32_t wordCount = words[i] >> 16, opcode = words[i] & 0xffffu;
    if (wordCount == 0) return bad(what, format("instruction at word %zu has word count 0", i));
    if (wordCount > count - i)
      return bad(what, format("instruction at word %zu runs past the end of the module", i));
    if (opcode == kOpCapability && wordCount >= 2 && words[i + 1] != kCapabilityMatrix &&
        words[i + 1] != kCapabilityShader)
      return failMessage(MGRT_UNSUPPORTED,
                         what + format(": SPIR-V declares capability %u, which needs a device feature "
                                       "the runtime does not enable",
                                       words[i + 1]));
    if (opcode == kOpExtension)
      return failMessage(MGRT_UNSUPPORTED, what + ": SPIR-V uses an extension (OpExtension); none is enabled");
    if (opcode == kOpExtInstImport && !(wordCount >= 3 && literalEquals(words + i + 2, wordCount - 2, "GLSL.std.450")))
      return failMessage(MGRT_UNSUPPORTED, what + ": SPIR-V imports an instruction set other than GLSL.std.450");
    if (opcode == kOpEntryPoint && wordCount >= 4 && words[i + 1] == kExecutionModelGLCompute &&
        literalEquals(words + i + 3, wordCount - 3, "main"))
      haveMain = true;
    if (opcode == kOpExecutionMode && wordCount >= 6 && words[i + 2] == kExecutionModeLocalSize) {
      for (int a = 0; a < 3; ++a)
        if (words[i + 3 + a] != localSize[a])
          return bad(what, format("LocalSize (%u, %u, %u) differs from the manifest's local_size (%u, %u, %u)",
                                  words[i + 3], words[i + 4], words[i + 5], localSize[0],
                                  localSize[1], localSize[2]));
    }
    i += wordCount;
  }
  if (!haveMain) return bad(what, "has no GLCompute entry point named \"main\"");
  return MGRT_OK;
}

}  // namespace mgrt
