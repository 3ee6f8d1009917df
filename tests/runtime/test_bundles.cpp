#include "tests/runtime/test_bundles.h"

#include <catch2/catch.hpp>

#include "formats/bundle_layout.h"
#include "formats/dtype.h"

namespace rt_test {
namespace {

const uint32_t kAddSpirv[] = {
#include "add.spv.inc"
};

constexpr uint8_t kF32 = 0, kWeights = 0, kActivations = 1;

mgb::TensorEntry tensor(const char* name, uint32_t arena, uint64_t offset, uint32_t n) {
  mgb::TensorEntry t;
  t.name = name;
  t.dtype = kF32;
  t.deviceDtype = kF32;
  t.shape = {int64_t(n)};
  t.arena = arena;
  t.offset = offset;
  t.size = uint64_t(n) * 4;
  return t;
}

mgb::DispatchEntry addDispatch(const mgb::TensorEntry& a, const mgb::TensorEntry& b,
                               const mgb::TensorEntry& y, float bias, uint32_t n,
                               const char* node) {
  mgb::DispatchEntry d;
  d.kernel = 0;
  d.params = {floatBits(bias), n};
  for (const mgb::TensorEntry* t : {&a, &b, &y}) d.bindings.push_back({t->arena, t->offset, t->size});
  d.groups[0] = (n + 63) / 64;
  d.barrier = true;
  d.node = node;
  return d;
}

}  // namespace

mgb::KernelEntry addKernel() {
  mgb::KernelEntry k;
  k.name = "add";
  k.numBindings = 3;
  mgb::KernelVariantEntry v;
  v.tag = "portable";
  v.spirv.assign(std::begin(kAddSpirv), std::end(kAddSpirv));
  v.localSize[0] = 64;
  k.variants.push_back(v);
  return k;
}

mgb::BundleSpec addSpec(uint32_t n, bool chain) {
  const uint64_t slot = (uint64_t(n) * 4 + 255) / 256 * 256;
  mgb::BundleSpec s;
  s.producer = "mgrt tests";
  s.kernels.push_back(addKernel());
  s.arenas.push_back({kWeights, uint64_t(n) * 4});
  s.arenas.push_back({kActivations, slot * (chain ? 3 : 2)});
  s.tensors.push_back(tensor("b", 0, 0, n));
  s.tensors.push_back(tensor("a", 1, 0, n));
  s.tensors.push_back(tensor("y1", 1, slot, n));
  if (chain) s.tensors.push_back(tensor("y2", 1, 2 * slot, n));
  for (uint32_t i = 0; i < n; ++i) {
    const uint32_t bits = floatBits(0.25f * float(i));
    for (int k = 0; k < 4; ++k) s.weights.push_back(uint8_t(bits >> (8 * k)));
  }
  mgb::EntryPointEntry e;
  e.name = "infer";
  e.inputs = {1};
  e.outputs = chain ? std::vector<uint32_t>{3, 2} : std::vector<uint32_t>{2};
  e.dispatches.push_back(addDispatch(s.tensors[1], s.tensors[0], s.tensors[2], 0.5f, n, "add1"));
  if (chain)
    e.dispatches.push_back(addDispatch(s.tensors[2], s.tensors[0], s.tensors[3], 1.0f, n, "add2"));
  s.entryPoints.push_back(e);
  return s;
}

mgb::BundleSpec identitySpec(uint8_t dtype, std::vector<int64_t> shape, int deviceDtype) {
  mgb::BundleSpec s;
  s.producer = "mgrt tests";
  uint64_t numel = 1;
  for (int64_t d : shape) numel *= uint64_t(d);
  const mgb::dtype::DType dev =
      deviceDtype < 0 ? mgb::dtype::deviceDType(mgb::dtype::DType(dtype)) : mgb::dtype::DType(deviceDtype);
  const uint64_t size = numel * mgb::dtype::size(dev);
  s.arenas.push_back({kWeights, 0});
  s.arenas.push_back({kActivations, (size + 255) / 256 * 256});
  mgb::TensorEntry x;
  x.name = "x";
  x.dtype = dtype;
  x.deviceDtype = uint8_t(dev);
  x.shape = shape;
  x.arena = 1;
  x.size = size;
  s.tensors.push_back(x);
  mgb::EntryPointEntry e;
  e.name = "identity";
  e.inputs = {0};
  e.outputs = {0};
  s.entryPoints.push_back(e);
  return s;
}

mgrt_context* context() {
  struct Holder {
    mgrt_context* ctx = nullptr;
    Holder() {
      mgrt_context_options opts{-1, 1, 0};
      if (mgrt_context_create(&opts, &ctx) != MGRT_OK) {
        FAIL("mgrt_context_create: " << mgrt_last_error());
      }
    }
    ~Holder() { mgrt_context_destroy(ctx); }
  };
  static Holder holder;
  return holder.ctx;
}

mgrt_model* load(const std::vector<uint8_t>& bytes) {
  mgrt_model* m = nullptr;
  const mgrt_status s = mgrt_model_load(context(), bytes.data(), bytes.size(), &m);
  INFO(mgrt_last_error());
  REQUIRE(s == MGRT_OK);
  return m;
}

void expectRejected(mgb::BundleSpec spec, const std::function<void(mgb::BundleSpec&)>& edit, mgrt_status status,
                    const std::string& needle) {
  edit(spec);
  const std::vector<uint8_t> bytes = mgb::writeBundle(spec);
  mgrt_model* m = nullptr;
  const mgrt_status s = mgrt_model_load(context(), bytes.data(), bytes.size(), &m);
  const std::string msg = mgrt_last_error();
  INFO("message: " << msg);
  CHECK(s == status);
  CHECK(m == nullptr);
  CHECK(msg.find(needle) != std::string::npos);
  if (m) mgrt_model_destroy(m);
}

void fixChecksum(std::vector<uint8_t>* file) {
  const uint64_t sum = mgb::bundleChecksum(file->data(), file->size());
  std::memcpy(file->data() + offsetof(mgb::Header, checksum), &sum, 8);
}

}  // namespace rt_test
