// Kernels specialized to their dispatch's params (docs/bundle-format.md,
// "Kernel ABI"). A kernel may declare specialization constants whose SpecId
// k < kSpecializedId stands for word k of its params, and a bool with
// SpecId kSpecializedId that says whether they are set. The compiler writes
// a copy of the kernel's SPIR-V whose constants' default values are the
// dispatch's words and whose flag is true; the runtime never overrides a
// constant, so the driver compiles the copy with those values folded in
// (eltwise.comp: the program's op switch and register indices disappear).
// The params are still in the dispatch, and the unspecialized module reads
// them, so a copy is only ever an optimization (the MSL stays generic).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace mgc::kern {

inline constexpr uint32_t kSpecializedId = 2000;

// The SpecIds (< kSpecializedId) of a module that declares the
// kSpecializedId flag, ascending; empty when it does not (or has none).
std::vector<uint32_t> paramSpecIds(const uint32_t* spirv, size_t words);

// The module with each mirrored constant's default set to params[SpecId]
// (a bool: params[SpecId] != 0; an id past the params keeps its default)
// and the flag set to true. Throws mgc::Error on a module it cannot walk.
std::vector<uint32_t> specializeSpirv(const uint32_t* spirv, size_t words, const std::vector<uint32_t>& params);

}  // namespace mgc::kern
