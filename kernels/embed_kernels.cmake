# Generates kernels_embedded.cpp (kernels/registry.h) from the compiled
# kernels: KDIR/<name>[.<tag>].spv, .msl, .json (spirv-cross --reflect), one
# set per variant declared in SRCDIR/<name>.comp (see CMakeLists.txt).
# Run as: cmake -DKDIR=... -DSRCDIR=... -DNAMES=a,b,c -DOUT=... -P embed_kernels.cmake
string(REPLACE "," ";" names "${NAMES}")
list(SORT names)  # findKernel binary-searches by name

# mgb.fbs Feature bits.
set(FEATURE_Float16 1)
set(FEATURE_Int8 2)
set(FEATURE_Storage16 4)
set(FEATURE_Storage8 8)
set(FEATURE_BFloat16 16)
set(FEATURE_Subgroup 32)
set(FEATURE_CooperativeMatrixNV 64)
set(FEATURE_CooperativeMatrixKHR 128)
set(FEATURE_AtomicFloat32Add 256)
set(FEATURE_StreamSync 512)

# Reads module `base` (KDIR/base.*), checks the kernel ABI, appends its
# arrays to `body` and sets `tensorBindings` and `entry` (a variant row).
macro(embed_module base id tag features subgroup coop)
  file(READ ${KDIR}/${base}.json json)
  foreach(k 0 1 2)
    string(JSON ls${k} GET "${json}" entryPoints 0 workgroup_size ${k})
  endforeach()
  # Specialization constants only as kernels/specialize.h defines them: a
  # bool flag with SpecId 2000, the others mirroring params words.
  # specIds: the ids below the flag, ascending (kernels/registry.h).
  set(specIds)
  string(JSON nspec ERROR_VARIABLE noSpec LENGTH "${json}" specialization_constants)
  if(NOT noSpec AND nspec GREATER 0)
    set(flagged FALSE)
    math(EXPR lastSpec "${nspec} - 1")
    foreach(i RANGE ${lastSpec})
      string(JSON sid GET "${json}" specialization_constants ${i} id)
      if(sid EQUAL 2000)
        set(flagged TRUE)
      else()
        list(APPEND specIds ${sid})
      endif()
    endforeach()
    list(SORT specIds COMPARE NATURAL)
    if(NOT flagged)
      message(FATAL_ERROR "kernel ${base}: specialization constants without the flag of SpecId 2000 (kernels/specialize.h)")
    endif()
  endif()
  foreach(forbidden ubos textures images)
    string(JSON unused ERROR_VARIABLE absent GET "${json}" ${forbidden})
    if(NOT absent)
      message(FATAL_ERROR "kernel ${base}: uses ${forbidden}; the kernel ABI allows storage buffers only")
    endif()
  endforeach()
  # In-stream waits (stream_sync.glsl): a push-constant block and the
  # runtime's counters at set 1, binding 0 come together; nothing else may
  # use either (optimized modules carry no names to check).
  string(JSON unused ERROR_VARIABLE noPush GET "${json}" push_constants)
  set(stream FALSE)
  string(JSON nssbo LENGTH "${json}" ssbos)
  set(bindings)
  math(EXPR last "${nssbo} - 1")
  foreach(i RANGE ${last})
    string(JSON set GET "${json}" ssbos ${i} set)
    string(JSON binding GET "${json}" ssbos ${i} binding)
    if(set EQUAL 1 AND binding EQUAL 0 AND NOT noPush)
      set(stream TRUE)
      continue()
    endif()
    if(NOT set EQUAL 0)
      message(FATAL_ERROR "kernel ${base}: a buffer in descriptor set ${set}; only set 0 is allowed "
                          "(and set 1, binding 0 for stream_sync.glsl's counters)")
    endif()
    list(APPEND bindings ${binding})
  endforeach()
  if(NOT noPush AND NOT stream)
    message(FATAL_ERROR "kernel ${base}: uses push constants without stream_sync.glsl's counters; "
                        "the kernel ABI allows storage buffers only")
  endif()
  list(LENGTH bindings nTensorSsbo)
  math(EXPR tensorBindings "${nTensorSsbo} - 1")
  foreach(b RANGE ${tensorBindings})
    list(FIND bindings ${b} found)
    if(found EQUAL -1)
      message(FATAL_ERROR "kernel ${base}: binding ${b} is missing (declared but unused buffers are stripped); "
                          "bindings must be 0..n without gaps")
    endif()
  endforeach()

  file(READ ${KDIR}/${base}.spv spv HEX)
  string(LENGTH "${spv}" hexLen)
  math(EXPR words "${hexLen} / 8")
  string(REGEX REPLACE "([0-9a-f][0-9a-f])([0-9a-f][0-9a-f])([0-9a-f][0-9a-f])([0-9a-f][0-9a-f])"
         "0x\\4\\3\\2\\1u," spv "${spv}")
  file(READ ${KDIR}/${base}.msl msl HEX)
  string(REGEX REPLACE "([0-9a-f][0-9a-f])" "'\\\\x\\1'," msl "${msl}")
  string(APPEND body "static const uint32_t k_${id}_spirv[] = {${spv}};\n")
  string(APPEND body "static const char k_${id}_msl[] = {${msl}'\\0'};\n")
  set(entry "{\"${tag}\", k_${id}_spirv, ${words}, k_${id}_msl, {${ls0}, ${ls1}, ${ls2}}, ${features}u, ${subgroup}u, {${coop}}}")
endmacro()

set(body "")
set(table "")
foreach(name ${names})
  set(rows "")
  set(count 0)
  file(STRINGS ${SRCDIR}/${name}.comp variantLines REGEX "^// mgc-variant: ")
  foreach(line ${variantLines})
    string(REGEX MATCH "^// mgc-variant: ([A-Za-z0-9_]+)" _ "${line}")
    set(tag ${CMAKE_MATCH_1})
    set(features 0)
    if(line MATCHES " features=([A-Za-z0-9,]+)")
      string(REPLACE "," ";" featureList "${CMAKE_MATCH_1}")
      foreach(f ${featureList})
        if(NOT DEFINED FEATURE_${f})
          message(FATAL_ERROR "kernel ${name} variant ${tag}: unknown feature '${f}' (see formats/mgb.fbs Feature)")
        endif()
        math(EXPR features "${features} | ${FEATURE_${f}}")
      endforeach()
    endif()
    set(subgroup 0)
    if(line MATCHES " subgroup=([0-9]+)")
      set(subgroup ${CMAKE_MATCH_1})
    endif()
    set(coop "0, 0, 0")
    if(line MATCHES " coop=([0-9]+)x([0-9]+)x([0-9]+)")
      set(coop "${CMAKE_MATCH_1}, ${CMAKE_MATCH_2}, ${CMAKE_MATCH_3}")
    endif()
    embed_module(${name}.${tag} ${name}_${tag} ${tag} ${features} ${subgroup} "${coop}")
    string(APPEND rows "    ${entry},\n")
    list(APPEND variantLayouts "${tensorBindings}/${stream}")
    math(EXPR count "${count} + 1")
  endforeach()
  embed_module(${name} ${name} portable 0 0 "0, 0, 0")
  string(APPEND rows "    ${entry},\n")
  if(stream)
    set(streamArg true)
  else()
    set(streamArg false)
  endif()
  list(LENGTH specIds specCount)
  if(specCount GREATER 0)
    string(REPLACE ";" "u, " specList "${specIds}")
    string(APPEND body "static const uint32_t k_${name}_spec_ids[] = {${specList}u};\n")
    set(specArg "k_${name}_spec_ids, ${specCount}")
  else()
    set(specArg "nullptr, 0")
  endif()
  math(EXPR count "${count} + 1")
  foreach(layout ${variantLayouts})
    if(NOT layout STREQUAL "${tensorBindings}/${stream}")
      message(FATAL_ERROR "kernel ${name}: its variants differ in their bindings or in taking part in in-stream "
                          "waits; they must share one layout")
    endif()
  endforeach()
  set(variantLayouts)
  string(APPEND body "static const KernelVariantBinary k_${name}_variants[] = {\n${rows}};\n")
  string(APPEND table "    {\"${name}\", ${tensorBindings}, k_${name}_variants, ${count}, ${specArg}, ${streamArg}},\n")
endforeach()

file(WRITE ${OUT} "// Generated by kernels/embed_kernels.cmake: do not edit.
#include <algorithm>

#include \"kernels/registry.h\"

namespace mgc {
namespace {

${body}
const KernelBinary kKernels[] = {
${table}};

}  // namespace

const KernelBinary* findKernel(std::string_view name) {
  const KernelBinary* end = kKernels + kernelCount();
  const KernelBinary* it = std::lower_bound(kKernels, end, name,
      [](const KernelBinary& k, std::string_view n) { return std::string_view(k.name) < n; });
  return it != end && std::string_view(it->name) == name ? it : nullptr;
}

size_t kernelCount() { return sizeof(kKernels) / sizeof(kKernels[0]); }

const KernelBinary& kernelAt(size_t i) { return kKernels[i]; }

}  // namespace mgc
")
