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

// A dispatch order with fewer barriers: list scheduling by dependency
// depth. Dispatch j depends on an earlier i when it reads a range i writes
// (RAW), or writes a range i reads or writes (WAR, WAW) — on the planned
// byte ranges, so the memory plan's arena reuse stays correct whatever the
// order. Each dispatch goes one level after its deepest dependency; the
// result lists level 0, then level 1, ... (original order within a level),
// so placeBarriers on the reordered list puts barriers only between levels.
// Returns order[k] = index of the dispatch that runs k-th.
std::vector<size_t> orderByLevel(const std::vector<DispatchAccess>& dispatches);

// xs reordered: result[k] = xs[order[k]].
template <class T>
std::vector<T> applyOrder(std::vector<T> xs, const std::vector<size_t>& order) {
  std::vector<T> out;
  out.reserve(order.size());
  for (size_t k : order) out.push_back(std::move(xs[k]));
  return out;
}

}  // namespace mgc
