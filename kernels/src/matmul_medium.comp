// matmul_medium: matmul.comp's product on 64x64 output tiles of matmul_tile8.glsl's
// 8x8-per-thread core (64 threads). Smaller tiles for products with
// fewer (lower_matmul.cpp picks it).
// f32 accumulation; fused epilogue (epilogue.glsl) before the store.
//
// Grid: (tilesN, tilesM, batch) of 64x64 tiles, each clamped to 65535;
// workgroups loop over the remaining tiles / batches.
// Bindings and params: matmul.comp's.
#version 450
#extension GL_EXT_control_flow_attributes : require
layout(local_size_x = 8, local_size_y = 8) in;
#include "common.glsl"

layout(std430, set = 0, binding = 1) readonly buffer A { vec4 a4[]; };
layout(std430, set = 0, binding = 2) readonly buffer B { vec4 b4[]; };
layout(std430, set = 0, binding = 5) writeonly buffer C { float c[]; };
#define EPI_BASE 16
#define EPI_BINDING0 3
#define EPI_BINDING1 4
#include "math.glsl"
#include "epilogue.glsl"
#define TM 64u
#define TN 64u
#include "matmul_tile8.glsl"

void main() {
  uint M = p[0], N = p[1], batches = p[3];
  uint tilesN = (N + TN - 1u) / TN, tilesM = (M + TM - 1u) / TM;
  for (uint bz = gl_WorkGroupID.z; bz < batches; bz += gl_NumWorkGroups.z) {
    uint offA, offB;
    batchOffsets(bz, offA, offB);
    for (uint tm = gl_WorkGroupID.y; tm < tilesM; tm += gl_NumWorkGroups.y)
      for (uint tn = gl_WorkGroupID.x; tn < tilesN; tn += gl_NumWorkGroups.x) tile8(bz, tm * TM, tn * TN, offA, offB);
  }
}
