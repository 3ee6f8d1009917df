// Elementwise programs written out as code. eltwise.comp and
// reduce_fused.comp interpret a program of up to 16 instructions word by
// word; a copy specialized to a dispatch (kernels/specialize.h) leaves the
// driver to unroll that loop and fold each step's op switch and register
// indices. NVIDIA's driver did not (H200: an eltwise of 3.2M elements took
// 142 µs, ten times its memory traffic), so for these kernels the compiler
// writes the dispatch's program as straight-line GLSL — programValue(),
// each instruction the expression of its case in eltwise_exec.glsl's
// execute() — and compiles the kernel's source with it (glslang; the
// sources are embedded: kernels/kernel_sources.h). The params keep the
// program, so the generic module and the MSL (Metal) still interpret it.
#pragma once

#include <cstdint>
#include <future>
#include <string>
#include <string_view>
#include <vector>

namespace mgc::kern {

// Whether a copy of `kernel` specialized to `params` is built from
// generated code: the kernel is eltwise or reduce_fused and the params
// hold a program (1..16 instructions).
bool hasGeneratedProgram(std::string_view kernel, const std::vector<uint32_t>& params);

// GLSL of `uint programValue(uint off[EW_MAX_INPUTS])`: loads input k at
// off[k] (k < numInputs), runs the numInstrs instructions at `program`
// (3 words each, eltwise.comp's encoding), returns register outReg.
// Throws mgc::Error on an opcode execute() does not have.
std::string programGlsl(const uint32_t* program, uint32_t numInstrs, uint32_t numInputs, uint32_t outReg);

// GLSL of reduce_fused.comp's walks for its dispatch's params (p[5..16]
// the kept and reduced dims, p[20..115] each input's strides along them):
// walkKept / walkReduced (a linear index → each input's offset, the dims
// and strides as literals, dims of 1 and zero strides left out) and
// stepInnerReduced (i steps along the innermost reduced dim).
std::string reduceWalksGlsl(const std::vector<uint32_t>& params);

// The portable SPIR-V of `kernel` built with the program in `params` (its
// dispatch's params; hasGeneratedProgram). Unoptimized: the driver folds
// the specialization constants the copy then gets. Thread-safe. Throws
// mgc::Error when the GLSL does not compile.
std::vector<uint32_t> generatedProgramSpirv(std::string_view kernel, const std::vector<uint32_t>& params);

// Initializes glslang and builds its built-in tables (~0.1–0.2 s, once per
// process) by generating one small kernel. A process that forks compilers
// calls it first so that every child inherits the tables.
void warmUpCodegen();

// warmUpCodegen() on a background thread, so that it overlaps the import
// and the passes (glslang's own lock orders it before the first kernel).
// Keep the future until the compile is done: its destructor waits.
std::future<void> warmUpCodegenAsync();

}  // namespace mgc::kern
