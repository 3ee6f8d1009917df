// File-level checks: header, checksum, section ranges, FlatBuffers verifier,
// then the semantic checks and the device-memory budget.
#include <cstring>

#include "formats/bundle_layout.h"
#include "runtime/core/status.h"
#include "runtime/core/verify.h"

namespace mgrt {
namespace {

typedef unsigned long long ull;

// [offset, offset + size) inside [0, limit) without overflow.
bool inside(uint64_t offset, uint64_t size, uint64_t limit) {
  return offset <= limit && size <= limit - offset;
}

mgrt_status checkMemoryBudget(const mgb::Bundle& b, const DeviceLimits& limits) {
  // Weights + params live per model; every other arena once per session.
  uint64_t total = paramsBufferSize(b, limits.minStorageBufferOffsetAlignment);
  for (size_t i = 0; i < b.arenas()->size(); ++i) {
    const uint64_t size = b.arenas()->Get(uint32_t(i))->size();
    if (size > limits.maxAllocationSize)
      return fail(MGRT_OUT_OF_MEMORY,
                  "arena %zu is %llu bytes but the device allows at most %llu bytes per allocation",
                  i, (ull)size, (ull)limits.maxAllocationSize);
    total += size;  // each term <= maxAllocationSize, no overflow in practice
  }
  if (total > limits.deviceLocalHeapSize)
    return fail(MGRT_OUT_OF_MEMORY,
                "bundle needs %llu MiB of device memory but the device's largest heap has %llu MiB",
                (ull)(total >> 20), (ull)(limits.deviceLocalHeapSize >> 20));
  return MGRT_OK;
}

}  // namespace

mgrt_status verifyBundle(const uint8_t* data, size_t size, const DeviceLimits& limits,
                         VerifiedBundle* out) {
  if (size < mgb::kHeaderSize)
    return fail(MGRT_INVALID_BUNDLE, "bundle is %zu bytes, smaller than the %zu-byte header", size,
                mgb::kHeaderSize);
  mgb::Header h;
  std::memcpy(&h, data, sizeof h);
  if (std::memcmp(h.magic, mgb::kMagic, sizeof h.magic) != 0)
    return fail(MGRT_INVALID_BUNDLE, "bad magic: not an .mgb bundle");
  if (h.version != mgb::kFormatVersion)
    return fail(MGRT_INVALID_BUNDLE, "bundle format version %u; this runtime reads version %u",
                h.version, mgb::kFormatVersion);
  if (h.file_size != size)
    return fail(MGRT_INVALID_BUNDLE,
                "header says the file is %llu bytes but %zu bytes were given (truncated?)",
                (ull)h.file_size, size);
  if (h.checksum != mgb::bundleChecksum(data, size))
    return fail(MGRT_INVALID_BUNDLE, "checksum mismatch: the bundle is corrupted");
  if (h.manifest_offset < mgb::kHeaderSize || h.manifest_offset % 8 != 0 ||
      !inside(h.manifest_offset, h.manifest_size, size))
    return fail(MGRT_INVALID_BUNDLE, "manifest [%llu, +%llu) is misaligned or outside the file of %zu bytes",
                (ull)h.manifest_offset, (ull)h.manifest_size, size);
  if (h.weights_offset < mgb::kHeaderSize || h.weights_offset % mgb::kWeightsAlign != 0 ||
      !inside(h.weights_offset, h.weights_size, size))
    return fail(MGRT_INVALID_BUNDLE, "weights section [%llu, +%llu) is misaligned or outside the file of %zu bytes",
                (ull)h.weights_offset, (ull)h.weights_size, size);
  if (h.manifest_size < 8 || h.manifest_size >= FLATBUFFERS_MAX_BUFFER_SIZE)
    return fail(MGRT_INVALID_BUNDLE, "manifest size %llu is out of range", (ull)h.manifest_size);

  out->manifestBytes.assign(size_t((h.manifest_size + 7) / 8), 0);
  std::memcpy(out->manifestBytes.data(), data + h.manifest_offset, size_t(h.manifest_size));
  const uint8_t* manifest = reinterpret_cast<const uint8_t*>(out->manifestBytes.data());
  if (!mgb::BundleBufferHasIdentifier(manifest))
    return fail(MGRT_INVALID_BUNDLE, "manifest lacks the file identifier \"%s\"",
                mgb::BundleIdentifier());
  flatbuffers::Verifier verifier(manifest, size_t(h.manifest_size), /*max_depth=*/64,
                                 /*max_tables=*/10000000);
  if (!mgb::VerifyBundleBuffer(verifier))
    return fail(MGRT_INVALID_BUNDLE, "manifest failed FlatBuffers verification (malformed tables or offsets)");
  const mgb::Bundle* b = mgb::GetBundle(manifest);

  std::vector<uint32_t> variants;
  MGRT_TRY(verifyManifest(*b, h.weights_size, limits, &variants));
  MGRT_TRY(checkMemoryBudget(*b, limits));
  out->manifest = b;
  out->variant = std::move(variants);
  out->weights = data + h.weights_offset;
  out->weightsSize = b->arenas()->Get(0)->size();  // verified: <= weights_size
  out->data = data + h.weights_offset;
  out->dataSize = h.weights_size;
  return MGRT_OK;
}

bool shapeNumel(const flatbuffers::Vector<int64_t>* shape, uint64_t* out) {
  uint64_t n = 1;
  if (shape) {
    for (uint32_t i = 0; i < shape->size(); ++i) {
      const int64_t d = shape->Get(i);
      if (d < 0) return false;
      if (d != 0 && n > (UINT64_MAX / 8) / uint64_t(d)) return false;
      n *= uint64_t(d);
    }
  }
  *out = n;
  return true;
}

uint64_t paramsSlotSize(const mgb::Dispatch& d, uint64_t align) {
  const uint64_t words = d.params() ? d.params()->size() : 0;
  const uint64_t bytes = words ? words * 4 : 16;
  return (bytes + align - 1) / align * align;
}

uint64_t paramsBufferSize(const mgb::Bundle& b, uint64_t align) {
  uint64_t total = 0;
  for (const mgb::EntryPoint* e : *b.entry_points())
    if (e->dispatches())
      for (const mgb::Dispatch* d : *e->dispatches()) total += paramsSlotSize(*d, align);
  return total;
}

std::string label(const char* kind, size_t index, const flatbuffers::String* name) {
  return format("%s %zu ('%s')", kind, index, name ? name->c_str() : "");
}

}  // namespace mgrt
