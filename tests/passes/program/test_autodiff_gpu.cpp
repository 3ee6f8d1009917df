// Gradient check against PyTorch on Vulkan: each fixture's gradient graph
// (outputs = the gradients) goes through compileGraph like any model and
// runs through libmgrt with the validation layer on.
#include <catch2/catch.hpp>

#include "compiler/driver.h"
#include "grad_fixtures.h"
#include "runtime/include/mgrt.h"

using namespace mgc;
using gradtest::Prepared;

namespace {

std::map<std::string, HostTensor> runOnGpu(const Prepared& p, const std::string& label) {
  std::vector<uint8_t> bundle;
  try {
    bundle = compileGraph(p.g, label).bundle;
  } catch (const std::exception& e) {
    FAIL("compile " << label << ": " << e.what());
  }
  static mgrt_context* ctx = [] {
    mgrt_context_options opts{-1, 1, 0};
    mgrt_context* c = nullptr;
    if (mgrt_context_create(&opts, &c) != MGRT_OK) FAIL("no Vulkan device: " << mgrt_last_error());
    return c;
  }();
  auto check = [&](mgrt_status st, const char* what) {
    if (st != MGRT_OK) FAIL(label << ": " << what << ": " << mgrt_last_error());
  };
  mgrt_model* model = nullptr;
  mgrt_session* s = nullptr;
  check(mgrt_model_load(ctx, bundle.data(), bundle.size(), &model), "load");
  check(mgrt_session_create(model, "infer", &s), "session");
  for (const auto& [name, t] : p.inputs) check(mgrt_session_set_input(s, name.c_str(), t.data.data(), t.data.size()), "set_input");
  check(mgrt_session_run(s), "run");
  std::map<std::string, HostTensor> out;
  for (const auto& [name, want] : p.expected) {
    HostTensor got(p.g.type(p.g.find(name)));
    check(mgrt_session_get_output(s, name.c_str(), got.data.data(), got.data.size()), "get_output");
    out[name] = got;
  }
  mgrt_session_destroy(s);
  mgrt_model_destroy(model);
  CHECK(mgrt_context_validation_messages(ctx) == 0);
  return out;
}

}  // namespace

TEST_CASE("gradients compiled and run on Vulkan match PyTorch", "[autodiff][gpu]") {
  gradtest::checkAllCases("gpu", runOnGpu);
}
