// The CPU reference evaluator: exact, slow, simple. Used for constant
// folding and as the test oracle for GPU kernels.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "ir/graph.h"

namespace mgc {

// Evaluates one node on host tensors (one per input; an absent optional
// input is an empty HostTensor with rank-0 type and no data — check
// Node::inputs[k] == kNoValue). Returns one tensor per output, with the
// types inferTypes() gives. Throws mgc::Error naming the node.
std::vector<HostTensor> evalNode(const Graph& g, const Node& n, const std::vector<const HostTensor*>& inputs);

// Runs the whole graph: inputs by graph input name; returns outputs by name.
std::map<std::string, HostTensor> evalGraph(const Graph& g, const std::map<std::string, HostTensor>& inputs);

}  // namespace mgc
