// Gradient ops (emitted by passes/program/autodiff.cpp): the transposes of Conv,
// MaxPool, AvgPool and Gather. Written as scatters over the forward loops,
// the most obviously correct form; the GPU kernels (kernels/src/
// conv2d_grad.comp, pool2d_grad.comp, gather_grad.comp) gather instead and
// are checked against these.
#include "ir/eval_internal.h"

namespace mgc::eval {

namespace {

struct Geometry {
  int64_t N, C, H, W, OH, OW, kh, kw, sh, sw, dh, dw, padTop, padLeft, padBottom, padRight;
};

// x is [N, C, H, W] (the forward input), y [N, *, OH, OW] (the forward output).
Geometry geometry(const Node& n, const Shape& x, const Shape& y, int64_t kh, int64_t kw) {
  auto st = n.ints("strides", {{1, 1}}), pd = n.ints("pads", {{0, 0, 0, 0}}), dl = n.ints("dilations", {{1, 1}});
  return Geometry{x[0], x[1], x[2], x[3], y[2], y[3], kh, kw, st[0], st[1], dl[0], dl[1], pd[0], pd[1], pd[2], pd[3]};
}

}  // namespace

HostTensor evalConvGradInput(const Node& n, const HostTensor& dy, const HostTensor& w, const TensorType& outT) {
  const Shape& ws = w.type.shape;
  Geometry k = geometry(n, outT.shape, dy.type.shape, ws[2], ws[3]);
  int64_t M = ws[0], Cg = ws[1], Mg = M / n.i("group", 1);
  std::vector<double> DY = toDoubles(dy), Wt = toDoubles(w), DX(size_t(outT.numel()), 0.0);
  for (int64_t b = 0; b < k.N; ++b)
    for (int64_t m = 0; m < M; ++m) {
      int64_t firstChannel = (m / Mg) * Cg;
      for (int64_t oh = 0; oh < k.OH; ++oh)
        for (int64_t ow = 0; ow < k.OW; ++ow) {
          double g = DY[size_t(((b * M + m) * k.OH + oh) * k.OW + ow)];
          for (int64_t c = 0; c < Cg; ++c)
            for (int64_t i = 0; i < k.kh; ++i) {
              int64_t ih = oh * k.sh - k.padTop + i * k.dh;
              if (ih < 0 || ih >= k.H) continue;
              for (int64_t j = 0; j < k.kw; ++j) {
                int64_t iw = ow * k.sw - k.padLeft + j * k.dw;
                if (iw < 0 || iw >= k.W) continue;
                DX[size_t(((b * k.C + firstChannel + c) * k.H + ih) * k.W + iw)] +=
                    g * Wt[size_t(((m * Cg + c) * k.kh + i) * k.kw + j)];
              }
            }
        }
    }
  HostTensor out(outT);
  storeDoubles(out, DX);
  return out;
}

HostTensor evalConvGradWeight(const Node& n, const HostTensor& x, const HostTensor& dy, const TensorType& outT) {
  const Shape& ws = outT.shape;
  Geometry k = geometry(n, x.type.shape, dy.type.shape, ws[2], ws[3]);
  int64_t M = ws[0], Cg = ws[1], Mg = M / n.i("group", 1);
  std::vector<double> X = toDoubles(x), DY = toDoubles(dy), DW(size_t(outT.numel()), 0.0);
  for (int64_t b = 0; b < k.N; ++b)
    for (int64_t m = 0; m < M; ++m) {
      int64_t firstChannel = (m / Mg) * Cg;
      for (int64_t oh = 0; oh < k.OH; ++oh)
        for (int64_t ow = 0; ow < k.OW; ++ow) {
          double g = DY[size_t(((b * M + m) * k.OH + oh) * k.OW + ow)];
          for (int64_t c = 0; c < Cg; ++c)
            for (int64_t i = 0; i < k.kh; ++i) {
              int64_t ih = oh * k.sh - k.padTop + i * k.dh;
              if (ih < 0 || ih >= k.H) continue;
              for (int64_t j = 0; j < k.kw; ++j) {
                int64_t iw = ow * k.sw - k.padLeft + j * k.dw;
                if (iw < 0 || iw >= k.W) continue;
                DW[size_t(((m * Cg + c) * k.kh + i) * k.kw + j)] +=
                    g * X[size_t(((b * k.C + firstChannel + c) * k.H + ih) * k.W + iw)];
              }
            }
        }
    }
  HostTensor out(outT);
  storeDoubles(out, DW);
  return out;
}

HostTensor evalMaxPoolGrad(const Node& n, const HostTensor& x, const HostTensor& dy, const TensorType& outT) {
  auto ks = n.ints("kernel");
  Geometry k = geometry(n, x.type.shape, dy.type.shape, ks[0], ks[1]);
  std::vector<double> X = toDoubles(x), DY = toDoubles(dy), DX(size_t(outT.numel()), 0.0);
  for (int64_t p = 0; p < k.N * k.C; ++p)
    for (int64_t oh = 0; oh < k.OH; ++oh)
      for (int64_t ow = 0; ow < k.OW; ++ow) {
        // The first maximum in window order wins (strict >); a NaN takes
        // over, as in PyTorch's kernel: `val > maxval || isnan(val)`.
        int64_t arg = -1;
        double best = -INFINITY;
        for (int64_t i = 0; i < k.kh; ++i) {
          int64_t ih = oh * k.sh - k.padTop + i * k.dh;
          if (ih < 0 || ih >= k.H) continue;
          for (int64_t j = 0; j < k.kw; ++j) {
            int64_t iw = ow * k.sw - k.padLeft + j * k.dw;
            if (iw < 0 || iw >= k.W) continue;
            int64_t at = (p * k.H + ih) * k.W + iw;
            double v = X[size_t(at)];
            if (arg < 0 || v > best || std::isnan(v)) {
              arg = at;
              best = v;
            }
          }
        }
        if (arg >= 0) DX[size_t(arg)] += DY[size_t((p * k.OH + oh) * k.OW + ow)];
      }
  HostTensor out(outT);
  storeDoubles(out, DX);
  return out;
}

HostTensor evalAvgPoolGrad(const Node& n, const HostTensor& dy, const TensorType& outT) {
  auto ks = n.ints("kernel");
  Geometry k = geometry(n, outT.shape, dy.type.shape, ks[0], ks[1]);
  bool includePad = n.i("count_include_pad", 0) != 0;
  std::vector<double> DY = toDoubles(dy), DX(size_t(outT.numel()), 0.0);
  for (int64_t p = 0; p < k.N * k.C; ++p)
    for (int64_t oh = 0; oh < k.OH; ++oh)
      for (int64_t ow = 0; ow < k.OW; ++ow) {
        // the divisor exactly as evalAvgPool counts it
        int64_t real = 0, padded = 0;
        for (int64_t i = 0; i < k.kh; ++i) {
          int64_t ih = oh * k.sh - k.padTop + i * k.dh;
          bool rowPadded = ih >= -k.padTop && ih < k.H + k.padBottom, rowReal = ih >= 0 && ih < k.H;
          for (int64_t j = 0; j < k.kw; ++j) {
            int64_t iw = ow * k.sw - k.padLeft + j * k.dw;
            if (rowPadded && iw >= -k.padLeft && iw < k.W + k.padRight) ++padded;
            if (rowReal && iw >= 0 && iw < k.W) ++real;
          }
        }
        int64_t count = includePad ? padded : real;
        if (count == 0) continue;
        double g = DY[size_t((p * k.OH + oh) * k.OW + ow)] / double(count);
        for (int64_t i = 0; i < k.kh; ++i) {
          int64_t ih = oh * k.sh - k.padTop + i * k.dh;
          if (ih < 0 || ih >= k.H) continue;
          for (int64_t j = 0; j < k.kw; ++j) {
            int64_t iw = ow * k.sw - k.padLeft + j * k.dw;
            if (iw >= 0 && iw < k.W) DX[size_t((p * k.H + ih) * k.W + iw)] += g;
          }
        }
      }
  HostTensor out(outT);
  storeDoubles(out, DX);
  return out;
}

HostTensor evalGatherGrad(const Node& n, const HostTensor& dy, const HostTensor& idx, const TensorType& outT) {
  const Shape& s = outT.shape;
  int64_t axis = n.i("axis", 0);
  if (axis < 0) axis += outT.rank();
  int64_t outer = 1, D = s[size_t(axis)], inner = 1;
  for (int64_t d = 0; d < axis; ++d) outer *= s[size_t(d)];
  for (size_t d = size_t(axis) + 1; d < s.size(); ++d) inner *= s[d];
  int64_t count = idx.numel();
  std::vector<double> DY = toDoubles(dy), DX(size_t(outT.numel()), 0.0);
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t k = 0; k < count; ++k) {
      int64_t i = idx.getI(k);
      if (i < -D || i >= D) fail(n, "index " + std::to_string(i) + " out of range for axis of size " + std::to_string(D));
      if (i < 0) i += D;
      for (int64_t r = 0; r < inner; ++r) DX[size_t((o * D + i) * inner + r)] += DY[size_t((o * count + k) * inner + r)];
    }
  HostTensor out(outT);
  storeDoubles(out, DX);
  return out;
}

}  // namespace mgc::eval
