// HannWindow, HammingWindow, BlackmanWindow (opset 17): a window of `size`
// samples, w[n] = a0 - a1·cos(2πn/N) + a2·cos(4πn/N) with N = size
// (periodic, the default) or size - 1 (symmetric), computed in double as
// onnx's reference does and stored as output_datatype. The size must be a
// constant (the output's shape depends on it), so the window is one.
#include <cmath>

#include "compiler/onnx/ops_extra.h"
#include "compiler/onnx/tensor_proto.h"

namespace mgc::onnximport {

namespace {

// Windows longer than this are refused (a constant of that many elements).
constexpr int64_t kMaxWindow = int64_t(1) << 24;

void window(NodeContext& c, double a0, double a1, double a2) {
  c.onlyAttrs({"output_datatype", "periodic"});
  std::optional<std::vector<int64_t>> size = c.intsInput(0, "size");
  if (!size || size->size() != 1) c.fail("size must hold exactly one value");
  const int64_t n = (*size)[0];
  if (n < 0) c.fail("size " + std::to_string(n) + " is negative");
  if (n > kMaxWindow) c.unsupported("a window of " + std::to_string(n) + " samples (at most 2^24)");
  DType dt;
  const int64_t onnxType = c.attrInt("output_datatype", onnx::TensorProto::FLOAT);
  if (!dtypeFromOnnx(int32_t(onnxType), &dt))
    c.unsupported("output_datatype " + std::string(onnxTypeName(int32_t(onnxType))) + " is not supported");
  const double period = double(c.attrInt("periodic", 1) != 0 ? n : n - 1);
  HostTensor w(TensorType{dt, {n}});
  const double tau = 6.283185307179586;  // 2π
  for (int64_t i = 0; i < n; ++i) {
    const double angle = tau * double(i) / period;
    const double v = a0 - a1 * std::cos(angle) + a2 * std::cos(2.0 * angle);
    if (isFloat(dt)) w.setF(i, v);
    else w.setI(i, int64_t(std::trunc(v)));  // onnx casts the float window
  }
  c.setOutputConstant(0, std::move(w));
}

void hann(NodeContext& c) { window(c, 0.5, 0.5, 0.0); }
void hamming(NodeContext& c) { window(c, 25.0 / 46.0, 21.0 / 46.0, 0.0); }
void blackman(NodeContext& c) { window(c, 0.42, 0.5, 0.08); }

}  // namespace

void addWindowConverters(ConverterTable& t) {
  t[{"", "HannWindow"}] = hann;
  t[{"", "HammingWindow"}] = hamming;
  t[{"", "BlackmanWindow"}] = blackman;
}

}  // namespace mgc::onnximport
