#include "passes/plan/schedule.h"

#include <algorithm>

namespace mgc {

namespace {

bool overlaps(const ByteRange& a, const ByteRange& b) {
  return a.arena == b.arena && a.offset < b.offset + b.size && b.offset < a.offset + a.size;
}

bool anyOverlap(const std::vector<ByteRange>& xs, const std::vector<ByteRange>& ys) {
  for (const ByteRange& x : xs)
    for (const ByteRange& y : ys)
      if (overlaps(x, y)) return true;
  return false;
}

}  // namespace

std::vector<bool> placeBarriers(const std::vector<DispatchAccess>& dispatches) {
  std::vector<bool> barrier(dispatches.size(), false);
  std::vector<ByteRange> readSince, writtenSince;
  for (size_t i = 0; i < dispatches.size(); ++i) {
    const DispatchAccess& d = dispatches[i];
    bool need = anyOverlap(d.reads, writtenSince) || anyOverlap(d.writes, writtenSince) ||
                anyOverlap(d.writes, readSince);
    if (need) {
      barrier[i] = true;
      readSince.clear();
      writtenSince.clear();
    }
    readSince.insert(readSince.end(), d.reads.begin(), d.reads.end());
    writtenSince.insert(writtenSince.end(), d.writes.begin(), d.writes.end());
  }
  return barrier;
}

std::vector<size_t> orderByLevel(const std::vector<DispatchAccess>& dispatches) {
  const size_t n = dispatches.size();
  std::vector<size_t> level(n, 0);
  for (size_t j = 0; j < n; ++j) {
    const DispatchAccess& d = dispatches[j];
    for (size_t i = 0; i < j; ++i) {
      if (level[i] + 1 <= level[j]) continue;  // cannot push j any deeper
      const DispatchAccess& e = dispatches[i];
      if (anyOverlap(d.reads, e.writes) || anyOverlap(d.writes, e.writes) || anyOverlap(d.writes, e.reads))
        level[j] = level[i] + 1;
    }
  }
  std::vector<size_t> order(n);
  for (size_t k = 0; k < n; ++k) order[k] = k;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return level[a] < level[b]; });
  return order;
}

}  // namespace mgc
