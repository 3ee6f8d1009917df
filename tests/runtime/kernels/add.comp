// Test kernel in the mgc kernel ABI: binding 0 = params, 1..n = tensors.
//   y[i] = a[i] + b[i] + uintBitsToFloat(params[0])   for i < params[1]
#version 450
layout(local_size_x = 64, local_size_y = 1, local_size_z = 1) in;

layout(set = 0, binding = 0) readonly buffer Params { uint params[]; };
layout(set = 0, binding = 1) readonly buffer A { float a[]; };
layout(set = 0, binding = 2) readonly buffer B { float b[]; };
layout(set = 0, binding = 3) writeonly buffer Y { float y[]; };

void main() {
  uint i = gl_GlobalInvocationID.x;
  // Bounded by the bound ranges too, so a wrong count in params cannot
  // reach outside the tensors.
  uint n = min(params[1], uint(y.length()));
  if (i >= n) return;
  y[i] = a[i] + b[i] + uintBitsToFloat(params[0]);
}
