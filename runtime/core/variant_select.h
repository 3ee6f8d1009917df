// Kernel variants: which one this device runs, and the grid it needs.
#pragma once

#include <cstdint>
#include <string>

#include "formats/mgb_generated.h"
#include "runtime/core/api.h"
#include "runtime/core/limits.h"

namespace mgrt {

// The first variant of `k` (structurally verified) this device can run:
// its features enabled, its subgroup size (if any) the device's, its
// workgroup memory, local size and SPIR-V version within the device's
// limits, its cooperative matrix shape supported. MGRT_UNSUPPORTED naming
// what each variant lacks if none fits. `where` labels the kernel.
mgrt_status chooseVariant(const mgb::Kernel& k, const std::string& where, const DeviceLimits& lim,
                          uint32_t* chosen);

// The workgroup grid of dispatch `d` when it runs variant `variant` of `k`:
// derived from the variant's local size for item dispatches (d.items > 0,
// formats/grid.h), else d.groups. `d.groups` must have 3 entries.
mgrt_status dispatchGroups(const mgb::Kernel& k, uint32_t variant, const mgb::Dispatch& d,
                           const std::string& where, uint32_t groups[3]);

}  // namespace mgrt
