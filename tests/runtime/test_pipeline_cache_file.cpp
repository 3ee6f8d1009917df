// The pipeline cache file's checks (runtime/vulkan/pipeline_cache_file.h),
// without a device: every field that names the device, every size and the
// checksum, and the driver's own VkPipelineCacheHeaderVersionOne.
#include <catch2/catch.hpp>

#include <cstring>
#include <string>
#include <vector>

#include "runtime/vulkan/pipeline_cache_file.h"

using namespace mgrt::vk;

namespace {

PipelineCacheKey testKey() {
  PipelineCacheKey k;
  k.vendorId = 0x10de;
  k.deviceId = 0x2335;
  k.driverVersion = 0x8a8c0000;
  for (int i = 0; i < 16; ++i) k.uuid[i] = uint8_t(0xa0 + i);
  return k;
}

// A driver blob as vkGetPipelineCacheData writes it: the 32-byte header
// version one, then `extra` bytes of driver data.
std::vector<uint8_t> driverBlob(const PipelineCacheKey& k, size_t extra) {
  std::vector<uint8_t> b(kVulkanCacheHeaderSize + extra);
  const uint32_t words[4] = {uint32_t(kVulkanCacheHeaderSize), 1, k.vendorId, k.deviceId};
  std::memcpy(b.data(), words, sizeof words);
  std::memcpy(b.data() + 16, k.uuid, 16);
  for (size_t i = 0; i < extra; ++i) b[kVulkanCacheHeaderSize + i] = uint8_t(i * 7);
  return b;
}

std::vector<uint8_t> fileFor(const PipelineCacheKey& k, const std::vector<uint8_t>& blob) {
  return makePipelineCacheFile(k, blob.data(), blob.size());
}

// The reason a file is refused, or "" when it is accepted.
std::string refusal(const std::vector<uint8_t>& file, const PipelineCacheKey& k = testKey()) {
  const uint8_t* payload = nullptr;
  size_t size = 0;
  std::string why;
  if (checkPipelineCacheFile(file.data(), file.size(), k, &payload, &size, &why)) {
    REQUIRE(payload == file.data() + kPipelineCacheHeaderSize);
    REQUIRE(size == file.size() - kPipelineCacheHeaderSize);
    return "";
  }
  REQUIRE(payload == nullptr);
  REQUIRE(!why.empty());
  return why;
}

}  // namespace

TEST_CASE("a pipeline cache file made for this device is accepted", "[runtime][pipeline_cache]") {
  const PipelineCacheKey k = testKey();
  const std::vector<uint8_t> blob = driverBlob(k, 100);
  const std::vector<uint8_t> file = fileFor(k, blob);
  REQUIRE(file.size() == kPipelineCacheHeaderSize + blob.size());
  CHECK(refusal(file) == "");
  CHECK(std::memcmp(file.data() + kPipelineCacheHeaderSize, blob.data(), blob.size()) == 0);
}

TEST_CASE("a damaged pipeline cache file is refused with the reason", "[runtime][pipeline_cache]") {
  const PipelineCacheKey k = testKey();
  const std::vector<uint8_t> good = fileFor(k, driverBlob(k, 100));

  CHECK_THAT(refusal({}), Catch::Contains("shorter than the 64-byte header"));
  CHECK_THAT(refusal(std::vector<uint8_t>(good.begin(), good.begin() + 63)), Catch::Contains("shorter"));
  CHECK_THAT(refusal(std::vector<uint8_t>(good.begin(), good.end() - 1)), Catch::Contains("truncated"));
  std::vector<uint8_t> padded = good;
  padded.push_back(0);
  CHECK_THAT(refusal(padded), Catch::Contains("truncated or padded"));

  std::vector<uint8_t> f = good;
  f[0] = 'X';
  CHECK_THAT(refusal(f), Catch::Contains("bad magic"));
  f = good;
  f[4] = 2;
  CHECK_THAT(refusal(f), Catch::Contains("format version 2"));
  // Any flipped byte in the header fields or the driver data: checksum.
  for (size_t at : {size_t(9), size_t(20), size_t(36), size_t(48), size_t(56), size_t(64), good.size() - 1}) {
    f = good;
    f[at] ^= 0x10;
    INFO("byte " << at);
    CHECK_THAT(refusal(f), Catch::Contains("checksum"));
  }
}

TEST_CASE("a pipeline cache file from another device or driver is refused", "[runtime][pipeline_cache]") {
  const PipelineCacheKey k = testKey();
  const std::vector<uint8_t> file = fileFor(k, driverBlob(k, 10));
  PipelineCacheKey other = k;
  other.vendorId = 0x1002;
  CHECK_THAT(refusal(file, other), Catch::Contains("another device"));
  other = k;
  other.deviceId = 1;
  CHECK_THAT(refusal(file, other), Catch::Contains("another device"));
  other = k;
  other.driverVersion = 1;
  CHECK_THAT(refusal(file, other), Catch::Contains("another driver version"));
  other = k;
  other.uuid[15] ^= 1;
  CHECK_THAT(refusal(file, other), Catch::Contains("another pipelineCacheUUID"));
}

TEST_CASE("the driver's own cache header is checked too", "[runtime][pipeline_cache]") {
  const PipelineCacheKey k = testKey();
  // Each case edits the driver blob, then seals it in a file with a valid
  // outer header, as a file written for this device by another program would be.
  struct Case {
    const char* what;
    size_t at;
    uint32_t value;
    const char* expected;
  };
  const Case cases[] = {{"header length below 32", 0, 31, "driver header length 31"},
                        {"header length past the data", 0, 43, "driver header length 43"},
                        {"header version 2", 4, 2, "driver header version 2"},
                        {"another vendor", 8, 0x1002, "driver header names another device"},
                        {"another device", 12, 7, "driver header names another device"},
                        {"another UUID", 16, 0, "another pipelineCacheUUID"}};
  for (const Case& c : cases) {
    INFO(c.what);
    std::vector<uint8_t> blob = driverBlob(k, 10);
    std::memcpy(blob.data() + c.at, &c.value, 4);
    CHECK_THAT(refusal(fileFor(k, blob)), Catch::Contains(c.expected));
  }
  CHECK_THAT(refusal(fileFor(k, std::vector<uint8_t>(31, 0))), Catch::Contains("shorter than its 32-byte header"));
  std::vector<uint8_t> exact = driverBlob(k, 0);
  CHECK(refusal(fileFor(k, exact)) == "");
}
