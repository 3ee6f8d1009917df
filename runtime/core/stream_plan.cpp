#include "runtime/core/stream_plan.h"

#include <vector>

namespace mgrt {

void planStreamWaits(const mgb::Bundle& b, bool inStream, SessionPlan* plan) {
  std::vector<DispatchPlan>& ds = plan->dispatches;
  plan->streamSlots = 0;
  if (ds.empty()) return;
  // Levels: a new one at each barrier (the first dispatch opens level 0).
  std::vector<uint32_t> level(ds.size(), 0);
  std::vector<bool> stream(ds.size(), false);  // per dispatch: a stream kernel's
  std::vector<bool> allStream;    // per level: only stream kernels
  std::vector<uint64_t> groups;   // per level: its workgroups
  bool anyStream = false;
  for (size_t i = 0; i < ds.size(); ++i) {
    if (i == 0 || ds[i].barrier) {
      allStream.push_back(true);
      groups.push_back(0);
    }
    level[i] = uint32_t(allStream.size() - 1);
    stream[i] = b.kernels()->Get(ds[i].kernel)->stream();
    anyStream |= stream[i];
    allStream.back() = allStream.back() && stream[i];
    groups.back() += uint64_t(ds[i].groups[0]) * ds[i].groups[1] * ds[i].groups[2];
  }
  if (!anyStream) return;
  const uint32_t levels = uint32_t(allStream.size());
  // dropped[L]: the barrier opening level L goes (a count must fit a word).
  std::vector<bool> dropped(levels + 1, false);
  for (uint32_t L = 1; inStream && L < levels; ++L)
    dropped[L] = allStream[L - 1] && allStream[L] && groups[L - 1] <= 0xffffffffull;
  plan->streamSlots = levels + 1;  // a counter per level, then the timeout flag
  for (size_t i = 0; i < ds.size(); ++i) {
    if (!stream[i]) continue;
    const uint32_t L = level[i];
    DispatchPlan& d = ds[i];
    d.stream[0] = L > 0 ? L - 1 : 0;
    d.stream[1] = dropped[L] ? uint32_t(groups[L - 1]) : 0;
    d.stream[2] = dropped[L + 1] ? L : kNoSignal;
    d.stream[3] = levels;
    if (d.barrier && dropped[L]) d.barrier = false;
  }
}

}  // namespace mgrt
