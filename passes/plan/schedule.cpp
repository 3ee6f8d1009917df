#include "passes/plan/schedule.h"

#include <algorithm>
#include <iterator>
#include <map>

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

namespace {

// Per arena, disjoint byte segments → the deepest level of the dispatches
// so far that write / read bytes in them (-1: none). A dispatch's level is
// then found from the segments its ranges cover, not by comparing it with
// every earlier dispatch: orderByLevel stays near-linear in the dispatch
// count (a SmolLM2 train step has thousands).
class LevelMap {
 public:
  // The deepest write level (and read level, with `reads`) over r's bytes.
  long deepest(const ByteRange& r, bool reads) const {
    long lv = -1;
    auto a = arenas_.find(r.arena);
    if (a == arenas_.end()) return lv;
    const Segments& m = a->second;
    auto it = m.upper_bound(r.offset);
    if (it != m.begin() && std::prev(it)->second.end > r.offset) --it;
    for (; it != m.end() && it->first < r.offset + r.size; ++it)
      lv = std::max(lv, reads ? std::max(it->second.write, it->second.read) : it->second.write);
    return lv;
  }

  void raise(const ByteRange& r, long level, bool write) {
    Segments& m = arenas_[r.arena];
    const uint64_t end = r.offset + r.size;
    split(m, r.offset);
    split(m, end);
    uint64_t at = r.offset;
    auto bump = [&](Segment& s) { (write ? s.write : s.read) = std::max(write ? s.write : s.read, level); };
    for (auto it = m.lower_bound(r.offset); it != m.end() && it->first < end; ++it) {
      if (it->first > at) bump(m.emplace_hint(it, at, Segment{it->first, -1, -1})->second);
      bump(it->second);
      at = it->second.end;
    }
    if (at < end) bump(m.emplace(at, Segment{end, -1, -1}).first->second);
  }

 private:
  struct Segment {
    uint64_t end;
    long write, read;
  };
  using Segments = std::map<uint64_t, Segment>;  // by first byte
  std::map<int, Segments> arenas_;

  // The segment holding byte `at` (if any) becomes two, split there.
  static void split(Segments& m, uint64_t at) {
    auto it = m.upper_bound(at);
    if (it == m.begin()) return;
    --it;
    if (it->first < at && it->second.end > at) {
      Segment right = it->second;
      it->second.end = at;
      m.emplace_hint(std::next(it), at, right);
    }
  }
};

// The definition itself, pair by pair: for lists with an empty range, whose
// overlap test (a point strictly inside another range) segments do not model.
std::vector<size_t> levelsPairwise(const std::vector<DispatchAccess>& dispatches) {
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
  return level;
}

std::vector<size_t> levels(const std::vector<DispatchAccess>& dispatches) {
  for (const DispatchAccess& d : dispatches)
    for (const auto* list : {&d.reads, &d.writes})
      for (const ByteRange& r : *list)
        if (r.size == 0) return levelsPairwise(dispatches);
  std::vector<size_t> level(dispatches.size(), 0);
  LevelMap map;
  for (size_t j = 0; j < dispatches.size(); ++j) {
    const DispatchAccess& d = dispatches[j];
    long deepest = -1;  // RAW, then WAW and WAR
    for (const ByteRange& r : d.reads) deepest = std::max(deepest, map.deepest(r, false));
    for (const ByteRange& w : d.writes) deepest = std::max(deepest, map.deepest(w, true));
    level[j] = size_t(deepest + 1);
    for (const ByteRange& r : d.reads) map.raise(r, long(level[j]), false);
    for (const ByteRange& w : d.writes) map.raise(w, long(level[j]), true);
  }
  return level;
}

}  // namespace

std::vector<size_t> orderByLevel(const std::vector<DispatchAccess>& dispatches) {
  const std::vector<size_t> level = levels(dispatches);
  std::vector<size_t> order(dispatches.size());
  for (size_t k = 0; k < order.size(); ++k) order[k] = k;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return level[a] < level[b]; });
  return order;
}

}  // namespace mgc
