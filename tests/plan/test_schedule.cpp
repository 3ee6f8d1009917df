#include <catch2/catch.hpp>

#include "passes/schedule.h"

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
