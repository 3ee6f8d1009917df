// matmul_medium_splitk: matmul_medium's 64x64 tiles of 64 threads
// (matmul8.glsl, 8x8 per thread) with K split into slices, each tile's
// slice added into `out` with float atomic adds; lower_matmul.cpp takes it
// for tall products the mid-grid split cuts (Whisper's [1500, 384]
// projections and fc2: 144 tiles; on matmul_splitk's 4x4 core each
// multiprocessor's shared memory feeds half the FMAs) and brackets it with
// conv2d_finish as it does matmul_splitk.
// Grid: (tilesN, tilesM, batch * slices), each clamped to 65535.
// Bindings: 1 = A, 2 = B, 3 = out. Params: matmul_splitk.comp's (p[38] a
// multiple of 8).
// mgc-variant: atomicf features=AtomicFloat32Add defines=MGC_ATOMIC_FLOAT msl=none
#version 450
layout(local_size_x = 8, local_size_y = 8) in;
#define TM 64u
#define TN 64u
#define SPLIT_K
#include "matmul8.glsl"
