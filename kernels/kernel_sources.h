// The GLSL sources the compiler builds kernels from at compile time
// (kernels/program_codegen.h): the kernels whose elementwise program it
// generates and every include under kernels/src, embedded when mgc is
// built (kernels/embed_sources.cmake).
#pragma once

#include <optional>
#include <string_view>

namespace mgc::kern {

// The text of kernels/src/NAME (e.g. "eltwise.comp", "math.glsl").
std::optional<std::string_view> kernelSourceFile(std::string_view name);

}  // namespace mgc::kern
