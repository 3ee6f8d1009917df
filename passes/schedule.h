// Scheduling: decide which dispatches need a barrier before them.
//
// A dispatch needs a barrier if it reads a byte range written since the last
// barrier (RAW), or writes a range read or written since then (WAR, WAW).
// Independent dispatches between two barriers run concurrently on the GPU.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace mgc {

struct ByteRange {
  int arena;
  uint64_t offset, size;
};

struct DispatchAccess {
  std::vector<ByteRange> reads, writes;
};

// One flag per dispatch: true = barrier before it. The first dispatch never
// needs one (the runtime orders its input copies before the first dispatch).
std::vector<bool> placeBarriers(const std::vector<DispatchAccess>& dispatches);

}  // namespace mgc
