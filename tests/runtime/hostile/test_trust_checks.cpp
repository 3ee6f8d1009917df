// What the runtime checks before it trusts a bundle, beyond structure:
// feature and version requirements of each kernel, absent optional vectors,
// the device-memory budget, and the GPU-free dry run the fuzzer drives.
#include <catch2/catch.hpp>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "runtime/core/verify_fuzz_entry.h"
#include "runtime/include/mgrt.h"
#include "tests/runtime/hostile/hostile_bundles.h"

using hostile::fakeSpirv;
using hostile::oneKernelBundle;

namespace {

const mgrt::DeviceLimits& minimum() { return mgrt::fuzzDeviceLimits(0); }
const mgrt::DeviceLimits& desktop() { return mgrt::fuzzDeviceLimits(1); }

mgrt_status dryRun(const std::vector<uint8_t>& bytes, const mgrt::DeviceLimits& limits) {
  return mgrt::dryRunLoad(bytes.data(), bytes.size(), limits);
}

bool lastErrorHas(const std::string& needle) {
  const std::string msg = mgrt_last_error();
  if (msg.find(needle) != std::string::npos) return true;
  UNSCOPED_INFO("last error: " << msg);
  return false;
}

// A string literal operand: bytes + NUL, padded to whole words.
std::vector<uint32_t> literal(const std::string& s) {
  std::vector<uint32_t> w((s.size() + 4) / 4, 0);
  std::memcpy(w.data(), s.data(), s.size());
  return w;
}

std::vector<uint32_t> instruction(uint32_t opcode, std::vector<uint32_t> operands) {
  operands.insert(operands.begin(), (uint32_t(operands.size() + 1) << 16) | opcode);
  return operands;
}

}  // namespace

TEST_CASE("a minimal well-formed bundle passes the dry run", "[hostile]") {
  CHECK(dryRun(oneKernelBundle(fakeSpirv(), false), minimum()) == MGRT_OK);
  CHECK(dryRun(oneKernelBundle(fakeSpirv(), false), desktop()) == MGRT_OK);
}

TEST_CASE("kernels that need a device feature are refused", "[hostile]") {
  for (uint32_t capability : {10u /*Float64*/, 11u /*Int64*/, 22u /*Int16*/, 9u /*Float16*/, 6u /*Addresses*/}) {
    INFO("capability " << capability);
    const auto bytes = oneKernelBundle(fakeSpirv(0x00010000, instruction(17, {capability})), false);
    CHECK(dryRun(bytes, desktop()) == MGRT_UNSUPPORTED);
    CHECK(lastErrorHas("capability " + std::to_string(capability)));
  }
  // Matrix is implied by Shader: fine.
  CHECK(dryRun(oneKernelBundle(fakeSpirv(0x00010000, instruction(17, {0})), false), desktop()) == MGRT_OK);
}

TEST_CASE("kernels that need an extension or a foreign instruction set are refused", "[hostile]") {
  auto ext = instruction(10, literal("SPV_KHR_storage_buffer_storage_class"));
  CHECK(dryRun(oneKernelBundle(fakeSpirv(0x00010000, ext), false), desktop()) == MGRT_UNSUPPORTED);
  CHECK(lastErrorHas("OpExtension"));

  std::vector<uint32_t> opencl = {2};
  for (uint32_t w : literal("OpenCL.std")) opencl.push_back(w);
  CHECK(dryRun(oneKernelBundle(fakeSpirv(0x00010000, instruction(11, opencl)), false), desktop()) ==
        MGRT_UNSUPPORTED);
  CHECK(lastErrorHas("GLSL.std.450"));

  std::vector<uint32_t> glsl = {2};
  for (uint32_t w : literal("GLSL.std.450")) glsl.push_back(w);
  CHECK(dryRun(oneKernelBundle(fakeSpirv(0x00010000, instruction(11, glsl)), false), desktop()) == MGRT_OK);
}

TEST_CASE("a SPIR-V version newer than the device accepts is refused", "[hostile]") {
  const auto spv15 = oneKernelBundle(fakeSpirv(0x00010500), false);
  CHECK(dryRun(spv15, minimum()) == MGRT_UNSUPPORTED);  // a Vulkan 1.0 device: SPIR-V 1.0 only
  CHECK(lastErrorHas("SPIR-V version 1.5 is newer than the device accepts (1.0)"));
  CHECK(dryRun(spv15, desktop()) == MGRT_OK);            // Vulkan 1.3: up to 1.6
  CHECK(dryRun(oneKernelBundle(fakeSpirv(0x00010700), false), desktop()) == MGRT_UNSUPPORTED);
}

TEST_CASE("the device-memory budget is refused before anything is allocated", "[hostile]") {
  // 300 MiB of activations on a device whose heap is 256 MiB: the
  // verifier says so; no allocation of that size is ever attempted.
  const auto big = oneKernelBundle(fakeSpirv(), false, uint64_t(300) << 20);
  CHECK(dryRun(big, minimum()) == MGRT_OUT_OF_MEMORY);
  CHECK(lastErrorHas("per allocation"));
  CHECK(dryRun(big, desktop()) == MGRT_OK);
}

TEST_CASE("a dispatch without a bindings vector is planned without reading it", "[hostile]") {
  const auto bytes = oneKernelBundle(fakeSpirv(), /*omitBindings=*/true);
  CHECK(dryRun(bytes, minimum()) == MGRT_OK);
}

TEST_CASE("a dispatch without a bindings vector loads and runs on the device", "[hostile][gpu]") {
  mgrt_context* ctx = nullptr;
  // A device is expected wherever the tests run (lavapipe in CI): without
  // one this case fails rather than passing without having run.
  if (mgrt_context_create(nullptr, &ctx) != MGRT_OK) FAIL("no Vulkan device: " << mgrt_last_error());
  const auto bytes = oneKernelBundle(hostile::noopSpirv(), /*omitBindings=*/true);
  mgrt_model* m = nullptr;
  REQUIRE(mgrt_model_load(ctx, bytes.data(), bytes.size(), &m) == MGRT_OK);
  mgrt_session* s = nullptr;
  REQUIRE(mgrt_session_create(m, "infer", &s) == MGRT_OK);
  const float x[4] = {1, 2, 3, 4};
  float y[4] = {};
  CHECK(mgrt_session_set_input(s, "x", x, sizeof x) == MGRT_OK);
  CHECK(mgrt_session_run(s) == MGRT_OK);
  CHECK(mgrt_session_get_output(s, "x", y, sizeof y) == MGRT_OK);
  CHECK(y[3] == 4.0f);
  mgrt_session_destroy(s);
  mgrt_model_destroy(m);
  CHECK(mgrt_context_validation_messages(ctx) == 0);
  mgrt_context_destroy(ctx);
}

TEST_CASE("every committed bundle seed passes the dry run on a desktop device", "[hostile]") {
  size_t n = 0;
  for (const auto& e : std::filesystem::directory_iterator("tests/fuzz/corpus/bundle")) {
    std::ifstream f(e.path(), std::ios::binary);
    const std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    const mgrt_status s = dryRun(bytes, desktop());
    INFO(e.path().string() << ": " << (s == MGRT_OK ? "" : mgrt_last_error()));
    CHECK(s == MGRT_OK);
    ++n;
  }
  CHECK(n > 0);
}

TEST_CASE("kernels that reach outside the runtime's pipeline layout are refused", "[hostile]") {
  // OpDecorate %3 Binding 1 on a kernel with no tensor bindings (only binding 0 exists).
  auto bytes = oneKernelBundle(fakeSpirv(0x00010000, instruction(71, {3, 33, 1})), false);
  CHECK(dryRun(bytes, desktop()) == MGRT_UNSUPPORTED);
  CHECK(lastErrorHas("uses binding 1 but the kernel declares 0 tensor bindings"));
  CHECK(dryRun(oneKernelBundle(fakeSpirv(0x00010000, instruction(71, {3, 33, 0})), false), desktop()) == MGRT_OK);

  bytes = oneKernelBundle(fakeSpirv(0x00010000, instruction(71, {3, 34, 1})), false);
  CHECK(dryRun(bytes, desktop()) == MGRT_UNSUPPORTED);
  CHECK(lastErrorHas("descriptor set 1"));

  // OpVariable %2 %3 PushConstant: the layout has no push-constant range.
  bytes = oneKernelBundle(fakeSpirv(0x00010000, instruction(59, {2, 3, 9})), false);
  CHECK(dryRun(bytes, desktop()) == MGRT_UNSUPPORTED);
  CHECK(lastErrorHas("storage class 9"));
  // ... and UniformConstant (images, samplers) neither.
  bytes = oneKernelBundle(fakeSpirv(0x00010000, instruction(59, {2, 3, 0})), false);
  CHECK(dryRun(bytes, desktop()) == MGRT_UNSUPPORTED);
}

TEST_CASE("a stream kernel may use push constants and set 1's binding 0, nothing more", "[hostile]") {
  auto stream = [](std::vector<uint32_t> spirv) { return oneKernelBundle(spirv, false, 256, /*stream=*/true); };
  std::vector<uint32_t> counters = instruction(71, {3, 34, 1});  // OpDecorate %3 DescriptorSet 1
  for (uint32_t w : instruction(71, {3, 33, 0})) counters.push_back(w);  // ... Binding 0
  CHECK(dryRun(stream(fakeSpirv(0x00010000, counters)), desktop()) == MGRT_OK);
  CHECK(dryRun(stream(fakeSpirv(0x00010000, instruction(59, {2, 3, 9}))), desktop()) == MGRT_OK);

  std::vector<uint32_t> wrongBinding = instruction(71, {3, 34, 1});
  for (uint32_t w : instruction(71, {3, 33, 2})) wrongBinding.push_back(w);
  CHECK(dryRun(stream(fakeSpirv(0x00010000, wrongBinding)), desktop()) == MGRT_UNSUPPORTED);
  CHECK(lastErrorHas("binding 2 of set 1"));
  CHECK(dryRun(stream(fakeSpirv(0x00010000, instruction(71, {3, 34, 2}))), desktop()) == MGRT_UNSUPPORTED);
  CHECK(lastErrorHas("descriptor set 2"));
  // Images stay refused.
  CHECK(dryRun(stream(fakeSpirv(0x00010000, instruction(59, {2, 3, 0}))), desktop()) == MGRT_UNSUPPORTED);
}
