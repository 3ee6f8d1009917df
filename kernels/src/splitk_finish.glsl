// A split-K product that applies its own epilogue, without a conv2d_finish
// pass after it (conv2d_splitk.comp, matmul_splitk.glsl). Once a workgroup
// has added its slice of a tile into `out`, it counts itself in at the
// tile's arrival counter (binding SPLITK_COUNTERS_BINDING: the node's
// scratch, zeroed by the initializing pass); the tile's last workgroup to
// arrive then holds the whole sums and applies the epilogue steps after the
// leading adds (those the initializing pass applied) in place. The threadfence
// reduction pattern: each invocation's adds, a device-scope fence, a
// workgroup barrier, one counter increment; the last one fences again
// before it reads (atomic_add.glsl's coherent buffer, SPLITK_FINISH).
// The includer defines SPLITK_FINISH and SPLITK_COUNTERS_BINDING before
// including atomic_add.glsl.
layout(std430, set = 0, binding = SPLITK_COUNTERS_BINDING) coherent buffer Counters { uint counters[]; };
shared uint splitkArrived;

// True (uniformly) in the last of a tile's `slices` workgroups to call it.
// Called in uniform control flow, after this workgroup's adds into the tile.
bool lastToArrive(uint tile, uint slices) {
  memoryBarrierBuffer();
  barrier();
  if (gl_LocalInvocationIndex == 0u) splitkArrived = atomicAdd(counters[tile], 1u);
  barrier();
  bool last = splitkArrived + 1u == slices;
  barrier();  // every invocation has read splitkArrived before the next tile's increment
  if (last) memoryBarrierBuffer();
  return last;
}
