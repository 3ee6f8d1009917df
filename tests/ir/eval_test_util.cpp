#include "tests/ir/eval_test_util.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <string>

namespace evaltest {

const HostTensor kAbsent;

HostTensor tensor(DType dtype, const Shape& shape, const std::vector<double>& vals) {
  HostTensor t(mgc::TensorType{dtype, shape});
  REQUIRE(int64_t(vals.size()) == t.numel());
  for (size_t i = 0; i < vals.size(); ++i) t.setF(int64_t(i), vals[i]);
  return t;
}

HostTensor itensor(DType dtype, const Shape& shape, const std::vector<int64_t>& vals) {
  HostTensor t(mgc::TensorType{dtype, shape});
  REQUIRE(int64_t(vals.size()) == t.numel());
  for (size_t i = 0; i < vals.size(); ++i) t.setI(int64_t(i), vals[i]);
  return t;
}

HostTensor randomTensor(DType dtype, const Shape& shape, uint32_t seed, double lo, double hi) {
  HostTensor t(mgc::TensorType{dtype, shape});
  uint64_t state = 0x9e3779b97f4a7c15ull * (seed + 1);
  for (int64_t i = 0; i < t.numel(); ++i) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    double u = double(state >> 11) / 9007199254740992.0;  // [0, 1)
    double v = lo + (hi - lo) * u;
    if (mgc::isFloat(dtype)) t.setF(i, v);
    else t.setI(i, int64_t(std::floor(v)));
  }
  return t;
}

HostTensor run(Op op, const std::vector<HostTensor>& inputs, Attrs attrs) {
  mgc::Graph g;
  std::vector<mgc::ValueId> ids;
  std::map<std::string, HostTensor> feed;
  for (size_t k = 0; k < inputs.size(); ++k) {
    if (inputs[k].type.rank() == 0 && inputs[k].data.empty()) {
      ids.push_back(mgc::kNoValue);
      continue;
    }
    std::string name = "in" + std::to_string(k);
    ids.push_back(g.addInput(name, inputs[k].type));
    feed[name] = inputs[k];
  }
  mgc::NodeId n = g.addNode(op, "node", ids, std::move(attrs));
  g.outputs.push_back(g.nodes[size_t(n)].outputs[0]);
  auto out = mgc::evalGraph(g, feed);
  REQUIRE(out.size() == 1);
  HostTensor result = out.begin()->second;
  REQUIRE(result.type == g.type(g.outputs[0]));
  REQUIRE(result.data.size() == result.type.bytes());
  return result;
}

std::vector<double> values(const HostTensor& t) {
  std::vector<double> v(static_cast<size_t>(t.numel()));
  for (int64_t i = 0; i < t.numel(); ++i) v[size_t(i)] = t.getF(i);
  return v;
}

std::vector<int64_t> ivalues(const HostTensor& t) {
  std::vector<int64_t> v(static_cast<size_t>(t.numel()));
  for (int64_t i = 0; i < t.numel(); ++i) v[size_t(i)] = t.getI(i);
  return v;
}

void checkClose(const HostTensor& got, const std::vector<double>& want, double rtol, double atol) {
  REQUIRE(got.numel() == int64_t(want.size()));
  for (size_t i = 0; i < want.size(); ++i) {
    double g = got.getF(int64_t(i)), w = want[i];
    bool ok = (std::isnan(g) && std::isnan(w)) || g == w || std::fabs(g - w) <= atol + rtol * std::fabs(w);
    if (!ok) {
      INFO("index " << i << " of " << got.type.str() << ": got " << g << ", want " << w);
      REQUIRE(ok);
    }
  }
}

void checkExact(const HostTensor& got, const std::vector<int64_t>& want) {
  REQUIRE(got.numel() == int64_t(want.size()));
  for (size_t i = 0; i < want.size(); ++i) {
    if (got.getI(int64_t(i)) != want[i]) {
      INFO("index " << i << " of " << got.type.str() << ": got " << got.getI(int64_t(i)) << ", want " << want[i]);
      REQUIRE(got.getI(int64_t(i)) == want[i]);
    }
  }
}

std::vector<int64_t> unravel(int64_t index, const Shape& shape) {
  std::vector<int64_t> c(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    c[d] = index % shape[d];
    index /= shape[d];
  }
  return c;
}

int64_t ravel(const std::vector<int64_t>& coord, const Shape& shape) {
  int64_t r = 0;
  for (size_t d = 0; d < shape.size(); ++d) r = r * shape[d] + coord[d];
  return r;
}

}  // namespace evaltest
