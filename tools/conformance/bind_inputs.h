// Binding run-time inputs that mgc needs as constants. A backend test may
// feed a shape-like operand (Resize's scales, Reshape's shape ...) as a
// graph input; mgc compiles static shapes only and says "<what> (input 'X')
// must be a constant". The runner then moves X's test_data_set_0 value into
// the model as an initializer and compiles again: the model specialized to
// the values the test runs it with. Results record which inputs were bound.
#pragma once

#include <string>
#include <vector>

namespace mgc::conformance {

// The input names an mgc error message says must be constants, in order,
// without duplicates.
std::vector<std::string> inputsThatMustBeConstant(const std::string& message);

// Writes to outPath the model at modelPath with each of `names` turned
// into an initializer holding
// dataDir/input_<k>.pb, k being its position among the graph's
// non-initializer inputs. A name that a node computes stands for the graph
// inputs it is computed from (a Range limit derived from a size input).
// False (with *err) when a name leads to no graph input or a data file is
// missing.
bool bindInputs(const std::string& modelPath, const std::vector<std::string>& names, const std::string& dataDir,
                const std::string& outPath, std::string* err);

}  // namespace mgc::conformance
