#include "kernels/specialize.h"

#include <algorithm>
#include <map>
#include <string>

#include "ir/types.h"

namespace mgc::kern {

namespace {

constexpr uint32_t kOpSpecConstantTrue = 48, kOpSpecConstantFalse = 49, kOpSpecConstant = 50, kOpDecorate = 71;
constexpr uint32_t kDecorationSpecId = 1;
constexpr size_t kHeaderWords = 5;

// Calls f(offset, opcode, wordCount) for each instruction of the module.
template <class F>
void forEachInstruction(const uint32_t* spirv, size_t words, F f) {
  if (words < kHeaderWords || spirv[0] != 0x07230203u) throw Error("kernel specialization: not a SPIR-V module");
  for (size_t i = kHeaderWords; i < words;) {
    const uint32_t count = spirv[i] >> 16, opcode = spirv[i] & 0xffffu;
    if (count == 0 || i + count > words) throw Error("kernel specialization: malformed SPIR-V instruction");
    f(i, opcode, count);
    i += count;
  }
}

// Result id → SpecId, from the module's SpecId decorations.
std::map<uint32_t, uint32_t> specIdsByResult(const uint32_t* spirv, size_t words) {
  std::map<uint32_t, uint32_t> ids;
  forEachInstruction(spirv, words, [&](size_t i, uint32_t op, uint32_t count) {
    if (op == kOpDecorate && count == 4 && spirv[i + 2] == kDecorationSpecId) ids[spirv[i + 1]] = spirv[i + 3];
  });
  return ids;
}

}  // namespace

std::vector<uint32_t> paramSpecIds(const uint32_t* spirv, size_t words) {
  std::vector<uint32_t> out;
  bool flagged = false;
  for (const auto& [result, id] : specIdsByResult(spirv, words)) {
    if (id == kSpecializedId) flagged = true;
    else if (id < kSpecializedId) out.push_back(id);
  }
  if (!flagged) return {};
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<uint32_t> specializeSpirv(const uint32_t* spirv, size_t words, const std::vector<uint32_t>& params) {
  const std::map<uint32_t, uint32_t> ids = specIdsByResult(spirv, words);
  std::vector<uint32_t> out(spirv, spirv + words);
  forEachInstruction(spirv, words, [&](size_t i, uint32_t op, uint32_t count) {
    if ((op != kOpSpecConstant && op != kOpSpecConstantTrue && op != kOpSpecConstantFalse) || count < 3) return;
    auto it = ids.find(spirv[i + 2]);
    if (it == ids.end()) return;
    const uint32_t id = it->second;
    if (id == kSpecializedId) {
      if (op == kOpSpecConstant) throw Error("kernel specialization: the flag (SpecId 2000) is not a bool");
      out[i] = (count << 16) | kOpSpecConstantTrue;
      return;
    }
    if (id >= params.size()) return;
    if (op == kOpSpecConstant) {
      // A 32-bit scalar has one literal word; a wider one would need two.
      if (count != 4) throw Error("kernel specialization: SpecId " + std::to_string(id) + " is not a 32-bit scalar");
      out[i + 3] = params[id];
    } else {
      out[i] = (count << 16) | (params[id] != 0 ? kOpSpecConstantTrue : kOpSpecConstantFalse);
    }
  });
  return out;
}

}  // namespace mgc::kern
