// Gradient check against PyTorch on the CPU reference evaluator: each
// fixture (tools/gen_grad_fixtures.py) is differentiated and its gradient
// graph evaluated with evalGraph. test_autodiff_gpu runs the same cases
// compiled, on Vulkan.
#include <catch2/catch.hpp>

#include "ir/eval.h"
#include "grad_fixtures.h"

using namespace mgc;

TEST_CASE("gradients on the CPU reference evaluator match PyTorch", "[autodiff]") {
  gradtest::checkAllCases("cpu", [](const gradtest::Prepared& p, const std::string&) {
    return evalGraph(p.g, p.inputs);
  });
}
