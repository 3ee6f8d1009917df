// mgrt_model_kernel_*: which kernels a model has and which variant of each
// this device runs (chosen when the bundle was verified).
#include "formats/features.h"
#include "runtime/core/objects.h"

static_assert(MGRT_FEATURE_FLOAT16 == uint32_t(mgb::Feature::Float16) &&
                  MGRT_FEATURE_INT8 == uint32_t(mgb::Feature::Int8) &&
                  MGRT_FEATURE_STORAGE16 == uint32_t(mgb::Feature::Storage16) &&
                  MGRT_FEATURE_STORAGE8 == uint32_t(mgb::Feature::Storage8) &&
                  MGRT_FEATURE_BFLOAT16 == uint32_t(mgb::Feature::BFloat16) &&
                  MGRT_FEATURE_SUBGROUP == uint32_t(mgb::Feature::Subgroup) &&
                  MGRT_FEATURE_COOPERATIVE_MATRIX_NV == uint32_t(mgb::Feature::CooperativeMatrixNV) &&
                  MGRT_FEATURE_COOPERATIVE_MATRIX_KHR == uint32_t(mgb::Feature::CooperativeMatrixKHR) &&
                  MGRT_FEATURE_ATOMIC_FLOAT32_ADD == uint32_t(mgb::Feature::AtomicFloat32Add) &&
                  MGRT_FEATURE_STREAM_SYNC == uint32_t(mgb::Feature::StreamSync),
              "mgrt.h's MGRT_FEATURE_* are the bundle format's Feature bits");
static_assert(mgb::kKnownFeatures == uint32_t(mgb::Feature::ANY), "formats/features.h names every Feature bit");

namespace {

const mgb::Kernel* kernelAt(const mgrt_model* m, int i) {
  if (!m || i < 0 || uint32_t(i) >= m->bundle.manifest->kernels()->size()) return nullptr;
  return m->bundle.manifest->kernels()->Get(uint32_t(i));
}

}  // namespace

int mgrt_model_kernel_count(const mgrt_model* m) { return m ? int(m->bundle.manifest->kernels()->size()) : 0; }

const char* mgrt_model_kernel_name(const mgrt_model* m, int i) {
  const mgb::Kernel* k = kernelAt(m, i);
  return k ? (k->name() ? k->name()->c_str() : "") : nullptr;
}

const char* mgrt_model_kernel_variant(const mgrt_model* m, int i) {
  const mgb::Kernel* k = kernelAt(m, i);
  if (!k) return nullptr;
  const mgb::KernelVariant* v = k->variants()->Get(m->bundle.variant[size_t(i)]);
  return v->tag() ? v->tag()->c_str() : "";
}
