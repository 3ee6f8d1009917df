// Includes the public header with default symbol visibility: the library is
// built with -fvisibility=hidden, so only the mgrt_* declarations below are
// exported from libmgrt.so.
#pragma once

#pragma GCC visibility push(default)
#include "runtime/include/mgrt.h"
#pragma GCC visibility pop
