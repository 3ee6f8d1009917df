// Test kernel with two variants over one binding layout (built twice by
// tests/runtime/CMakeLists.txt): y[i] = float(w[i]) for i < params[0],
// where w holds IEEE halves.
//   -DSTORAGE16: reads float16_t directly (needs 16-bit storage).
//   otherwise:   reads the halves packed in uints (any device).
#version 450
#ifdef STORAGE16
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : enable
#endif
layout(local_size_x = 64, local_size_y = 1, local_size_z = 1) in;

layout(set = 0, binding = 0) readonly buffer Params { uint params[]; };
#ifdef STORAGE16
layout(set = 0, binding = 1) readonly buffer W { float16_t w[]; };
#else
layout(set = 0, binding = 1) readonly buffer W { uint w[]; };
#endif
layout(set = 0, binding = 2) writeonly buffer Y { float y[]; };

void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i >= min(params[0], uint(y.length()))) return;
#ifdef STORAGE16
  y[i] = float(w[i]);
#else
  y[i] = unpackHalf2x16(w[i / 2])[i % 2];
#endif
}
