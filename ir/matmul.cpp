#include "ir/matmul.h"

#include "ir/attention_layout.h"
#include "ir/epilogue.h"

namespace mgc {

MatMulPrecision matmulPrecision(const Node& n) {
  if (!n.has("precision")) return MatMulPrecision::F32;
  MatMulPrecision p;
  if (!parsePrecision(n.s("precision"), &p) || p == MatMulPrecision::F32)
    throw Error("node '" + n.name + "': precision must be \"fp16\" or \"bf16\", got \"" + n.s("precision") + "\"");
  return p;
}

bool parsePrecision(std::string_view name, MatMulPrecision* out) {
  for (MatMulPrecision p : {MatMulPrecision::F32, MatMulPrecision::F16, MatMulPrecision::BF16})
    if (name == precisionName(p)) return *out = p, true;
  return false;
}

const char* precisionName(MatMulPrecision p) {
  switch (p) {
    case MatMulPrecision::F16: return "fp16";
    case MatMulPrecision::BF16: return "bf16";
    case MatMulPrecision::F32: break;
  }
  return "fp32";
}

std::string lowPrecisionRefusal(const Node& n, const TensorType& a, const TensorType& b) {
  if (a.dtype != DType::F32 || b.dtype != DType::F32) return "its operands are not f32";
  if (a.rank() < 2 || b.rank() < 2) return "an operand is a vector";
  if (hasPrologue(n)) return "it has a fused prologue";
  const MatMulLayout layout = matmulLayout(n);
  const Shape la = logicalOperand(a.shape, layout.transA);
  if (la[la.size() - 2] <= kMatVecRows)
    return "it has " + std::to_string(la[la.size() - 2]) + " rows (a matrix-vector product)";
  if (a.shape.back() % 4 != 0 || b.shape.back() % 4 != 0) return "its operands' stored rows are not whole vec4s";
  return "";
}

std::string convLowPrecisionRefusal(const Node& n, const TensorType& x, const TensorType& w, MatMulPrecision p) {
  if (p != MatMulPrecision::F16) return "convolutions take fp16 only";
  if (x.dtype != DType::F32 || w.dtype != DType::F32) return "its operands are not f32";
  if (w.rank() != 4) return "its weight is not 4-D";
  const int64_t groups = n.i("group", 1);
  if (groups <= 0 || w.shape[0] / groups < kConvMinGemmChannels)
    return "it has fewer than " + std::to_string(kConvMinGemmChannels) + " output channels per group (a direct conv)";
  if ((w.shape[1] * w.shape[2] * w.shape[3]) % 4 != 0) return "its weight rows are not whole vec4s";
  return "";
}

std::string attentionLowPrecisionRefusal(const Node& n, const TensorType& q, const TensorType& k, const TensorType& v,
                                         MatMulPrecision p) {
  if (p != MatMulPrecision::F16) return "attention takes fp16 only";
  if (q.dtype != DType::F32 || k.dtype != DType::F32 || v.dtype != DType::F32) return "its operands are not f32";
  const Shape lq = attentionLogical(n, kAttnQ, q.shape), lv = attentionLogical(n, kAttnV, v.shape);
  if (lq.size() < 2 || lv.size() < 2) return "an operand is a vector";
  const int64_t T = lq[lq.size() - 2], D = lq.back(), Dv = lv.back();
  if (D <= 0 || Dv <= 0 || D > kAttentionF16MaxHeadDim || Dv > kAttentionF16MaxHeadDim || D % 4 != 0 || Dv % 4 != 0)
    return "its heads (q " + std::to_string(D) + ", v " + std::to_string(Dv) + " wide) are not whole vec4s of at most " +
           std::to_string(kAttentionF16MaxHeadDim);
  if (T < kAttentionF16FromRows) return "it has " + std::to_string(T) + " query rows (matrix-vector work)";
  return "";
}

}  // namespace mgc
