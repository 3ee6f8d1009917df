// In-stream waits (runtime/core/stream_plan.h): a kernel that includes
// this takes part in them (embed_kernels.cmake sets its Kernel.stream where
// a module has push constants and a buffer at set 1, binding 0: the
// optimized modules carry no names). Where the runtime dropped the barrier
// before its dispatch, each workgroup waits, in streamWait(), until the
// previous level's counter reaches its workgroup count; where the barrier
// after it was dropped, each workgroup adds 1 to its level's counter in
// streamSignal(). Otherwise both return at once (push words 0 / ~0).
//
// The includer calls streamWait() in uniform control flow before it reads
// or writes anything but constants (weights, params) — at most once
// counts, later calls return — and streamSignal() as the last thing every
// workgroup does, in uniform control flow (no early returns). Buffers an
// earlier dispatch wrote are read `coherent` (through the device-wide
// cache, not a multiprocessor's), as the barrier would have made them.
// Polled with plain loads (volatile: from the device-wide cache, every
// time), which weigh less on it than atomic reads.
layout(std430, set = 1, binding = 0) coherent volatile buffer StreamCounters { uint streamCounters[]; };
layout(push_constant) uniform StreamSync {
  uint waitSlot, waitCount, signalSlot, flagSlot;
} streamSync;

// A wait gives up after this many polls (far longer than any level of a
// decode step takes; not timed on a GPU yet) and records
// waitSlot + 1 in the flag; the runtime then fails the run. Waits that
// find the flag set give up at once.
const uint kStreamPolls = 1u << 20;
bool streamWaited = false;

void streamWait() {
  if (streamWaited) return;
  streamWaited = true;
  if (streamSync.waitCount == 0u) return;
  if (gl_LocalInvocationIndex == 0u) {
    for (uint polls = 0u; streamCounters[streamSync.waitSlot] < streamSync.waitCount; ++polls) {
      if (polls >= kStreamPolls || ((polls & 1023u) == 1023u && streamCounters[streamSync.flagSlot] != 0u)) {
        atomicMax(streamCounters[streamSync.flagSlot], streamSync.waitSlot + 1u);
        break;
      }
    }
  }
  barrier();
  memoryBarrierBuffer();
}

void streamSignal() {
  if (streamSync.signalSlot == ~0u) return;
  memoryBarrierBuffer();
  barrier();
  if (gl_LocalInvocationIndex == 0u) atomicAdd(streamCounters[streamSync.signalSlot], 1u);
}
