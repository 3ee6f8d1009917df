// Gradient fixtures (tools/gen_grad_fixtures.py, tests/fixtures/grad/):
// loading a case into a differentiated graph, and the error metric. Shared
// by test_autodiff (CPU reference) and test_autodiff_gpu (Vulkan).
#pragma once

#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "ir/graph.h"

namespace mgc::gradtest {

// Error metric per gradient: max|got - want| / max(max|want|, 1e-6), the
// worst absolute error relative to the gradient's scale (elementwise
// relative error blows up on gradients near zero).
constexpr double kTolerance = 1e-4;
double normalizedError(const HostTensor& want, const HostTensor& got);

struct Prepared {
  Graph g;  // outputs: the gradients (and the loss, for loss cases)
  std::map<std::string, HostTensor> inputs;
  std::vector<std::pair<std::string, HostTensor>> expected;  // output name → PyTorch value
};

// Parses the fixture, appends the loss (sum(y * R) or the fixture's
// loss.txt), differentiates with respect to every input with a grad<k>.npy.
Prepared prepare(const std::filesystem::path& dir);

// Every case folder, sorted.
std::vector<std::filesystem::path> fixtureDirs();

// Runs every case through `run`, checks each output against PyTorch,
// prints the worst error per case prefixed by `tag`.
using Runner = std::function<std::map<std::string, HostTensor>(const Prepared&, const std::string& label)>;
void checkAllCases(const char* tag, const Runner& run);

}  // namespace mgc::gradtest
