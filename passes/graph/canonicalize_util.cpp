#include "passes/graph/canonicalize_util.h"

#include <algorithm>

namespace mgc::canon {

const HostTensor* Rewriter::constantOf(ValueId v) const {
  if (v == kNoValue) return nullptr;
  return g.value(v).constant.get();
}

const Node* Rewriter::producerOf(ValueId v) const {
  if (v == kNoValue) return nullptr;
  NodeId p = g.value(v).producer;
  return p < 0 ? nullptr : &g.nodes.at(size_t(p));
}

int Rewriter::uses(ValueId v) {
  if (!usesValid_) {
    uses_ = g.useCounts();
    usesValid_ = true;
  }
  return uses_.at(size_t(v));
}

bool Rewriter::isGraphOutput(ValueId v) const {
  return std::find(g.outputs.begin(), g.outputs.end(), v) != g.outputs.end();
}

void Rewriter::eraseNode(size_t i) {
  g.nodes.erase(g.nodes.begin() + std::ptrdiff_t(i));
  g.rebuildProducers();
  usesValid_ = false;
}

bool Rewriter::forwardValue(size_t i, ValueId from, ValueId to) {
  if (g.type(from) != g.type(to)) return false;
  if (!isGraphOutput(from)) {
    g.replaceAllUses(from, to);
    eraseNode(i);
    return true;
  }
  NodeId p = g.value(to).producer;
  if (p < 0 || uses(to) != 1) return false;
  for (ValueId& out : g.nodes[size_t(p)].outputs)
    if (out == to) out = from;
  eraseNode(i);
  return true;
}

void Rewriter::retargetOntoConsumer(size_t i, size_t consumer) {
  g.nodes[i].outputs[0] = g.nodes[consumer].outputs[0];
  eraseNode(consumer);
}

bool allElementsEqual(const HostTensor& t, double v) {
  if (t.numel() == 0 || t.data.size() != t.type.bytes()) return false;
  for (int64_t k = 0; k < t.numel(); ++k)
    if (t.getF(k) != v) return false;
  return true;
}

std::string foldedName(const std::string& name) {
  static const std::string kSuffix = "_folded";
  bool has = name.size() >= kSuffix.size() && name.compare(name.size() - kSuffix.size(), kSuffix.size(), kSuffix) == 0;
  return has ? name : name + kSuffix;
}

namespace {

// Per-output-channel factors of `k` broadcast against a conv output
// [N,M,H,W]: k's dims, right-aligned, must be 1 except on the channel axis,
// where they may be M.
bool perChannelFactors(const HostTensor& k, int64_t channels, std::vector<double>* factors) {
  int rank = k.type.rank();
  if (rank > 4 || k.data.size() != k.type.bytes()) return false;
  bool onChannel = false;
  for (int d = 0; d < rank; ++d) {
    int64_t dim = k.type.shape[size_t(d)];
    int axis = 4 - rank + d;
    if (dim == 1) continue;
    if (axis != 1 || dim != channels) return false;
    onChannel = true;
  }
  factors->resize(size_t(channels));
  for (int64_t m = 0; m < channels; ++m) (*factors)[size_t(m)] = k.getF(onChannel ? m : 0);
  return true;
}

}  // namespace

bool matchConvConsumer(Rewriter& r, size_t i, Op op, ConvFoldSite* site) {
  const Graph& g = r.g;
  const Node& conv = g.nodes[i];
  if (conv.op != Op::Conv || conv.has("epilogue")) return false;  // a fused epilogue runs after the bias
  const HostTensor* w = r.constantOf(conv.inputs[1]);
  if (!w || !isFloat(w->type.dtype) || w->data.size() != w->type.bytes()) return false;
  if (conv.inputs.size() > 2 && conv.inputs[2] != kNoValue && !r.constantOf(conv.inputs[2])) return false;
  ValueId c = conv.outputs[0];
  if (g.type(c).shape[1] < 1) return false;
  if (r.uses(c) != 1 || r.isGraphOutput(c)) return false;
  for (size_t j = i + 1; j < g.nodes.size(); ++j) {
    const Node& user = g.nodes[j];
    bool usesC = std::find(user.inputs.begin(), user.inputs.end(), c) != user.inputs.end();
    if (!usesC) continue;
    if (user.op != op || g.type(user.outputs[0]) != g.type(c)) return false;
    ValueId other = user.inputs[0] == c ? user.inputs[1] : user.inputs[0];
    const HostTensor* k = r.constantOf(other);
    if (!k || other == c) return false;
    if (!perChannelFactors(*k, g.type(c).shape[1], &site->factors)) return false;
    site->consumer = j;
    return true;
  }
  return false;
}

}  // namespace mgc::canon
