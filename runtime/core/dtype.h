// External dtype ↔ device dtype, on top of the shared table
// (formats/dtype.h). A tensor's device dtype is what its arena holds: the
// compiler stores floats as f32 and integers and bools as i32 today, and a
// bundle may store a float tensor as f16 / bf16 or any tensor as its own
// type (formats/dtype.h canStoreOnDevice); the runtime converts at set/get.
#pragma once

#include <cstddef>
#include <cstdint>

#include "formats/dtype.h"
#include "formats/mgb_generated.h"
#include "runtime/core/api.h"

namespace mgrt {

// mgrt.h stays a self-contained C header: its numbering is checked here.
#define MGRT_SAME_DTYPE(c, x) \
  static_assert(int(c) == int(mgb::dtype::DType::x), "mgrt_dtype " #c " differs from formats/dtype.h")
MGRT_SAME_DTYPE(MGRT_F32, F32);
MGRT_SAME_DTYPE(MGRT_F16, F16);
MGRT_SAME_DTYPE(MGRT_F64, F64);
MGRT_SAME_DTYPE(MGRT_I64, I64);
MGRT_SAME_DTYPE(MGRT_I32, I32);
MGRT_SAME_DTYPE(MGRT_I8, I8);
MGRT_SAME_DTYPE(MGRT_U8, U8);
MGRT_SAME_DTYPE(MGRT_BOOL, Bool);
MGRT_SAME_DTYPE(MGRT_BF16, BF16);
MGRT_SAME_DTYPE(MGRT_I16, I16);
MGRT_SAME_DTYPE(MGRT_U16, U16);
MGRT_SAME_DTYPE(MGRT_U32, U32);
MGRT_SAME_DTYPE(MGRT_U64, U64);
#undef MGRT_SAME_DTYPE
static_assert(mgb::dtype::kCount == 13, "a new dtype needs its mgrt_dtype value in mgrt.h");

inline mgb::dtype::DType shared(mgb::DType t) { return mgb::dtype::DType(uint8_t(t)); }

bool isValidDType(mgb::DType t);
size_t externalElementSize(mgb::DType t);
// Bytes per element in an arena.
size_t deviceElementSize(mgb::DType dev);
// The compiler's choice: F32 for float types, I32 for integer and bool types.
mgb::DType deviceDTypeFor(mgb::DType t);
// Whether a verified bundle may store `ext` as `dev` (both valid).
bool canStoreOnDevice(mgb::DType ext, mgb::DType dev);
const char* dtypeName(mgb::DType t);

// src holds numel elements of `ext`, dst numel elements of `dev` (any
// alignment; canStoreOnDevice(ext, dev)). Fails with MGRT_INVALID_ARGUMENT
// naming `tensor` when an integer does not fit the device's integer type.
// Floats round to nearest even (f64 through f32).
mgrt_status toDevice(mgb::DType ext, mgb::DType dev, const void* src, uint64_t numel, void* dst,
                     const char* tensor);
// Narrowing to i8/u8 wraps like a C cast; bool is (value != 0).
void fromDevice(mgb::DType ext, mgb::DType dev, const void* src, uint64_t numel, void* dst);

using mgb::dtype::floatToHalf;
using mgb::dtype::halfToFloat;

}  // namespace mgrt
