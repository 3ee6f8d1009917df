// A library kernel (kernels/registry.h) as the bundle writer's KernelEntry:
// every variant, in the library's order of preference.
#pragma once

#include "formats/bundle_writer.h"
#include "kernels/registry.h"

namespace mgc {

mgb::KernelEntry kernelEntry(const KernelBinary& kb);

}  // namespace mgc
