// A structural walk over a SPIR-V module: enough to refuse garbage before a
// driver's compiler sees it. Full validation is the compiler's job (spirv-val).
#include <cstring>
#include <unordered_map>

#include "formats/features.h"
#include "formats/mgb_generated.h"

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
constexpr uint32_t kOpTypeInt = 21;
constexpr uint32_t kOpTypeFloat = 22;
constexpr uint32_t kOpTypeVector = 23;
constexpr uint32_t kOpTypeMatrix = 24;
constexpr uint32_t kOpTypeArray = 28;
constexpr uint32_t kOpTypeStruct = 30;
constexpr uint32_t kOpTypePointer = 32;
constexpr uint32_t kOpConstant = 43;
constexpr uint32_t kOpVariable = 59;
constexpr uint32_t kStorageClassWorkgroup = 4;

// A module may declare the capabilities every Vulkan compute device has
// (Matrix, Shader) and those its variant's declared features stand for (one
// of them, where the mask has several bits); the
// runtime picks a variant only if the device has (and the runtime enabled)
// those features. Anything else (Float64, Int64, Int16, ...) would be
// undefined behaviour in the driver.
uint32_t featureForCapability(uint32_t cap) {
  using F = mgb::Feature;
  switch (cap) {
    case 0: case 1: return 0;                                       // Matrix, Shader
    case 9: return uint32_t(F::Float16);                            // Float16
    case 39: return uint32_t(F::Int8);                              // Int8
    case 4433: case 4434: return uint32_t(F::Storage16);            // StorageBuffer16BitAccess, UniformAnd..
    case 4448: case 4449: return uint32_t(F::Storage8);             // StorageBuffer8BitAccess, UniformAnd..
    case 5116: case 5117: return uint32_t(F::BFloat16);             // BFloat16TypeKHR, BFloat16DotProductKHR
    case 61: case 62: case 63: case 64: case 65: return uint32_t(F::Subgroup);  // GroupNonUniform*
    case 5357: return uint32_t(F::CooperativeMatrixNV);
    case 6022: return uint32_t(F::CooperativeMatrixKHR);
    case 6033: return uint32_t(F::AtomicFloat32Add);                // AtomicFloat32AddEXT
    case 5345:  // VulkanMemoryModel: what the cooperative matrix kernels are written against
      return uint32_t(F::CooperativeMatrixNV) | uint32_t(F::CooperativeMatrixKHR);
    default: return ~0u;                                            // never allowed
  }
}

struct ExtensionRule {
  const char* name;
  uint32_t anyOf;  // allowed if the variant declares one of these features
};
constexpr uint32_t kStorage16 = uint32_t(mgb::Feature::Storage16), kStorage8 = uint32_t(mgb::Feature::Storage8);
const ExtensionRule kExtensions[] = {
    {"SPV_KHR_16bit_storage", kStorage16},
    {"SPV_KHR_8bit_storage", kStorage8},
    {"SPV_KHR_storage_buffer_storage_class", kStorage16 | kStorage8},
    {"SPV_KHR_bfloat16", uint32_t(mgb::Feature::BFloat16)},
    {"SPV_NV_cooperative_matrix", uint32_t(mgb::Feature::CooperativeMatrixNV)},
    {"SPV_KHR_cooperative_matrix", uint32_t(mgb::Feature::CooperativeMatrixKHR)},
    {"SPV_EXT_shader_atomic_float_add", uint32_t(mgb::Feature::AtomicFloat32Add)},
    {"SPV_KHR_vulkan_memory_model",
     uint32_t(mgb::Feature::CooperativeMatrixNV) | uint32_t(mgb::Feature::CooperativeMatrixKHR)},
};

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

// Bytes of Workgroup-storage variables (shared memory), summing scalar
// sizes: a lower bound of what the driver allocates, enough to refuse a
// variant that cannot fit the device. Runs over a structurally sound module.
uint64_t workgroupBytes(const uint32_t* words, size_t count) {
  std::unordered_map<uint32_t, uint64_t> size, constant;
  std::unordered_map<uint32_t, uint32_t> pointee;
  uint64_t total = 0;
  auto sizeOf = [&](uint32_t id) { auto it = size.find(id); return it == size.end() ? 0 : it->second; };
  for (size_t i = 5; i < count;) {
    const uint32_t n = words[i] >> 16, op = words[i] & 0xffffu;
    const uint32_t* o = words + i + 1;
    if ((op == kOpTypeInt || op == kOpTypeFloat) && n >= 3) size[o[0]] = o[1] / 8;
    if ((op == kOpTypeVector || op == kOpTypeMatrix) && n >= 4) size[o[0]] = sizeOf(o[1]) * o[2];
    if (op == kOpConstant && n >= 4) constant[o[1]] = o[2];
    if (op == kOpTypeArray && n >= 4) size[o[0]] = sizeOf(o[1]) * (constant.count(o[2]) ? constant[o[2]] : 0);
    if (op == kOpTypeStruct && n >= 2) {
      uint64_t s = 0;
      for (uint32_t m = 1; m < n - 1; ++m) s += sizeOf(o[m]);
      size[o[0]] = s;
    }
    if (op == kOpTypePointer && n >= 4) pointee[o[0]] = o[2];
    if (op == kOpVariable && n >= 4 && o[2] == kStorageClassWorkgroup && pointee.count(o[0]))
      total += sizeOf(pointee[o[0]]);
    i += n;
  }
  return total;
}

mgrt_status checkSpirv(const uint32_t* words, size_t count, const uint32_t localSize[3], uint32_t features,
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
    if (opcode == kOpCapability && wordCount >= 2) {
      const uint32_t need = featureForCapability(words[i + 1]);
      if (need == ~0u || (need != 0 && (need & features) == 0))
        return failMessage(MGRT_UNSUPPORTED,
                           what + format(": SPIR-V declares capability %u, which needs a device feature "
                                         "the variant does not declare (it declares %s)",
                                         words[i + 1], mgb::featureNames(features).c_str()));
    }
    if (opcode == kOpExtension) {
      bool allowed = false;
      for (const ExtensionRule& r : kExtensions)
        allowed |= (r.anyOf & features) != 0 && literalEquals(words + i + 1, wordCount - 1, r.name);
      if (!allowed)
        return failMessage(MGRT_UNSUPPORTED, what + ": SPIR-V uses an extension (OpExtension) that the variant's "
                                                    "declared features (" + mgb::featureNames(features) +
                                                    ") do not allow");
    }
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
