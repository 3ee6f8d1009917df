#include "runtime/vulkan/pipeline_cache.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "formats/bundle_layout.h"
#include "formats/safetensors.h"
#include "runtime/core/status.h"
#include "runtime/vulkan/pipeline_cache_file.h"

namespace mgrt {
namespace vk {
namespace {

PipelineCacheKey keyOf(const Device* d) {
  PipelineCacheKey k;
  k.vendorId = d->props.vendorID;
  k.deviceId = d->props.deviceID;
  k.driverVersion = d->props.driverVersion;
  std::memcpy(k.uuid, d->props.pipelineCacheUUID, 16);
  return k;
}

enum class ReadResult { Absent, Read, Unreadable };

// Reads a regular file of at most kMaxPipelineCacheFileBytes; anything else
// (a folder, a device, a huge file) is Unreadable with the reason.
ReadResult readCacheFile(const std::string& path, std::vector<uint8_t>* out, std::string* why) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return ReadResult::Absent;
    *why = format("cannot open: %s", std::strerror(errno));
    return ReadResult::Unreadable;
  }
  struct stat st {};
  ReadResult r = ReadResult::Read;
  if (::fstat(fd, &st) != 0) {
    *why = format("cannot stat: %s", std::strerror(errno));
    r = ReadResult::Unreadable;
  } else if (S_ISDIR(st.st_mode)) {
    *why = "is a folder, not a file";
    r = ReadResult::Unreadable;
  } else if (!S_ISREG(st.st_mode)) {
    *why = "is not a regular file";
    r = ReadResult::Unreadable;
  } else if (uint64_t(st.st_size) > kMaxPipelineCacheFileBytes) {
    *why = format("%lld bytes, more than the %llu a pipeline cache may have", (long long)st.st_size,
                  (unsigned long long)kMaxPipelineCacheFileBytes);
    r = ReadResult::Unreadable;
  } else {
    out->resize(size_t(st.st_size));
    size_t done = 0;
    while (done < out->size()) {
      const ssize_t n = ::read(fd, out->data() + done, out->size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      done += size_t(n);
    }
    if (done != out->size()) {
      *why = "cannot read the whole file";
      r = ReadResult::Unreadable;
    }
  }
  ::close(fd);
  return r;
}

VkResult createCache(Device* d, const void* data, size_t size, VkPipelineCache* out) {
  VkPipelineCacheCreateInfo info{};
  info.sType = VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO;
  info.initialDataSize = size;
  info.pInitialData = data;
  return d->fn.vkCreatePipelineCache(d->device, &info, nullptr, out);
}

}  // namespace

mgrt_status openPipelineCache(Device* d, const char* path, PipelineCache* c) {
  std::lock_guard<std::mutex> lock(c->mutex);
  if (c->cache) d->fn.vkDestroyPipelineCache(d->device, c->cache, nullptr);
  c->cache = VK_NULL_HANDLE;
  c->path = path ? path : "";
  c->status = PipelineCacheStatus();
  c->fileKnown = false;
  if (c->path.empty()) return MGRT_OK;

  std::vector<uint8_t> file;
  std::string why;
  const uint8_t* payload = nullptr;
  size_t payloadSize = 0;
  switch (readCacheFile(c->path, &file, &why)) {
    case ReadResult::Absent:
      c->status.state = PipelineCacheState::Empty;
      break;
    case ReadResult::Unreadable:
      c->status.state = PipelineCacheState::Ignored;
      break;
    case ReadResult::Read:
      if (checkPipelineCacheFile(file.data(), file.size(), keyOf(d), &payload, &payloadSize, &why)) {
        c->status.state = PipelineCacheState::Loaded;
        c->fileHash = mgb::fnv1a(payload, payloadSize);
        c->fileBytes = payloadSize;
        c->fileKnown = true;
      } else {
        c->status.state = PipelineCacheState::Ignored;
      }
      break;
  }
  if (c->status.state == PipelineCacheState::Ignored)
    c->status.note = format("pipeline cache '%s' ignored: %s", c->path.c_str(), why.c_str());

  VkResult r = createCache(d, payload, payloadSize, &c->cache);
  if (r != VK_SUCCESS && payload) {
    // The driver refused data that passed every check (e.g. it changed its
    // format without changing pipelineCacheUUID): start empty instead.
    c->status.state = PipelineCacheState::Ignored;
    c->status.note =
        format("pipeline cache '%s' ignored: the driver refused its data (%s)", c->path.c_str(), resultName(r));
    c->fileKnown = false;
    r = createCache(d, nullptr, 0, &c->cache);
  }
  if (r != VK_SUCCESS) {
    c->cache = VK_NULL_HANDLE;
    return vkFail(d, r, "vkCreatePipelineCache");
  }
  return MGRT_OK;
}

void savePipelineCache(Device* d, PipelineCache* c) {
  std::lock_guard<std::mutex> lock(c->mutex);
  if (!c->cache || d->lost) return;
  size_t size = 0;
  if (d->fn.vkGetPipelineCacheData(d->device, c->cache, &size, nullptr) != VK_SUCCESS) return;
  std::vector<uint8_t> data(size);
  // VK_INCOMPLETE: pipelines were added between the two calls; the next save catches up.
  if (d->fn.vkGetPipelineCacheData(d->device, c->cache, &size, data.data()) != VK_SUCCESS) return;
  data.resize(size);
  const uint64_t hash = mgb::fnv1a(data.data(), data.size());
  if (c->fileKnown && hash == c->fileHash && size == c->fileBytes) return;
  std::string err;
  if (!safetensors::writeFileAtomic(c->path, makePipelineCacheFile(keyOf(d), data.data(), data.size()), &err)) {
    c->status.note = format("pipeline cache not saved: %s", err.c_str());
    return;
  }
  c->fileHash = hash;
  c->fileBytes = size;
  c->fileKnown = true;
}

void closePipelineCache(Device* d, PipelineCache* c) {
  std::lock_guard<std::mutex> lock(c->mutex);
  if (c->cache && !d->lost) d->fn.vkDestroyPipelineCache(d->device, c->cache, nullptr);
  c->cache = VK_NULL_HANDLE;
}

}  // namespace vk
}  // namespace mgrt
