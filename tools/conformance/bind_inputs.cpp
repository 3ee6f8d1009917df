#include "tools/conformance/bind_inputs.h"

#include <algorithm>
#include <fstream>
#include <map>
#include <regex>
#include <set>

#include "onnx/onnx_pb.h"

namespace mgc::conformance {

std::vector<std::string> inputsThatMustBeConstant(const std::string& message) {
  // NodeContext::constInput's wording: "<what> (input '<name>') must be a constant".
  static const std::regex re(R"(\(input '([^']+)'\) must be a constant)");
  std::vector<std::string> names;
  for (auto it = std::sregex_iterator(message.begin(), message.end(), re); it != std::sregex_iterator(); ++it) {
    std::string name = (*it)[1].str();
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  }
  return names;
}

namespace {

// The graph inputs that `names` are computed from: a name that is a graph
// input stands for itself; a node output stands for the graph inputs its
// producers read, transitively (e.g. a Range limit computed from a size
// input); initializers are constants already. A name nothing produces is
// kept, so that the caller reports it.
std::set<std::string> graphInputsBehind(const onnx::GraphProto& g, const std::set<std::string>& initializers,
                                        const std::vector<std::string>& names) {
  std::map<std::string, const onnx::NodeProto*> producer;
  for (const auto& n : g.node())
    for (const std::string& o : n.output()) producer[o] = &n;
  std::set<std::string> inputs, seen;
  for (const auto& in : g.input()) inputs.insert(in.name());
  std::set<std::string> found;
  std::vector<std::string> work(names.begin(), names.end());
  while (!work.empty()) {
    const std::string name = work.back();
    work.pop_back();
    if (name.empty() || initializers.count(name) || !seen.insert(name).second) continue;
    auto it = producer.find(name);
    if (inputs.count(name) || it == producer.end()) {
      found.insert(name);
      continue;
    }
    for (const std::string& i : it->second->input()) work.push_back(i);
  }
  return found;
}

}  // namespace

bool bindInputs(const std::string& modelPath, const std::vector<std::string>& names, const std::string& dataDir,
                const std::string& outPath, std::string* err) {
  onnx::ModelProto model;
  {
    std::ifstream f(modelPath, std::ios::binary);
    if (!f || !model.ParseFromIstream(&f)) {
      *err = "cannot parse " + modelPath;
      return false;
    }
  }
  onnx::GraphProto* g = model.mutable_graph();
  std::set<std::string> initializers;
  for (const auto& init : g->initializer()) initializers.insert(init.name());
  std::set<std::string> pending = graphInputsBehind(*g, initializers, names);
  google::protobuf::RepeatedPtrField<onnx::ValueInfoProto> kept;
  int position = 0;  // among non-initializer inputs: input_<position>.pb
  for (const auto& in : g->input()) {
    if (initializers.count(in.name())) {
      *kept.Add() = in;
      continue;
    }
    const int k = position++;
    if (!pending.erase(in.name())) {
      *kept.Add() = in;
      continue;
    }
    const std::string path = dataDir + "/input_" + std::to_string(k) + ".pb";
    std::ifstream f(path, std::ios::binary);
    onnx::TensorProto* t = g->add_initializer();
    if (!f || !t->ParseFromIstream(&f)) {
      *err = "input '" + in.name() + "' has no test data (" + path + ")";
      return false;
    }
    t->set_name(in.name());
  }
  if (!pending.empty()) {
    *err = "'" + *pending.begin() + "' is not a graph input";
    return false;
  }
  g->mutable_input()->Swap(&kept);
  std::ofstream out(outPath, std::ios::binary | std::ios::trunc);
  if (!out || !model.SerializeToOstream(&out)) {
    *err = "cannot write " + outPath;
    return false;
  }
  return true;
}

}  // namespace mgc::conformance
