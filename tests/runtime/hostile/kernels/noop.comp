#version 450
// A kernel with only the params binding (num_bindings = 0): the shape of
// dispatch that a manifest may describe with no bindings vector at all.
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) buffer Params { uint p[]; };
void main() {
  if (gl_GlobalInvocationID.x > 1000000u) p[0] = 0u;
}
