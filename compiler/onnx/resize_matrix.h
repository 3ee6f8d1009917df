// Private to compiler/onnx/: ONNX Resize / Upsample along one axis as a
// linear map. Row i of the [out, in] matrix holds the weights with which
// output element i mixes the input elements, exactly as ONNX's reference
// (onnx/reference/ops/op_resize.py, _interpolate_1d_with_x) computes them:
// the same coordinate transform and coefficient formulas in double, the same
// neighbour choice on the edge-padded input. Resize over several axes is
// separable, so ops_resize.cpp applies one matrix per axis. Pure: no graph.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

namespace mgc::onnximport {

enum class ResizeMode { Nearest, Linear, Cubic };
enum class NearestRounding { RoundPreferFloor, RoundPreferCeil, Floor, Ceil };
enum class CoordinateMode {
  HalfPixel,
  HalfPixelSymmetric,
  PytorchHalfPixel,
  AlignCorners,
  Asymmetric,
  TfHalfPixelForNearest,
  TfCropAndResize,
};

struct ResizeAxis {
  int64_t inSize = 1, outSize = 1;
  // The scale as the reference uses it: the `scales` entry (a float32 value
  // widened to double), or outSize / inSize when `sizes` was given (or the
  // common scale of keep_aspect_ratio_policy).
  double scale = 1;
  ResizeMode mode = ResizeMode::Nearest;
  NearestRounding rounding = NearestRounding::RoundPreferFloor;
  CoordinateMode coord = CoordinateMode::HalfPixel;
  double cubicA = -0.75;
  bool excludeOutside = false;
  bool antialias = false;           // linear / cubic: a downscale widens the filter
  double roiStart = 0, roiEnd = 1;  // tf_crop_and_resize only (normalized)
};

struct ResizeMatrix {
  int64_t rows = 0, cols = 0;
  std::vector<double> w;           // rows * cols, row-major
  std::vector<bool> extrapolated;  // per row: tf_crop_and_resize sampled outside; the row is 0
  double at(int64_t i, int64_t j) const { return w[size_t(i * cols + j)]; }
  bool anyExtrapolated() const;
};

// Throws mgc::Error for an impossible axis (sizes < 1, scale <= 0,
// antialias with nearest).
ResizeMatrix resizeMatrix(const ResizeAxis& axis);

// Which input element each output copies when every row is one weight 1
// (nearest-like maps); nullopt when some row mixes or extrapolates.
std::optional<std::vector<int64_t>> copySources(const ResizeMatrix& m);

// s when out = s * in and output i copies input floor(i / s) (1 = identity):
// the map a Reshape → Expand → Reshape performs.
std::optional<int64_t> repeatFactor(const ResizeMatrix& m);

}  // namespace mgc::onnximport
