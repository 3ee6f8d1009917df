// Host-side planning (runtime/core/plan.h) of a known bundle: the numbers
// model load and session creation will give the backend, without a device.
#include <catch2/catch.hpp>

#include "runtime/core/plan.h"
#include "runtime/core/stream_plan.h"
#include "runtime/core/verify.h"
#include "runtime/core/verify_fuzz_entry.h"
#include "tests/runtime/test_bundles.h"

using namespace rt_test;

TEST_CASE("planning lays out params, staging, arenas and bindings", "[runtime][plan]") {
  const uint32_t n = 1000;
  const std::vector<uint8_t> bytes = mgb::writeBundle(addSpec(n));
  const mgrt::DeviceLimits& limits = mgrt::fuzzDeviceLimits(0);  // 256-byte offset alignment
  mgrt::VerifiedBundle vb;
  REQUIRE(mgrt::verifyBundle(bytes.data(), bytes.size(), limits, &vb) == MGRT_OK);
  const mgb::Bundle& b = *vb.manifest;

  const mgrt::ParamsPlan params = mgrt::planParams(b, limits);
  CHECK(params.align == 256);
  REQUIRE(params.offset.size() == 1);
  CHECK(params.offset[0] == std::vector<uint64_t>{0, 256});
  CHECK(params.size == 512);
  std::vector<uint8_t> packed(size_t(params.size), 0);
  mgrt::packParams(b, params, packed.data());
  CHECK(packed[0 + 4] == (n & 0xff));    // dispatch 0: {0.5f, n}
  CHECK(packed[256 + 4] == (n & 0xff));  // dispatch 1 at its aligned slot

  const mgrt::SessionPlan s = mgrt::planSession(vb, 0, params);
  CHECK(s.arenas == std::vector<uint32_t>{1});  // arena 0 is the model's weights
  REQUIRE(s.inputs.size() == 1);
  REQUIRE(s.outputs.size() == 2);
  CHECK(s.inputs[0].name == "a");
  CHECK(s.inputs[0].externalBytes == n * 4);
  CHECK(s.inputs[0].stagingOffset == 0);
  CHECK(s.outputs[0].name == "y2");
  CHECK(s.inputStagingSize == 4000);
  CHECK(s.outputs[0].stagingOffset == 0);  // the outputs' own staging buffer
  CHECK(s.outputs[1].stagingOffset == 4000);  // 16-byte aligned after the first
  CHECK(s.outputStagingSize == 8000);
  REQUIRE(s.dispatches.size() == 2);
  CHECK(s.dispatches[1].params.offset == 256);
  CHECK(s.dispatches[1].params.size == 8);
  REQUIRE(s.dispatches[1].bindings.size() == 3);
  CHECK(s.dispatches[1].bindings[2].arena == 1);
  CHECK(s.dispatches[1].bindings[2].offset == 2 * 4096);  // y2's slot
  CHECK(s.dispatches[1].groups[0] == (n + 63) / 64);

  CHECK(mgrt::planState(b).tensors.empty());
  CHECK(mgrt::dryRunLoad(bytes.data(), bytes.size(), limits) == MGRT_OK);
}

TEST_CASE("in-stream waits replace barriers only between levels of stream kernels", "[runtime][plan][stream]") {
  const uint32_t n = 1000;
  const mgrt::DeviceLimits& limits = mgrt::fuzzDeviceLimits(1);
  auto plan = [&](bool streamKernel, bool inStream) {
    mgb::BundleSpec spec = addSpec(n);  // add1 → barrier → add2
    spec.kernels[0].stream = streamKernel;
    const std::vector<uint8_t> bytes = mgb::writeBundle(spec);
    mgrt::VerifiedBundle vb;
    REQUIRE(mgrt::verifyBundle(bytes.data(), bytes.size(), limits, &vb) == MGRT_OK);
    const mgrt::ParamsPlan params = mgrt::planParams(*vb.manifest, limits);
    mgrt::SessionPlan s = mgrt::planSession(vb, 0, params);
    mgrt::planStreamWaits(*vb.manifest, inStream, &s);
    return s;
  };
  const uint32_t groups = (n + 63) / 64;

  mgrt::SessionPlan s = plan(false, true);  // no stream kernel: nothing changes
  CHECK(s.streamSlots == 0);
  REQUIRE(s.dispatches.size() == 2);
  CHECK(s.dispatches[1].barrier);

  s = plan(true, false);  // stream kernels, a device without StreamSync: no waits, no signals
  CHECK(s.streamSlots == 3);  // two levels, then the timeout flag
  CHECK(s.dispatches[1].barrier);
  for (const mgrt::DispatchPlan& d : s.dispatches) {
    CHECK(d.stream[1] == 0);
    CHECK(d.stream[2] == mgrt::kNoSignal);
    CHECK(d.stream[3] == 2);
  }

  s = plan(true, true);  // the barrier goes: add1 signals level 0, add2 waits for its workgroups
  CHECK(s.streamSlots == 3);
  CHECK_FALSE(s.dispatches[1].barrier);
  CHECK(s.dispatches[0].stream[1] == 0);
  CHECK(s.dispatches[0].stream[2] == 0);
  CHECK(s.dispatches[1].stream[0] == 0);
  CHECK(s.dispatches[1].stream[1] == groups);
  CHECK(s.dispatches[1].stream[2] == mgrt::kNoSignal);
}
