// ONNX Resize along one axis as an [out, in] weight matrix (resize_matrix.h).
// Every formula follows onnx/reference/ops/op_resize.py term by term, in the
// same order of operations, so that ties (a nearest rounding at exactly .5,
// a coordinate that is exactly an integer) fall the same way.
#include "compiler/onnx/resize_matrix.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "ir/types.h"

namespace mgc::onnximport {

namespace {

// Largest matrix built (entries): a resize beyond this is refused rather
// than allocating gigabytes of constant.
constexpr int64_t kMaxEntries = int64_t(1) << 24;

// The input coordinate output element x samples. `outside` is set when
// tf_crop_and_resize samples outside the input (the output is then the
// extrapolation value).
double inputCoordinate(const ResizeAxis& a, int64_t xi, bool* outside) {
  const double x = double(xi), in = double(a.inSize), s = a.scale;
  // The reference's output width is the real-valued scale * input, not the
  // integer output size: align_corners with `scales` depends on it.
  const double outWidth = s * in;
  switch (a.coord) {
    case CoordinateMode::AlignCorners:
      return outWidth == 1 ? 0.0 : x * (in - 1) / (outWidth - 1);
    case CoordinateMode::Asymmetric:
      return x / s;
    case CoordinateMode::TfCropAndResize: {
      const double extent = a.roiEnd - a.roiStart;
      double v = outWidth == 1 ? extent * (in - 1) / 2 : x * extent * (in - 1) / (outWidth - 1);
      v += a.roiStart * (in - 1);
      *outside = v < 0 || v > in - 1;
      return v;
    }
    case CoordinateMode::PytorchHalfPixel:
      return outWidth == 1 ? -0.5 : (x + 0.5) / s - 0.5;
    case CoordinateMode::HalfPixel:
      return (x + 0.5) / s - 0.5;
    case CoordinateMode::HalfPixelSymmetric: {
      // The centre of the input maps to the centre of the output even when
      // the integer output size rounds scale * input down.
      const double adjustment = double(a.outSize) / outWidth;
      const double offset = in / 2 * (1 - adjustment);
      return offset + (x + 0.5) / s - 0.5;
    }
    case CoordinateMode::TfHalfPixelForNearest:
      return (x + 0.5) / s;
  }
  return 0;
}

std::vector<double> normalized(std::vector<double> c) {
  double sum = 0;
  for (double v : c) sum += v;
  for (double& v : c) v /= sum;
  return c;
}

// Keys' cubic convolution kernel with parameter A at distance |x|.
double cubicKernel(double x, double A) {
  x = std::fabs(x);
  const double x2 = x * x, x3 = x * x2;
  if (x <= 1) return (A + 2) * x3 - (A + 3) * x2 + 1;
  if (x < 2) return A * x3 - 5 * A * x2 + 8 * A * x - 4 * A;
  return 0;
}

// Weights of the neighbours of the sample point, lowest index first; `ratio`
// is the distance past the neighbour left of it, in (0, 1].
std::vector<double> coefficients(const ResizeAxis& a, double ratio) {
  switch (a.mode) {
    case ResizeMode::Nearest: {
      if (ratio == std::floor(ratio)) return {0, 1};
      switch (a.rounding) {
        case NearestRounding::RoundPreferFloor:
          return {double(ratio <= 0.5), double(ratio > 0.5)};
        case NearestRounding::RoundPreferCeil:
          return {double(ratio < 0.5), double(ratio >= 0.5)};
        case NearestRounding::Floor:
          return {1, 0};
        case NearestRounding::Ceil:
          return {0, 1};
      }
      return {0, 1};
    }
    case ResizeMode::Linear: {
      if (!a.antialias) return {1 - ratio, ratio};
      // Antialias: a downscale by s stretches the triangle filter by 1/s.
      const double s = std::min(a.scale, 1.0);
      const int64_t start = int64_t(std::floor(-1 / s) + 1), footprint = 2 - 2 * start;
      std::vector<double> c;
      for (int64_t k = 0; k < footprint; ++k)
        c.push_back(std::clamp(1 - std::fabs((double(start + k) - ratio) * s), 0.0, 1.0));
      return normalized(std::move(c));
    }
    case ResizeMode::Cubic: {
      const double A = a.cubicA;
      if (!a.antialias) {
        const double r1 = ratio + 1, q = 1 - ratio, q1 = q + 1;
        return {((A * r1 - 5 * A) * r1 + 8 * A) * r1 - 4 * A, ((A + 2) * ratio - (A + 3)) * ratio * ratio + 1,
                ((A + 2) * q - (A + 3)) * q * q + 1, ((A * q1 - 5 * A) * q1 + 8 * A) * q1 - 4 * A};
      }
      const double s = std::min(a.scale, 1.0);
      const int64_t start = int64_t(std::floor(-2 / s) + 1), end = 2 - start;
      std::vector<double> c;
      for (int64_t i = start; i < end; ++i) c.push_back(cubicKernel(s * (double(i) - ratio), A));
      return normalized(std::move(c));
    }
  }
  return {};
}

// The n indices nearest to x on the input padded by ceil(n / 2) edge copies
// at each end, ties to the lower index, ascending, in unpadded coordinates
// (so they may lie outside [0, in): those read the edge element).
std::vector<int64_t> neighbours(double x, int64_t n, int64_t in) {
  const int64_t pad = (n + 1) / 2, limit = in + 2 * pad;
  const double xp = x + double(pad);
  // The n nearest lie within n of x clamped into the padded range.
  const int64_t centre = int64_t(std::floor(std::clamp(xp, 0.0, double(limit - 1))));
  const int64_t lo = std::max<int64_t>(0, centre - n - 1), hi = std::min(limit - 1, centre + n + 1);
  std::vector<int64_t> idx;
  for (int64_t i = lo; i <= hi; ++i) idx.push_back(i);
  std::stable_sort(idx.begin(), idx.end(), [&](int64_t p, int64_t q) {
    const double dp = std::fabs(xp - double(p)), dq = std::fabs(xp - double(q));
    return dp != dq ? dp < dq : p < q;
  });
  idx.resize(size_t(n));
  std::sort(idx.begin(), idx.end());
  for (int64_t& i : idx) i -= pad;
  return idx;
}

}  // namespace

bool ResizeMatrix::anyExtrapolated() const {
  return std::find(extrapolated.begin(), extrapolated.end(), true) != extrapolated.end();
}

ResizeMatrix resizeMatrix(const ResizeAxis& a) {
  if (a.inSize < 1 || a.outSize < 1)
    throw Error("cannot resize an axis of " + std::to_string(a.inSize) + " elements to " + std::to_string(a.outSize));
  if (!(a.scale > 0) || !std::isfinite(a.scale)) throw Error("scale " + std::to_string(a.scale) + " is not positive");
  if (a.mode == ResizeMode::Nearest && a.antialias) throw Error("antialias is not defined for mode nearest");
  if (a.outSize > kMaxEntries / a.inSize)
    throw Error("resizing an axis of " + std::to_string(a.inSize) + " to " + std::to_string(a.outSize) +
                " elements is not supported (the interpolation matrix would be too large)");
  ResizeMatrix m;
  m.rows = a.outSize;
  m.cols = a.inSize;
  m.w.assign(size_t(m.rows * m.cols), 0.0);
  m.extrapolated.assign(size_t(m.rows), false);
  for (int64_t i = 0; i < m.rows; ++i) {
    bool outside = false;
    const double x = inputCoordinate(a, i, &outside);
    if (outside) {
      m.extrapolated[size_t(i)] = true;
      continue;
    }
    const double left = std::floor(x);
    const double ratio = x == left ? 1.0 : x - left;  // in (0, 1]: prefer the neighbour on the left
    std::vector<double> c = coefficients(a, ratio);
    const std::vector<int64_t> idx = neighbours(x, int64_t(c.size()), a.inSize);
    if (a.excludeOutside) {
      double sum = 0;
      for (size_t k = 0; k < c.size(); ++k) {
        if (idx[k] < 0 || idx[k] >= a.inSize) c[k] = 0;
        sum += c[k];
      }
      if (sum == 0) throw Error("exclude_outside leaves output element " + std::to_string(i) + " no input");
      for (double& v : c) v /= sum;
    }
    for (size_t k = 0; k < c.size(); ++k) {
      const int64_t j = std::clamp<int64_t>(idx[k], 0, a.inSize - 1);
      m.w[size_t(i * m.cols + j)] += c[k];
    }
  }
  return m;
}

std::optional<std::vector<int64_t>> copySources(const ResizeMatrix& m) {
  std::vector<int64_t> src(size_t(m.rows));
  for (int64_t i = 0; i < m.rows; ++i) {
    if (m.extrapolated[size_t(i)]) return std::nullopt;
    int64_t one = -1;
    for (int64_t j = 0; j < m.cols; ++j) {
      const double v = m.at(i, j);
      if (v == 0) continue;
      if (v != 1 || one >= 0) return std::nullopt;
      one = j;
    }
    if (one < 0) return std::nullopt;
    src[size_t(i)] = one;
  }
  return src;
}

std::optional<int64_t> repeatFactor(const ResizeMatrix& m) {
  if (m.rows % m.cols != 0) return std::nullopt;
  const int64_t s = m.rows / m.cols;
  std::optional<std::vector<int64_t>> src = copySources(m);
  if (!src) return std::nullopt;
  for (int64_t i = 0; i < m.rows; ++i)
    if ((*src)[size_t(i)] != i / s) return std::nullopt;
  return s;
}

}  // namespace mgc::onnximport
