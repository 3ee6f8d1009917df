// In-stream waits: which barriers of a session's dispatches a device that
// runs dispatches in order (mgb::Feature::StreamSync) may drop, and what
// each stream kernel's push constants say (kernels/src/stream_sync.glsl).
//
// The barriers cut the dispatches into levels. Between two levels made
// only of stream kernels the barrier goes: every workgroup of the earlier
// level adds 1 to its level's counter when it is done, and every workgroup
// of the later one waits for the sum of the earlier level's workgroups
// before it touches memory an earlier dispatch wrote. A wait thus stands
// for the barrier it replaces (all of the level before is done, and by
// induction every level before that), while the later level's workgroups
// may start early and load their weights meanwhile. Any other barrier
// stays, and its dispatches neither wait nor signal.
#pragma once

#include <cstdint>

#include "runtime/core/plan.h"

namespace mgrt {

constexpr uint32_t kNoSignal = ~0u;

// Sets plan->streamSlots and every stream dispatch's push words; with
// `inStream` (the device has StreamSync) drops the barriers between levels
// of stream kernels.
void planStreamWaits(const mgb::Bundle& b, bool inStream, SessionPlan* plan);

}  // namespace mgrt
