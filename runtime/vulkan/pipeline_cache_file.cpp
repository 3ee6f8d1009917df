#include "runtime/vulkan/pipeline_cache_file.h"

#include <cinttypes>
#include <cstring>

#include "formats/bundle_layout.h"
#include "runtime/core/status.h"

namespace mgrt {
namespace vk {
namespace {

constexpr char kMagic[4] = {'M', 'G', 'P', 'C'};
constexpr size_t kChecksumOffset = 48;
constexpr uint32_t kVulkanCacheHeaderVersionOne = 1;  // VK_PIPELINE_CACHE_HEADER_VERSION_ONE

uint32_t u32At(const uint8_t* p, size_t at) {
  uint32_t v;
  std::memcpy(&v, p + at, 4);
  return v;
}
uint64_t u64At(const uint8_t* p, size_t at) {
  uint64_t v;
  std::memcpy(&v, p + at, 8);
  return v;
}

// FNV-1a 64 over the header with its checksum field read as zero, then the payload.
uint64_t checksum(const uint8_t* header, const uint8_t* payload, size_t payloadSize) {
  uint64_t h = mgb::fnv1a(header, kChecksumOffset);
  const uint8_t zero[8] = {};
  h = mgb::fnv1a(zero, 8, h);
  h = mgb::fnv1a(header + kChecksumOffset + 8, kPipelineCacheHeaderSize - kChecksumOffset - 8, h);
  return mgb::fnv1a(payload, payloadSize, h);
}

bool refuse(std::string* why, const std::string& reason) {
  *why = reason;
  return false;
}

}  // namespace

bool checkPipelineCacheFile(const uint8_t* file, size_t size, const PipelineCacheKey& key,
                            const uint8_t** payload, size_t* payloadSize, std::string* why) {
  *payload = nullptr;
  *payloadSize = 0;
  if (size < kPipelineCacheHeaderSize)
    return refuse(why, format("%zu bytes, shorter than the %zu-byte header", size, kPipelineCacheHeaderSize));
  if (std::memcmp(file, kMagic, 4) != 0) return refuse(why, "not an mgrt pipeline cache (bad magic)");
  const uint32_t version = u32At(file, 4);
  if (version != kPipelineCacheFileVersion)
    return refuse(why, format("file format version %u, this libmgrt reads %u", version, kPipelineCacheFileVersion));
  const uint64_t declared = u64At(file, 40);
  if (declared != size - kPipelineCacheHeaderSize)
    return refuse(why, format("truncated or padded: the header says %" PRIu64 " payload bytes, the file has %zu",
                              declared, size - kPipelineCacheHeaderSize));
  const uint8_t* data = file + kPipelineCacheHeaderSize;
  const size_t dataSize = size - kPipelineCacheHeaderSize;
  if (u64At(file, kChecksumOffset) != checksum(file, data, dataSize))
    return refuse(why, "checksum mismatch: the file is damaged");
  if (u32At(file, 36) != 0 || u64At(file, 56) != 0) return refuse(why, "reserved header fields are not zero");

  const uint32_t vendor = u32At(file, 8), device = u32At(file, 12), driver = u32At(file, 16);
  if (vendor != key.vendorId || device != key.deviceId)
    return refuse(why, format("written for another device (vendor 0x%04x, device 0x%04x; this one is vendor "
                              "0x%04x, device 0x%04x)", vendor, device, key.vendorId, key.deviceId));
  if (driver != key.driverVersion)
    return refuse(why, format("written by another driver version (0x%x; this one is 0x%x)", driver, key.driverVersion));
  if (std::memcmp(file + 20, key.uuid, 16) != 0)
    return refuse(why, "written for another pipelineCacheUUID (driver build or settings changed)");

  // The driver's own header (VkPipelineCacheHeaderVersionOne) must agree:
  // drivers check it too, but not all of them carefully.
  if (dataSize < kVulkanCacheHeaderSize)
    return refuse(why, format("driver data of %zu bytes is shorter than its %zu-byte header", dataSize,
                              kVulkanCacheHeaderSize));
  const uint32_t headerLength = u32At(data, 0), headerVersion = u32At(data, 4);
  if (headerLength < kVulkanCacheHeaderSize || headerLength > dataSize)
    return refuse(why, format("driver header length %u outside %zu..%zu", headerLength, kVulkanCacheHeaderSize,
                              dataSize));
  if (headerVersion != kVulkanCacheHeaderVersionOne)
    return refuse(why, format("driver header version %u, expected %u", headerVersion, kVulkanCacheHeaderVersionOne));
  if (u32At(data, 8) != key.vendorId || u32At(data, 12) != key.deviceId)
    return refuse(why, format("driver header names another device (vendor 0x%04x, device 0x%04x)", u32At(data, 8),
                              u32At(data, 12)));
  if (std::memcmp(data + 16, key.uuid, 16) != 0) return refuse(why, "driver header names another pipelineCacheUUID");
  *payload = data;
  *payloadSize = dataSize;
  return true;
}

std::vector<uint8_t> makePipelineCacheFile(const PipelineCacheKey& key, const uint8_t* payload, size_t size) {
  std::vector<uint8_t> file(kPipelineCacheHeaderSize + size, 0);
  uint8_t* h = file.data();
  std::memcpy(h, kMagic, 4);
  const uint32_t words[4] = {kPipelineCacheFileVersion, key.vendorId, key.deviceId, key.driverVersion};
  std::memcpy(h + 4, words, sizeof words);
  std::memcpy(h + 20, key.uuid, 16);
  const uint64_t payloadSize = size;
  std::memcpy(h + 40, &payloadSize, 8);
  if (size) std::memcpy(h + kPipelineCacheHeaderSize, payload, size);
  const uint64_t sum = checksum(h, h + kPipelineCacheHeaderSize, size);
  std::memcpy(h + kChecksumOffset, &sum, 8);
  return file;
}

}  // namespace vk
}  // namespace mgrt
