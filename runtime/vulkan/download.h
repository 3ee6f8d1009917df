// Device → host copies for load-time and between-run work (reading state
// tensors, saving checkpoints); never per run.
#pragma once

#include <vector>

#include "runtime/vulkan/memory.h"

namespace mgrt {
namespace vk {

// Copies device ranges to host memory through one staging buffer, after a
// full barrier so that the writes of earlier submissions are visible.
mgrt_status downloadBuffers(Device* d, const std::vector<Download>& downloads, const char* what);

}  // namespace vk
}  // namespace mgrt
