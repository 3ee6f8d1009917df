// mgrt_vulkan.h with default symbol visibility, as core/api.h is for mgrt.h:
// libmgrt is built with -fvisibility=hidden, so without it libmgrt.so would
// not export the mgrt_*vulkan* entry points (only the static library had them).
#pragma once

#include "runtime/core/api.h"

#pragma GCC visibility push(default)
#include "runtime/include/mgrt_vulkan.h"
#pragma GCC visibility pop
