// The pipeline cache file: what mgrt_context_set_pipeline_cache reads and
// writes. The driver's own blob (vkGetPipelineCacheData) behind a 64-byte
// header that names the device and driver it was made for and carries the
// payload's size and a checksum. The file is untrusted input (it lives in a
// user-writable cache folder): it reaches the driver only after every check
// below passed; anything else is ignored with the reason.
//
//   offset  field
//   0       magic "MGPC"
//   4       u32 version (kPipelineCacheFileVersion)
//   8       u32 vendorID, u32 deviceID, u32 driverVersion   (VkPhysicalDeviceProperties)
//   20      u8[16] pipelineCacheUUID
//   36      u32 reserved (0)
//   40      u64 payload size (= file size - 64)
//   48      u64 checksum: FNV-1a 64 of the header (this field zero), then the payload
//   56      u64 reserved (0)
//   64      payload: the driver's data, starting with VkPipelineCacheHeaderVersionOne
//
// Integers are in host byte order: a file is only ever valid on the machine
// (device + driver) that wrote it. Pure code, no Vulkan calls: the fuzz
// target runs it without a device.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace mgrt {
namespace vk {

constexpr uint32_t kPipelineCacheFileVersion = 1;
constexpr size_t kPipelineCacheHeaderSize = 64;
// sizeof(VkPipelineCacheHeaderVersionOne): length, version, vendorID,
// deviceID, pipelineCacheUUID[16].
constexpr size_t kVulkanCacheHeaderSize = 32;
// A cache file larger than this is not read (a pipeline cache of a large
// model is a few MB; this bounds what a hostile file can make us allocate).
constexpr uint64_t kMaxPipelineCacheFileBytes = uint64_t(256) << 20;

// Which device + driver a cache belongs to.
struct PipelineCacheKey {
  uint32_t vendorId = 0, deviceId = 0, driverVersion = 0;
  uint8_t uuid[16] = {};
};

// Checks a whole file image against `key`. On success points *payload at
// the driver's data inside `file`. On failure returns false and says why
// in *why ("checksum mismatch: the file is damaged", ...).
bool checkPipelineCacheFile(const uint8_t* file, size_t size, const PipelineCacheKey& key,
                            const uint8_t** payload, size_t* payloadSize, std::string* why);

// The file image for `payload` (the driver's data) made on `key`'s device.
std::vector<uint8_t> makePipelineCacheFile(const PipelineCacheKey& key, const uint8_t* payload, size_t size);

}  // namespace vk
}  // namespace mgrt
