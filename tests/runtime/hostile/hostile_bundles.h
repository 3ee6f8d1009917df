// Hand-built bundles for the trust-check tests: a minimal SPIR-V module
// that passes the runtime's structural walk, and manifests built directly
// with FlatBuffers so that optional vectors can be left out entirely
// (the bundle writer always writes them).
#pragma once

#include <cstdint>
#include <vector>

namespace hostile {

// Header (version word `version`), OpCapability Shader, `extra` words
// (whole instructions), OpMemoryModel, OpEntryPoint GLCompute "main",
// LocalSize 1 1 1. Structurally valid, not a runnable shader.
std::vector<uint32_t> fakeSpirv(uint32_t version = 0x00010000, const std::vector<uint32_t>& extra = {});

// The compiled tests/runtime/hostile/kernels/noop.comp (params binding only, 1x1x1).
std::vector<uint32_t> noopSpirv();

// One kernel (num_bindings 0, local size 1x1x1), an empty weights arena, a
// 256-byte activations arena holding f32[4] "x", and entry point "infer"
// (input x, output x) with one dispatch of 1x1x1 groups. With
// `omitBindings` the dispatch has no bindings vector at all; `stream` marks
// the kernel as taking part in in-stream waits (mgb.fbs Kernel.stream).
std::vector<uint8_t> oneKernelBundle(const std::vector<uint32_t>& spirv, bool omitBindings,
                                     uint64_t activationBytes = 256, bool stream = false);

}  // namespace hostile
