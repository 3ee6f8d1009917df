// The context's VkPipelineCache and the file it persists to (see
// pipeline_cache_file.h for the format). Opening reads and checks the file
// and seeds the cache with it; a missing file starts an empty cache, and a
// damaged or foreign one is ignored with a note (never an error: the cache
// only saves time). Saving writes the driver's data atomically (temporary
// file + rename) when it changed since the last read or write.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>

#include "runtime/core/backend.h"
#include "runtime/vulkan/device.h"

namespace mgrt {
namespace vk {

struct PipelineCache {
  std::mutex mutex;  // save() may run from concurrent model loads
  VkPipelineCache cache = VK_NULL_HANDLE;
  std::string path;
  PipelineCacheStatus status;
  uint64_t fileHash = 0;  // the payload last read or written (skip identical saves)
  size_t fileBytes = 0;
  bool fileKnown = false;
};

// Replaces c's cache with one for `path` (null or empty: no cache). Fails
// only when the driver cannot create a pipeline cache at all.
mgrt_status openPipelineCache(Device* d, const char* path, PipelineCache* c);
// Writes the file if the cache holds data the file lacks; a failure is
// recorded in c->status.note.
void savePipelineCache(Device* d, PipelineCache* c);
void closePipelineCache(Device* d, PipelineCache* c);

}  // namespace vk
}  // namespace mgrt
