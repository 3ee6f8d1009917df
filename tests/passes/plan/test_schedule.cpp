#include <algorithm>

#include <catch2/catch.hpp>

#include "passes/plan/schedule.h"

using namespace mgc;

TEST_CASE("barriers separate dependent dispatches only") {
  ByteRange x{1, 0, 256}, a{1, 256, 256}, b{1, 512, 256}, c{1, 768, 256};
  std::vector<DispatchAccess> d = {
      {{x}, {a}},     // a = f(x)
      {{x}, {b}},     // b = g(x): independent of a
      {{a, b}, {c}},  // c = h(a, b): needs both
      {{x}, {a}},     // a = f(x) again: WAR on a (read by the previous dispatch)
  };
  std::vector<bool> bar = placeBarriers(d);
  CHECK(bar == std::vector<bool>{false, false, true, true});
}

TEST_CASE("write after write in the same arena range needs a barrier") {
  ByteRange a{1, 0, 512}, half{1, 256, 256};
  std::vector<DispatchAccess> d = {{{}, {a}}, {{}, {half}}};
  CHECK(placeBarriers(d) == std::vector<bool>{false, true});
}

TEST_CASE("different arenas never conflict") {
  std::vector<DispatchAccess> d = {{{}, {{0, 0, 256}}}, {{{1, 0, 256}}, {}}};
  CHECK(placeBarriers(d) == std::vector<bool>{false, false});
}

TEST_CASE("orderByLevel groups independent dispatches under one barrier") {
  ByteRange x{1, 0, 256}, a{1, 256, 256}, b{1, 512, 256}, c{1, 768, 256}, e{1, 1024, 256};
  std::vector<DispatchAccess> d = {
      {{x}, {a}},  // 0: a = f(x)
      {{a}, {b}},  // 1: b = g(a)      level 1
      {{x}, {c}},  // 2: c = h(x)      level 0: independent of 0 and 1
      {{c}, {e}},  // 3: e = k(c)      level 1
  };
  CHECK(placeBarriers(d) == std::vector<bool>{false, true, false, true});
  std::vector<size_t> order = orderByLevel(d);
  CHECK(order == std::vector<size_t>{0, 2, 1, 3});
  CHECK(placeBarriers(applyOrder(d, order)) == std::vector<bool>{false, false, true, false});
}

TEST_CASE("orderByLevel keeps write-after-read on reused arena bytes in order") {
  // The memory plan reuses x's bytes for y once x is dead: the writer of y
  // must stay after the reader of x even though no data flows between them.
  ByteRange x{1, 0, 256}, a{1, 256, 256}, w{0, 0, 256};
  std::vector<DispatchAccess> d = {
      {{x}, {a}},  // 0: a = f(x)       (last read of x)
      {{w}, {x}},  // 1: y = g(w) into x's bytes: WAR on x
      {{w}, {}},   // 2: reads only weights: free to move
  };
  std::vector<size_t> order = orderByLevel(d);
  auto pos = [&](size_t i) { return std::find(order.begin(), order.end(), i) - order.begin(); };
  CHECK(pos(0) < pos(1));
  CHECK(placeBarriers(applyOrder(d, order)) == std::vector<bool>{false, false, true});
}

TEST_CASE("orderByLevel never breaks a hazard and never adds barriers (random lists)") {
  uint32_t seed = 12345;
  auto rnd = [&](uint32_t n) {
    seed = seed * 1664525u + 1013904223u;
    return (seed >> 8) % n;
  };
  auto overlap = [](const std::vector<ByteRange>& xs, const std::vector<ByteRange>& ys) {
    for (const ByteRange& p : xs)
      for (const ByteRange& q : ys)
        if (p.arena == q.arena && p.offset < q.offset + q.size && q.offset < p.offset + p.size) return true;
    return false;
  };
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<DispatchAccess> d(2 + rnd(30));
    for (DispatchAccess& acc : d) {
      for (uint32_t k = rnd(3); k-- > 0;) acc.reads.push_back({int(rnd(2)), 64 * rnd(16), 64 * (1 + rnd(3))});
      acc.writes.push_back({1, 64 * rnd(16), 64 * (1 + rnd(3))});
    }
    std::vector<size_t> order = orderByLevel(d);
    std::vector<size_t> pos(d.size());
    for (size_t k = 0; k < order.size(); ++k) pos[order[k]] = k;
    for (size_t j = 0; j < d.size(); ++j)
      for (size_t i = 0; i < j; ++i)
        if (overlap(d[j].reads, d[i].writes) || overlap(d[j].writes, d[i].writes) || overlap(d[j].writes, d[i].reads))
          REQUIRE(pos[i] < pos[j]);
    auto count = [](const std::vector<bool>& b) { return std::count(b.begin(), b.end(), true); };
    CHECK(count(placeBarriers(applyOrder(d, order))) <= count(placeBarriers(d)));
  }
}

TEST_CASE("orderByLevel gives the order of its pairwise definition (random lists)") {
  // The definition: a dispatch goes one level after the deepest earlier
  // dispatch it conflicts with (RAW, WAW, WAR); levels in order, stable.
  auto overlap = [](const std::vector<ByteRange>& xs, const std::vector<ByteRange>& ys) {
    for (const ByteRange& p : xs)
      for (const ByteRange& q : ys)
        if (p.arena == q.arena && p.offset < q.offset + q.size && q.offset < p.offset + p.size) return true;
    return false;
  };
  auto reference = [&](const std::vector<DispatchAccess>& d) {
    std::vector<size_t> level(d.size(), 0);
    for (size_t j = 0; j < d.size(); ++j)
      for (size_t i = 0; i < j; ++i)
        if (overlap(d[j].reads, d[i].writes) || overlap(d[j].writes, d[i].writes) || overlap(d[j].writes, d[i].reads))
          level[j] = std::max(level[j], level[i] + 1);
    std::vector<size_t> order(d.size());
    for (size_t k = 0; k < order.size(); ++k) order[k] = k;
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return level[a] < level[b]; });
    return order;
  };
  uint32_t seed = 777;
  auto rnd = [&](uint32_t n) {
    seed = seed * 1664525u + 1013904223u;
    return (seed >> 8) % n;
  };
  int withEmpty = 0;
  for (int trial = 0; trial < 400; ++trial) {
    std::vector<DispatchAccess> d(1 + rnd(60));
    const bool empties = trial % 4 == 0;  // a zero-size range somewhere: the pairwise path
    for (DispatchAccess& acc : d) {
      // Unaligned offsets and sizes, partly overlapping, three arenas.
      for (uint32_t k = rnd(4); k-- > 0;) acc.reads.push_back({int(rnd(3)), rnd(500), 1 + rnd(120)});
      for (uint32_t k = 1 + rnd(2); k-- > 0;) acc.writes.push_back({int(rnd(3)), rnd(500), 1 + rnd(120)});
      if (empties && rnd(8) == 0) acc.reads.push_back({int(rnd(3)), rnd(500), 0});
    }
    for (const DispatchAccess& acc : d)
      for (const ByteRange& r : acc.reads) withEmpty += r.size == 0;
    INFO("trial " << trial);
    REQUIRE(orderByLevel(d) == reference(d));
  }
  CHECK(withEmpty > 0);
}
