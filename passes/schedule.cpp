#include "passes/schedule.h"

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

}  // namespace mgc
