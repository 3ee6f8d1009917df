// Names of the mgb.fbs Feature bits, for messages (runtime) and `mgc
// inspect` (compiler). Header-only: both sides include it.
#pragma once

#include <cstdint>
#include <string>

namespace mgb {

inline constexpr const char* kFeatureNames[] = {"Float16", "Int8",     "Storage16",           "Storage8",
                                                "BFloat16", "Subgroup", "CooperativeMatrixNV", "CooperativeMatrixKHR",
                                                "AtomicFloat32Add", "StreamSync"};
inline constexpr uint32_t kKnownFeatures = (1u << (sizeof(kFeatureNames) / sizeof(kFeatureNames[0]))) - 1;

// "Storage16+Float16", "nothing" for 0, unknown bits as "bit N".
inline std::string featureNames(uint32_t bits) {
  if (bits == 0) return "nothing";
  std::string s;
  for (uint32_t i = 0; i < 32; ++i) {
    if (!(bits & (1u << i))) continue;
    if (!s.empty()) s += "+";
    s += i < sizeof(kFeatureNames) / sizeof(kFeatureNames[0]) ? kFeatureNames[i] : "bit " + std::to_string(i);
  }
  return s;
}

}  // namespace mgb
