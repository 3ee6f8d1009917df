// DFT and STFT (opset 17) as a MatMul with a constant DFT matrix. A signal
// of length N along `axis` (last dim 1: real, 2: complex) is moved to the
// end as [..., c·N] (real parts, then imaginary) and multiplied by W
// [c·N, 2K], whose first K columns give the real parts of the K outputs and
// the last K the imaginary ones:
//
//   forward: Y[k] = sum_n x[n] e^{-2πi nk/N};  inverse: (1/N) sum_n x[n] e^{+2πi nk/N}
//   onesided keeps k < N/2 + 1
//
// STFT gathers the frames [batch, frames, L] (frame f starts at f·step),
// multiplies them by the window and takes the DFT of each (onesided by
// default). Entries of W are computed in double.
#include <cmath>
#include <utility>

#include "compiler/onnx/ops_extra.h"

namespace mgc::onnximport {

namespace {

// W's entries: at most this many (a 4096-point transform).
constexpr int64_t kMaxMatrix = int64_t(1) << 24;

// x [..., N, c] (c = 1 or 2) → its DFT [..., K, 2] along axis rank-2.
ValueId dftLastAxis(NodeContext& c, ValueId x, bool inverse, bool onesided) {
  const TensorType t = c.type(x);
  const int64_t rank = t.rank(), n = t.shape[size_t(rank - 2)], comps = t.shape[size_t(rank - 1)];
  if (comps != 1 && comps != 2) c.fail("the last axis of " + t.str() + " must hold 1 (real) or 2 (complex) values");
  if (n == 0) c.unsupported("a DFT of length 0");
  const int64_t k = onesided ? n / 2 + 1 : n;
  if (comps * n * 2 * k > kMaxMatrix) c.unsupported("a DFT of length " + std::to_string(n) + " (at most 4096)");
  HostTensor w(TensorType{DType::F32, {comps * n, 2 * k}});
  const double tau = 6.283185307179586, scale = inverse ? 1.0 / double(n) : 1.0, sign = inverse ? 1.0 : -1.0;
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < k; ++j) {
      // e^{sign·iθ} = cos θ + i·sign·sin θ, θ = 2π·(i·j mod n)/n (exact angles)
      const double theta = tau * double((i * j) % n) / double(n);
      const double cs = std::cos(theta) * scale, sn = sign * std::sin(theta) * scale;
      // (re + i·im)(cs + i·sn) = (re·cs - im·sn) + i(re·sn + im·cs)
      w.setF(i * 2 * k + j, cs);
      w.setF(i * 2 * k + k + j, sn);
      if (comps == 2) {
        w.setF((n + i) * 2 * k + j, -sn);
        w.setF((n + i) * 2 * k + k + j, cs);
      }
    }
  Shape lead(t.shape.begin(), t.shape.end() - 2);
  std::vector<int64_t> lastTwo;  // the identity with the last two axes swapped
  for (int64_t d = 0; d < rank; ++d) lastTwo.push_back(d);
  std::swap(lastTwo[size_t(rank - 2)], lastTwo[size_t(rank - 1)]);
  ValueId v = toF32(c, x);
  if (comps == 2) v = c.emit(Op::Transpose, {v}, {{"perm", lastTwo}});
  Shape flat = lead;
  flat.push_back(comps * n);
  v = c.emit(Op::MatMul, {reshapeTo(c, v, flat), c.constant(std::move(w))});
  Shape split = lead;
  split.insert(split.end(), {2, k});
  v = c.emit(Op::Transpose, {reshapeTo(c, v, split)}, {{"perm", lastTwo}});
  if (t.dtype != DType::F32) v = c.emit(Op::Cast, {v}, {{"to", int64_t(t.dtype)}});
  return v;
}

// Moves axis `from` to `to` (the others keep their order); `inverse` gives
// the permutation back.
std::vector<int64_t> moveAxis(int64_t rank, int64_t from, int64_t to) {
  std::vector<int64_t> perm;
  for (int64_t d = 0; d < rank; ++d)
    if (d != from) perm.push_back(d);
  perm.insert(perm.begin() + to, from);
  return perm;
}

std::vector<int64_t> inversePerm(const std::vector<int64_t>& p) {
  std::vector<int64_t> r(p.size());
  for (size_t i = 0; i < p.size(); ++i) r[size_t(p[i])] = int64_t(i);
  return r;
}

void dft(NodeContext& c) {
  c.onlyAttrs({"axis", "inverse", "onesided"});
  ValueId x = c.input(0);
  const TensorType t = c.type(x);
  if (!isFloat(t.dtype)) c.fail("expects a float input, got " + t.str());
  const int64_t rank = t.rank();
  if (rank < 2) c.fail("input " + t.str() + " must have rank >= 2");
  const int64_t axis = c.normAxis(c.attrInt("axis", 1), rank);
  if (axis == rank - 1) c.fail("axis must not be the last one (it holds the real / imaginary parts)");
  const bool inverse = c.attrInt("inverse", 0) != 0, onesided = c.attrInt("onesided", 0) != 0;
  if (inverse && onesided) c.fail("inverse and onesided cannot both be set");
  if (std::optional<std::vector<int64_t>> len = c.intsInput(1, "dft_length")) {
    if (len->size() != 1 || (*len)[0] <= 0) c.fail("dft_length must be one positive value");
    const int64_t l = (*len)[0], n = t.shape[size_t(axis)];
    if (l < n) x = c.im.sliceAxis(c.name, x, axis, 0, l, 1);
    if (l > n) {
      std::vector<int64_t> pads(size_t(2 * rank), 0);
      pads[size_t(rank + axis)] = l - n;
      x = c.emit(Op::Pad, {x}, {{"pads", pads}, {"value", 0.0}});
    }
  }
  const std::vector<int64_t> perm = moveAxis(rank, axis, rank - 2);
  ValueId v = c.emit(Op::Transpose, {x}, {{"perm", perm}});
  v = dftLastAxis(c, v, inverse, onesided);
  c.emitOutput(0, Op::Transpose, {v}, {{"perm", inversePerm(perm)}});
}

void stft(NodeContext& c) {
  c.onlyAttrs({"onesided"});
  const ValueId signal = c.input(0);
  const TensorType t = c.type(signal);
  if (!isFloat(t.dtype) || t.rank() != 3) c.fail("signal must be a float [batch, length, 1 or 2] tensor, got " + t.str());
  std::optional<std::vector<int64_t>> step = c.intsInput(1, "frame_step");
  if (!step || step->size() != 1 || (*step)[0] <= 0) c.fail("frame_step must be one positive value");
  const ValueId window = c.optInput(2);
  int64_t length = -1;
  if (window != kNoValue) {
    if (c.type(window).rank() != 1) c.fail("window must be 1-D, got " + c.type(window).str());
    length = c.type(window).shape[0];
  }
  if (std::optional<std::vector<int64_t>> fl = c.intsInput(3, "frame_length")) {
    if (fl->size() != 1 || (*fl)[0] <= 0) c.fail("frame_length must be one positive value");
    if (length >= 0 && length != (*fl)[0]) c.fail("frame_length differs from the window's length");
    length = (*fl)[0];
  }
  if (length < 0) c.fail("needs a window or a frame_length");
  const int64_t total = t.shape[1];
  if (length > total) c.fail("frame length " + std::to_string(length) + " exceeds the signal's " + std::to_string(total));
  const int64_t frames = (total - length) / (*step)[0] + 1;
  if (frames * length > kMaxMatrix) c.unsupported("an STFT of " + std::to_string(frames) + " frames of " + std::to_string(length));
  HostTensor at(TensorType{DType::I64, {frames, length}});
  for (int64_t f = 0; f < frames; ++f)
    for (int64_t l = 0; l < length; ++l) at.setI(f * length + l, f * (*step)[0] + l);
  // [batch, frames, length, c]
  ValueId v = c.emit(Op::Gather, {signal, c.constant(std::move(at))}, {{"axis", int64_t(1)}});
  if (window != kNoValue) {
    ValueId win = reshapeTo(c, window, {1, 1, length, 1});
    if (c.type(win).dtype != t.dtype) win = c.emit(Op::Cast, {win}, {{"to", int64_t(t.dtype)}});
    v = c.emit(Op::Mul, {v, win});
  }
  c.setOutput(0, dftLastAxis(c, v, false, c.attrInt("onesided", 1) != 0));
}

}  // namespace

void addDftConverters(ConverterTable& t) {
  t[{"", "DFT"}] = dft;
  t[{"", "STFT"}] = stft;
}

}  // namespace mgc::onnximport
