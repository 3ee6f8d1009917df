// External dtype ↔ 32-bit device words. Floats (f32/f16/f64) become f32,
// integers and bools become i32; the runtime converts at set/get time.
#pragma once

#include <cstddef>
#include <cstdint>

#include "formats/mgb_generated.h"
#include "runtime/core/api.h"

namespace mgrt {

static_assert(int(MGRT_F32) == int(mgb::DType::F32) && int(MGRT_F16) == int(mgb::DType::F16) &&
                  int(MGRT_F64) == int(mgb::DType::F64) && int(MGRT_I64) == int(mgb::DType::I64) &&
                  int(MGRT_I32) == int(mgb::DType::I32) && int(MGRT_I8) == int(mgb::DType::I8) &&
                  int(MGRT_U8) == int(mgb::DType::U8) && int(MGRT_BOOL) == int(mgb::DType::Bool),
              "mgrt_dtype and mgb::DType must share numbering");

bool isValidDType(mgb::DType t);
size_t externalElementSize(mgb::DType t);
// F32 for float types, I32 for integer and bool types.
mgb::DType deviceDTypeFor(mgb::DType t);
const char* dtypeName(mgb::DType t);

// src holds numel elements of `ext` (any alignment). Fails with
// MGRT_INVALID_ARGUMENT naming `tensor` when an i64 value does not fit i32.
mgrt_status toDevice(mgb::DType ext, const void* src, uint64_t numel, uint32_t* dst,
                     const char* tensor);
// Narrowing to i8/u8 wraps like a C cast; bool is (value != 0).
void fromDevice(mgb::DType ext, const uint32_t* src, uint64_t numel, void* dst);

uint16_t floatToHalf(float f);  // round to nearest even, overflow → inf
float halfToFloat(uint16_t h);

}  // namespace mgrt
