// The backend interface (runtime/core/backend.h) used directly, as core
// uses it: capabilities, buffers, a pipeline from one kernel's SPIR-V, a
// recorded list of copies and dispatches replayed twice, timestamps. Written
// against Backend only, so every backend can run it.
#include <algorithm>
#include <catch2/catch.hpp>

#include "formats/mgb_generated.h"
#include <cstring>
#include <vector>

#include "runtime/core/objects.h"
#include "runtime/core/status.h"
#include "tests/runtime/test_bundles.h"

using namespace rt_test;

namespace {

mgrt::Backend* backend() { return context()->backend.get(); }

mgrt::Buffer* makeBuffer(uint64_t size, mgrt::MemoryUse use) {
  mgrt::Buffer* b = nullptr;
  const mgrt_status s = backend()->createBuffer(size, use, "test buffer", &b);
  INFO(mgrt::lastError());
  REQUIRE(s == MGRT_OK);
  REQUIRE(b != nullptr);
  return b;
}

std::vector<float> download(mgrt::Buffer* b, uint64_t offset, size_t n) {
  std::vector<float> out(n, -1.0f);
  REQUIRE(backend()->download({{b, offset, out.data(), n * 4}}, "test download") == MGRT_OK);
  return out;
}

}  // namespace

TEST_CASE("backend capabilities are plain, consistent data", "[runtime][backend]") {
  const mgrt::DeviceCaps& caps = backend()->caps();
  CHECK(caps.name == mgrt_context_device_name(context()));
  CHECK(caps.limits.maxSharedMemory >= 16384);  // Vulkan's required minimum
  CHECK(caps.limits.maxWorkGroupInvocations >= 128);
  CHECK(caps.limits.minStorageBufferOffsetAlignment >= 1);
  const uint32_t sub = caps.limits.subgroupSize;
  if (sub) {
    CHECK((sub & (sub - 1)) == 0);  // a power of two
    CHECK(caps.minSubgroupSize <= sub);
    CHECK(sub <= caps.maxSubgroupSize);
  }
  CHECK((caps.limits.features & ~uint32_t(mgb::Feature::ANY)) == 0);
}

TEST_CASE("backend buffers: upload at an offset, download, zero, staging stays mapped", "[runtime][backend]") {
  mgrt::Backend* be = backend();
  const int before = be->validationMessages();
  mgrt::Buffer* dev = makeBuffer(1024, mgrt::MemoryUse::DeviceLocal);
  mgrt::Buffer* staging = makeBuffer(64, mgrt::MemoryUse::HostStaging);
  CHECK(be->mapped(dev) == nullptr);
  REQUIRE(be->mapped(staging) != nullptr);

  const std::vector<float> data = {1.5f, -2.0f, 3.25f, 4.0f, 1e-3f};
  REQUIRE(be->upload({{dev, 256, data.data(), data.size() * 4}}, "test upload") == MGRT_OK);
  CHECK(download(dev, 256, data.size()) == data);
  REQUIRE(be->zero({dev}, "test zero") == MGRT_OK);
  CHECK(download(dev, 256, data.size()) == std::vector<float>(data.size(), 0.0f));

  std::memcpy(be->mapped(staging), data.data(), 8);
  CHECK(std::memcmp(be->mapped(staging), data.data(), 8) == 0);
  be->destroyBuffer(dev);
  be->destroyBuffer(staging);
  be->destroyBuffer(nullptr);  // a no-op, as for every destroy call
  CHECK(be->checkValidation(before, "backend buffer test") == MGRT_OK);
}

TEST_CASE("backend recording: copies and two dispatches with a barrier, replayed", "[runtime][backend]") {
  mgrt::Backend* be = backend();
  const int before = be->validationMessages();
  const uint32_t n = 100;  // two 64-wide workgroups, the second partly idle
  const uint64_t bytes = n * 4, slot = 512;
  const mgb::KernelEntry add = addKernel();
  mgrt::KernelCode code;
  code.spirv = add.variants[0].spirv.data();
  code.spirvWords = add.variants[0].spirv.size();
  code.localSize[0] = 64;
  code.numBindings = add.numBindings;
  mgrt::Pipeline* pipeline = nullptr;
  REQUIRE(be->createPipeline(code, "kernel 0 ('add')", &pipeline) == MGRT_OK);

  // params: two slots of {bias bits, n}; tensors a, b, y1, y2 in one arena.
  const uint64_t align = std::max<uint64_t>(be->caps().limits.minStorageBufferOffsetAlignment, 16);
  std::vector<uint32_t> params(size_t(2 * align / 4), 0);
  params[0] = floatBits(0.5f);
  params[1] = n;
  params[align / 4] = floatBits(1.0f);
  params[align / 4 + 1] = n;
  std::vector<float> b(n);
  for (uint32_t i = 0; i < n; ++i) b[i] = 0.25f * float(i);
  mgrt::Buffer* paramsBuf = makeBuffer(params.size() * 4, mgrt::MemoryUse::DeviceLocal);
  mgrt::Buffer* arena = makeBuffer(4 * slot, mgrt::MemoryUse::DeviceLocal);
  mgrt::Buffer* staging = makeBuffer(2 * slot, mgrt::MemoryUse::HostStaging);
  REQUIRE(be->upload({{paramsBuf, 0, params.data(), params.size() * 4}, {arena, slot, b.data(), bytes}}, "test") ==
          MGRT_OK);

  mgrt::WorkList work;
  work.inputCopies.push_back({{staging, 0, bytes}, arena, 0});  // a
  mgrt::RecordedDispatch d1;
  d1.pipeline = pipeline;
  d1.params = {paramsBuf, 0, 8};
  d1.bindings = {{arena, 0, bytes}, {arena, slot, bytes}, {arena, 2 * slot, bytes}};  // y1 = a + b + 0.5
  d1.groups[0] = 2;
  mgrt::RecordedDispatch d2 = d1;
  d2.params = {paramsBuf, align, 8};
  d2.bindings = {{arena, 2 * slot, bytes}, {arena, slot, bytes}, {arena, 3 * slot, bytes}};  // y2 = y1 + b + 1
  work.dispatches = {d1, d2};
  work.outputCopies.push_back({{arena, 3 * slot, bytes}, staging, slot});
  mgrt::Recording* rec = nullptr;
  REQUIRE(be->record(work, &rec) == MGRT_OK);
  CHECK(be->gpuMilliseconds(rec) < 0);  // nothing ran yet

  // Where the device has timelines, each run signals the next value and
  // waits for the one before (already reached: it cannot hang).
  mgrt::Timeline* timeline = nullptr;
  if (be->caps().timelines) REQUIRE(be->createTimeline("test timeline", &timeline) == MGRT_OK);
  mgrt::SubmitSync sync;
  sync.wait = sync.signal = timeline;
  sync.waitValue = 0;  // where a timeline starts
  sync.signalValue = 1;

  float* host = static_cast<float*>(be->mapped(staging));
  for (float scale : {1.0f, -3.0f}) {  // a replay sees new inputs
    for (uint32_t i = 0; i < n; ++i) host[i] = scale * float(i);
    REQUIRE(be->submit(rec, sync, "test run") == MGRT_OK);
    sync.waitValue = sync.signalValue++;
    REQUIRE(be->wait(rec, "test run") == MGRT_OK);
    for (uint32_t i = 0; i < n; ++i) {
      INFO("scale " << scale << " i " << i);
      CHECK(host[slot / 4 + i] == scale * float(i) + 2.0f * b[i] + 1.5f);
    }
    if (be->caps().timestamps) CHECK(be->gpuMilliseconds(rec) >= 0);
  }
  be->destroyRecording(rec);
  be->destroyTimeline(timeline);
  be->destroyPipeline(pipeline);
  for (mgrt::Buffer* buf : {paramsBuf, arena, staging}) be->destroyBuffer(buf);
  CHECK(be->checkValidation(before, "backend recording test") == MGRT_OK);
}
