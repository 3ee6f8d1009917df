// Bundle verification: every byte the runtime relies on is checked here,
// before any GPU object exists. Failures name what is wrong.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "formats/mgb_generated.h"
#include "runtime/core/api.h"
#include "runtime/core/limits.h"

namespace mgrt {

struct VerifiedBundle {
  // The manifest is copied out of the file (8-byte aligned, and so that the
  // file's bytes need not outlive the load); `manifest` points into the copy.
  std::vector<uint64_t> manifestBytes;
  const mgb::Bundle* manifest = nullptr;
  // Into the file's bytes, which only the load keeps alive (null after it):
  const uint8_t* weights = nullptr;  // initial contents of arena 0
  uint64_t weightsSize = 0;          // = arena 0's size
  // The file's whole data section: arena 0's bytes, then the initial bytes
  // of State arenas (Arena.init_offset/init_size index into it).
  const uint8_t* data = nullptr;
  uint64_t dataSize = 0;
  // The variant of each kernel this device runs (index into
  // Kernel.variants), chosen during verification (variant_select.cpp).
  std::vector<uint32_t> variant;
};

// The whole check: header, FlatBuffer, semantics, device limits, memory.
mgrt_status verifyBundle(const uint8_t* data, size_t size, const DeviceLimits& limits,
                         VerifiedBundle* out);

// Semantic checks of a structurally valid manifest (verify_manifest.cpp),
// including the choice of each kernel's variant for this device.
mgrt_status verifyManifest(const mgb::Bundle& b, uint64_t weightsSize, const DeviceLimits& limits,
                           std::vector<uint32_t>* variants);

// The self-check section, if any (verify_check.cpp): an existing entry point
// that binds no State arena, one data vector of the right size per input and
// output, a finite tolerance >= 0. Called by verifyManifest last.
mgrt_status verifyCheck(const mgb::Bundle& b);
// The entry point a verified bundle's check runs, or null when it has none.
const mgb::EntryPoint* checkEntryPoint(const mgb::Bundle& b);

// Structural checks of one SPIR-V module (spirv_check.cpp): header, every
// instruction's length, a GLCompute entry point "main", a LocalSize
// execution mode (if present) equal to the manifest's local_size, and only
// the capabilities and extensions that `features` (mgb::Feature bits the
// variant declares) allow.
mgrt_status checkSpirv(const uint32_t* words, size_t count, const uint32_t localSize[3], uint32_t features,
                       const std::string& what);
// Workgroup (shared) memory a module declares, summed from its Workgroup
// variables (spirv_check.cpp). Only for a module checkSpirv accepted.
uint64_t workgroupBytes(const uint32_t* words, size_t count);

// The module's resources against the runtime's pipeline layout
// (spirv_interface.cpp): descriptor set 0 only, bindings 0..numBindings,
// only storage classes a storage-buffer compute kernel needs; a stream
// kernel (mgb.fbs Kernel.stream) also set 1's binding 0 and push constants.
mgrt_status checkSpirvInterface(const uint32_t* words, size_t count, uint32_t numBindings, bool stream,
                                const std::string& what);

// Element count of a shape; false on a negative dimension or if numel * 8
// bytes would overflow 64 bits.
bool shapeNumel(const flatbuffers::Vector<int64_t>* shape, uint64_t* out);

// Bytes the params buffer of a model needs: every dispatch's params, each
// at an offset aligned to `align`, empty params taking 16 bytes.
uint64_t paramsBufferSize(const mgb::Bundle& b, uint64_t align);
uint64_t paramsSlotSize(const mgb::Dispatch& d, uint64_t align);

// "dispatch 3 (node 'conv1')" style labels for messages.
std::string label(const char* kind, size_t index, const flatbuffers::String* name);

}  // namespace mgrt
