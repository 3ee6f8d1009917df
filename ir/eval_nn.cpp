// Neural-network ops: MatMul, Conv, pooling, normalizations, softmax.
// Floats compute in double; MatMul keeps integers exact in int64.
#include <algorithm>
#include <cfloat>

#include "ir/attention_layout.h"
#include "ir/epilogue.h"
#include "ir/eval_internal.h"
#include "ir/qweights.h"

namespace mgc::eval {

namespace {

// silu(v) = v · sigmoid(v): the SwiGLU prologue, qgated_mlp and the mul_silu epilogue step.
double silu(double v) { return v * applyEpilogueStep(EpilogueStep::Sigmoid, v, 0, 0); }

inline double mulAdd(double acc, double a, double b) { return acc + a * b; }
inline int64_t mulAdd(int64_t acc, int64_t a, int64_t b) { return wrapAdd(acc, wrapMul(a, b)); }

// C[bi] = A[aOff] x B[bOff] for every batch position of the walk.
template <class T>
std::vector<T> matmulLoop(const std::vector<T>& A, const std::vector<T>& B, int64_t batches, StridedWalk w, int64_t M,
                          int64_t K, int64_t N) {
  std::vector<T> C(size_t(batches * M * N), T(0));
  for (int64_t bi = 0; bi < batches; ++bi, w.next()) {
    const T* a = A.data() + w[0] * M * K;
    const T* b = B.data() + w[1] * K * N;
    T* c = C.data() + bi * M * N;
    for (int64_t m = 0; m < M; ++m)
      for (int64_t n = 0; n < N; ++n) {
        T acc = 0;
        for (int64_t k = 0; k < K; ++k) acc = mulAdd(acc, a[m * K + k], b[k * N + n]);
        c[m * N + n] = acc;
      }
  }
  return C;
}

struct Window {
  int64_t kh, kw, sh, sw, dh, dw, padTop, padLeft, padBottom, padRight;
};

Window poolWindow(const Node& n, int64_t kh, int64_t kw) {
  auto st = n.ints("strides", {{1, 1}}), pd = n.ints("pads", {{0, 0, 0, 0}}), dl = n.ints("dilations", {{1, 1}});
  return Window{kh, kw, st[0], st[1], dl[0], dl[1], pd[0], pd[1], pd[2], pd[3]};
}

}  // namespace

HostTensor roundOperand(const HostTensor& x, MatMulPrecision p) {
  if (p == MatMulPrecision::F32) return x;
  HostTensor r = x;
  float* v = r.as<float>();
  for (int64_t i = 0; i < r.numel(); ++i)
    v[i] = p == MatMulPrecision::F16 ? mgb::dtype::halfToFloat(mgb::dtype::floatToHalf(v[i]))
                                     : mgb::dtype::bf16ToFloat(mgb::dtype::floatToBf16(v[i]));
  return r;
}

HostTensor evalMatMul(const HostTensor& a, const HostTensor& b, const TensorType& outT) {
  // Promote 1-D operands to matrices; the output shape (from the shape rule)
  // already drops the added axes and has the same element count.
  Shape as = a.type.shape, bs = b.type.shape;
  if (as.size() == 1) as.insert(as.begin(), 1);
  if (bs.size() == 1) bs.push_back(1);
  int64_t M = as[as.size() - 2], K = as.back(), N = bs.back();
  Shape ba(as.begin(), as.end() - 2), bb(bs.begin(), bs.end() - 2);
  Shape batch = broadcastShapes(ba, bb);
  StridedWalk w(batch, {broadcastStrides(ba, batch), broadcastStrides(bb, batch)});
  HostTensor out(outT);
  if (isFloat(outT.dtype)) storeDoubles(out, matmulLoop(toDoubles(a), toDoubles(b), numel(batch), w, M, K, N));
  else storeInt64s(out, matmulLoop(toInt64s(a), toInt64s(b), numel(batch), w, M, K, N));
  return out;
}

HostTensor evalConv(const Node& n, const Inputs& in, const TensorType& outT) {
  // precision = "fp16": x and w rounded first (copies only then).
  const MatMulPrecision precision = matmulPrecision(n);
  HostTensor xRounded, wRounded;
  if (precision != MatMulPrecision::F32) xRounded = roundOperand(*in[0], precision), wRounded = roundOperand(*in[1], precision);
  const HostTensor &x = precision != MatMulPrecision::F32 ? xRounded : *in[0];
  const HostTensor &w = precision != MatMulPrecision::F32 ? wRounded : *in[1];
  bool hasBias = in.size() > 2 && n.inputs[2] != kNoValue;
  std::vector<double> X = toDoubles(x), W = toDoubles(w), B = hasBias ? toDoubles(*in[2]) : std::vector<double>();
  if (convReluInput(n))
    for (double& v : X) v = std::max(v, 0.0);
  int64_t N = x.type.shape[0], C = x.type.shape[1], H = x.type.shape[2], Wd = x.type.shape[3];
  int64_t M = w.type.shape[0], Cg = w.type.shape[1];
  int64_t OH = outT.shape[2], OW = outT.shape[3];
  int64_t groups = n.i("group", 1), Mg = M / groups;
  Window k = poolWindow(n, w.type.shape[2], w.type.shape[3]);
  std::vector<double> Y(size_t(outT.numel()));
  for (int64_t b = 0; b < N; ++b)
    for (int64_t m = 0; m < M; ++m) {
      int64_t firstChannel = (m / Mg) * Cg;
      for (int64_t oh = 0; oh < OH; ++oh)
        for (int64_t ow = 0; ow < OW; ++ow) {
          double acc = hasBias ? B[size_t(m)] : 0.0;
          for (int64_t c = 0; c < Cg; ++c)
            for (int64_t i = 0; i < k.kh; ++i) {
              int64_t ih = oh * k.sh - k.padTop + i * k.dh;
              if (ih < 0 || ih >= H) continue;
              for (int64_t j = 0; j < k.kw; ++j) {
                int64_t iw = ow * k.sw - k.padLeft + j * k.dw;
                if (iw < 0 || iw >= Wd) continue;
                acc += X[size_t(((b * C + firstChannel + c) * H + ih) * Wd + iw)] *
                       W[size_t(((m * Cg + c) * k.kh + i) * k.kw + j)];
              }
            }
          Y[size_t(((b * M + m) * OH + oh) * OW + ow)] = acc;
        }
    }
  HostTensor out(outT);
  storeDoubles(out, Y);
  return out;
}

HostTensor evalMaxPool(const Node& n, const HostTensor& x, const TensorType& outT) {
  auto ks = n.ints("kernel");
  Window k = poolWindow(n, ks[0], ks[1]);
  std::vector<double> X = toDoubles(x), Y(size_t(outT.numel()));
  int64_t planes = x.type.shape[0] * x.type.shape[1], H = x.type.shape[2], W = x.type.shape[3];
  int64_t OH = outT.shape[2], OW = outT.shape[3];
  for (int64_t p = 0; p < planes; ++p)
    for (int64_t oh = 0; oh < OH; ++oh)
      for (int64_t ow = 0; ow < OW; ++ow) {
        double best = -INFINITY;  // padding never wins
        for (int64_t i = 0; i < k.kh; ++i) {
          int64_t ih = oh * k.sh - k.padTop + i * k.dh;
          if (ih < 0 || ih >= H) continue;
          for (int64_t j = 0; j < k.kw; ++j) {
            int64_t iw = ow * k.sw - k.padLeft + j * k.dw;
            if (iw >= 0 && iw < W) best = nanMax(best, X[size_t((p * H + ih) * W + iw)]);
          }
        }
        Y[size_t((p * OH + oh) * OW + ow)] = best;
      }
  HostTensor out(outT);
  storeDoubles(out, Y);
  return out;
}

HostTensor evalAvgPool(const Node& n, const HostTensor& x, const TensorType& outT) {
  auto ks = n.ints("kernel");
  Window k = poolWindow(n, ks[0], ks[1]);
  bool includePad = n.i("count_include_pad", 0) != 0;
  std::vector<double> X = toDoubles(x), Y(size_t(outT.numel()));
  int64_t planes = x.type.shape[0] * x.type.shape[1], H = x.type.shape[2], W = x.type.shape[3];
  int64_t OH = outT.shape[2], OW = outT.shape[3];
  for (int64_t p = 0; p < planes; ++p)
    for (int64_t oh = 0; oh < OH; ++oh)
      for (int64_t ow = 0; ow < OW; ++ow) {
        double sum = 0;
        int64_t real = 0, padded = 0;  // taps inside the input / inside input+padding
        for (int64_t i = 0; i < k.kh; ++i) {
          int64_t ih = oh * k.sh - k.padTop + i * k.dh;
          bool rowPadded = ih >= -k.padTop && ih < H + k.padBottom, rowReal = ih >= 0 && ih < H;
          for (int64_t j = 0; j < k.kw; ++j) {
            int64_t iw = ow * k.sw - k.padLeft + j * k.dw;
            // ceil_mode windows may overhang even the padding: such taps
            // count for neither divisor (ONNX / PyTorch behaviour)
            if (rowPadded && iw >= -k.padLeft && iw < W + k.padRight) ++padded;
            if (rowReal && iw >= 0 && iw < W) {
              ++real;
              sum += X[size_t((p * H + ih) * W + iw)];
            }
          }
        }
        int64_t count = includePad ? padded : real;
        Y[size_t((p * OH + oh) * OW + ow)] = count ? sum / double(count) : 0.0;
      }
  HostTensor out(outT);
  storeDoubles(out, Y);
  return out;
}

HostTensor evalBatchNorm(const Node& n, const Inputs& in, const TensorType& outT) {
  const HostTensor& x = *in[0];
  std::vector<double> X = toDoubles(x), scale = toDoubles(*in[1]), bias = toDoubles(*in[2]);
  std::vector<double> mean = toDoubles(*in[3]), var = toDoubles(*in[4]), Y(X.size());
  double eps = n.f("epsilon", 1e-5);
  int64_t N = x.type.shape[0], C = x.type.shape[1], inner = x.numel() / std::max<int64_t>(N * C, 1);
  for (int64_t b = 0; b < N; ++b)
    for (int64_t c = 0; c < C; ++c) {
      double mul = scale[size_t(c)] / std::sqrt(var[size_t(c)] + eps);
      for (int64_t i = 0; i < inner; ++i) {
        size_t at = size_t((b * C + c) * inner + i);
        Y[at] = (X[at] - mean[size_t(c)]) * mul + bias[size_t(c)];
      }
    }
  HostTensor out(outT);
  storeDoubles(out, Y);
  return out;
}

namespace {

// LayerNorm / RMSNorm normalize rows: the trailing axes [axis, rank) are
// one row of `inner` elements, `outer` rows.
struct NormRows {
  int64_t inner = 1, outer = 0;
};
NormRows normRows(const Node& n, const HostTensor& x) {
  const int rank = x.type.rank();
  int64_t axis = n.i("axis", -1);
  if (axis < 0) axis += rank;
  NormRows r;
  for (int64_t d = axis; d < rank; ++d) r.inner *= x.type.shape[size_t(d)];
  r.outer = r.inner ? x.numel() / r.inner : 0;
  return r;
}

// A row's mean and M2 (sum of squared deviations from the mean), in two
// passes: LayerNorm's statistics and Moments' result.
void rowMoments(const double* row, int64_t n, double& mean, double& m2) {
  mean = 0;
  m2 = 0;
  for (int64_t i = 0; i < n; ++i) mean += row[i];
  mean /= double(n);
  for (int64_t i = 0; i < n; ++i) m2 += (row[i] - mean) * (row[i] - mean);
}

}  // namespace

HostTensor evalLayerNorm(const Node& n, const Inputs& in, const TensorType& outT) {
  const HostTensor& x = *in[0];
  const auto [inner, outer] = normRows(n, x);
  bool hasBias = in.size() > 2 && n.inputs[2] != kNoValue;
  std::vector<double> X = toDoubles(x), scale = toDoubles(*in[1]), Y(X.size());
  std::vector<double> bias = hasBias ? toDoubles(*in[2]) : std::vector<double>(size_t(inner), 0.0);
  double eps = n.f("epsilon", 1e-5);
  const bool hasMoments = in.size() > 3 && n.inputs[3] != kNoValue;
  const std::vector<double> M = hasMoments ? toDoubles(*in[3]) : std::vector<double>();
  const int64_t chunks = hasMoments ? in[3]->type.shape[1] : 0;
  for (int64_t o = 0; o < outer; ++o) {
    const double* row = X.data() + o * inner;
    double mean = 0, var = 0;
    if (hasMoments) {  // the chunks' (mean, M2), combined (Chan et al.)
      const double* m = M.data() + 2 * o * chunks;
      for (int64_t c = 0; c < chunks; ++c) mean += m[2 * c];
      mean /= double(chunks);
      for (int64_t c = 0; c < chunks; ++c)
        var += m[2 * c + 1] + double(inner / chunks) * (m[2 * c] - mean) * (m[2 * c] - mean);
    } else {
      rowMoments(row, inner, mean, var);
    }
    var /= double(inner);  // biased, as LayerNorm defines it
    double inv = 1 / std::sqrt(var + eps);
    for (int64_t i = 0; i < inner; ++i)
      Y[size_t(o * inner + i)] = (row[i] - mean) * inv * scale[size_t(i)] + bias[size_t(i)];
  }
  HostTensor out(outT);
  storeDoubles(out, Y);
  return out;
}

HostTensor evalMoments(const HostTensor& x, const TensorType& outT) {
  const int64_t L = x.type.shape.back(), rows = L ? x.numel() / L : 0;
  const std::vector<double> X = toDoubles(x);
  std::vector<double> Y(size_t(2 * rows));
  for (int64_t r = 0; r < rows; ++r) {
    double mean = 0, m2 = 0;
    rowMoments(X.data() + r * L, L, mean, m2);
    Y[size_t(2 * r)] = mean;
    Y[size_t(2 * r + 1)] = m2;
  }
  HostTensor out(outT);
  storeDoubles(out, Y);
  return out;
}

HostTensor evalRMSNorm(const Node& n, const Inputs& in, const TensorType& outT) {
  const HostTensor& x = *in[0];
  const auto [inner, outer] = normRows(n, x);
  std::vector<double> X = toDoubles(x), scale = toDoubles(*in[1]), Y(X.size());
  const double eps = n.f("epsilon", 1e-5);
  const bool outside = n.i("epsilon_outside", 0) != 0;
  for (int64_t o = 0; o < outer; ++o) {
    const double* row = X.data() + o * inner;
    double ms = 0;
    for (int64_t i = 0; i < inner; ++i) ms += row[i] * row[i];
    ms /= double(inner);
    double r = outside ? std::sqrt(ms) + eps : std::sqrt(ms + eps);
    for (int64_t i = 0; i < inner; ++i) Y[size_t(o * inner + i)] = row[i] / r * scale[size_t(i)];
  }
  HostTensor out(outT);
  storeDoubles(out, Y);
  return out;
}

HostTensor evalPrologue(const Node& n, const Inputs& in) {
  const HostTensor &a = *in.front(), &u = *in.back();
  if (prologueOf(n) == Prologue::RmsNorm) {
    Node norm;
    norm.op = Op::RMSNorm;
    norm.name = n.name;
    norm.attrs["epsilon"] = n.f("rms_eps");
    return evalRMSNorm(norm, {&a, &u}, a.type);
  }
  HostTensor out(a.type);  // swiglu
  for (int64_t i = 0; i < a.numel(); ++i) {
    const double v = a.getF(i);
    storeF(out, i, silu(v) * u.getF(i));
  }
  return out;
}

HostTensor evalRotary(const Inputs& in, const TensorType& outT, bool tokensMajor) {
  const HostTensor &x = *in[0], &cos = *in[1], &sin = *in[2];
  const Shape& os = outT.shape;
  const int64_t D = os.back(), T = os[os.size() - 2], half = D / 2;
  const int64_t H = tokensMajor ? os[os.size() - 3] : 1;
  std::vector<double> X = toDoubles(x), C = toDoubles(cos), S = toDoubles(sin), Y(X.size());
  for (size_t i = 0; i < X.size(); ++i) {
    const int64_t d = int64_t(i) % D, row = (int64_t(i) / D) % T;
    // x's element at the output's (.., h, row, d): [.., row, h, d] when tokens-major.
    int64_t at = int64_t(i) - d;
    if (tokensMajor) {
      const int64_t h = (int64_t(i) / (D * T)) % H, outer = int64_t(i) / (D * T * H);
      at = ((outer * T + row) * H + h) * D;
    }
    const size_t c = size_t(row * D + d);
    Y[i] = X[size_t(at + d)] * C[c] + X[size_t(at + (d < half ? d + half : d - half))] * S[c];
  }
  HostTensor out(outT);
  storeDoubles(out, Y);
  return out;
}

HostTensor evalAttention(const Node& n, const Inputs& in, const TensorType& outT) {
  const HostTensor &q = *in[0], &k = *in[1], &v = *in[2];
  const HostTensor* mask = in.size() > 3 ? in[3] : nullptr;
  const int64_t tm = attentionTokensMajor(n);
  const Shape qs = attentionLogical(n, kAttnQ, q.type.shape), ks = attentionLogical(n, kAttnK, k.type.shape);
  const size_t rank = qs.size();
  const int64_t T = qs[rank - 2], D = qs[rank - 1], S = ks[rank - 2], Dv = v.type.shape[v.type.shape.size() - 1];
  // Where row r of leading index b starts in an operand stored tokens-major or not (attention_layout.h).
  auto rowAt = [](const Shape& logical, bool tokensMajor) {
    const int64_t H = attentionRowHeads(logical, tokensMajor), R = logical[logical.size() - 2], W = logical.back();
    return [=](int64_t b, int64_t r) { return ((b / H) * R * H + r * H + b % H) * W; };
  };
  Shape outLogical = qs;
  outLogical.back() = Dv;
  const auto qAt = rowAt(qs, tm & kAttnQ), kAt = rowAt(ks, tm & kAttnK),
             vAt = rowAt(attentionLogical(n, kAttnV, v.type.shape), tm & kAttnV), yAt = rowAt(outLogical, tm & kAttnOut);
  const double scale = n.f("scale", 1.0);
  // precision = "fp16" (ir/matmul.h): q, k, v rounded; each weight rounded for the sum over v only.
  const bool f16 = matmulPrecision(n) == MatMulPrecision::F16;
  auto operand = [&](const HostTensor& x) { return toDoubles(f16 ? roundOperand(x, MatMulPrecision::F16) : x); };
  auto numerator = [&](double w) {
    return f16 ? double(mgb::dtype::halfToFloat(mgb::dtype::floatToHalf(float(w)))) : w;
  };
  std::vector<double> Q = operand(q), K = operand(k), V = operand(v), M;
  if (mask) M = toDoubles(*mask);
  const int64_t batches = numel(qs) / (T * D);
  std::vector<double> Y(size_t(batches * T * Dv)), weight(static_cast<size_t>(S));
  // k's batch for each of q's: its leading dims broadcast to q's.
  const Shape qLead(qs.begin(), qs.end() - 2), kLead(ks.begin(), ks.end() - 2);
  StridedWalk w(qLead, {broadcastStrides(kLead, qLead)});
  for (int64_t b = 0; b < batches; ++b, w.next()) {
    const int64_t kb = w[0];
    for (int64_t t = 0; t < T; ++t) {
      double mx = -INFINITY, sum = 0;
      for (int64_t j = 0; j < S; ++j) {
        const double m = mask ? M[size_t(t * S + j)] : 0.0;
        double dot = 0;
        for (int64_t d = 0; d < D; ++d) dot += Q[size_t(qAt(b, t) + d)] * K[size_t(kAt(kb, j) + d)];
        weight[size_t(j)] = m <= -1e30 ? m : dot * scale + m;  // a hidden key scores its mask (ops.def)
        mx = nanMax(mx, weight[size_t(j)]);
      }
      for (double& x : weight) {  // scores become weights
        x = std::exp(x - mx);
        sum += x;
      }
      for (int64_t e = 0; e < Dv; ++e) {
        double acc = 0;
        for (int64_t j = 0; j < S; ++j)
          if (weight[size_t(j)] != 0) acc += numerator(weight[size_t(j)]) * V[size_t(vAt(kb, j) + e)];
        Y[size_t(yAt(b, t) + e)] = acc / sum;
      }
    }
  }
  HostTensor out(outT);
  storeDoubles(out, Y);
  return out;
}

std::vector<HostTensor> evalAttentionCache(const Node& n, const Inputs& in, const std::vector<TensorType>& outT) {
  const HostTensor &q = *in[0], &k = *in[1], &v = *in[2], &offset = *in[5];
  const Shape& qs = q.type.shape;
  const int64_t B = qs[0], H = qs[1], T = qs[2], D = qs[3], KV = k.type.shape[1], S = outT[1].shape[2],
                Dv = v.type.shape[3];
  HostTensor kRot = evalRotary({&k, in[6], in[7]}, k.type);
  HostTensor keys = evalStateWrite(2, *in[3], kRot, offset, outT[1]);
  HostTensor values = evalStateWrite(2, *in[4], v, offset, outT[2]);
  // The GQA views of ops.def: q [B, KV, G, T, D] against K/V [B, KV, 1, S, *].
  HostTensor q5 = evalRotary({&q, in[6], in[7]}, q.type), k5 = keys, v5 = values;
  q5.type.shape = {B, KV, H / KV, T, D};
  k5.type.shape = {B, KV, 1, S, D};
  v5.type.shape = {B, KV, 1, S, Dv};
  Inputs args{&q5, &k5, &v5};
  HostTensor causal;  // ops.def: j > offset + t hides key j
  if (n.i("causal", 0) != 0) {
    causal = HostTensor(TensorType{DType::F32, {T, S}});
    const int64_t last = offset.getI(0);
    for (int64_t t = 0; t < T; ++t)
      for (int64_t j = 0; j < S; ++j) storeF(causal, t * S + j, j > last + t ? -FLT_MAX : 0.0);
    args.push_back(&causal);
  } else if (n.inputs.size() > 8 && n.inputs[8] != kNoValue) {
    args.push_back(in[8]);
  }
  HostTensor out = evalAttention(n, args, TensorType{DType::F32, {B, KV, H / KV, T, Dv}});
  auto operand = [&](size_t k) { return k < in.size() ? in[k] : nullptr; };
  if (operand(9)) {  // the output projection (T = 1: the heads' rows side by side)
    out.type = TensorType{DType::F32, {B, T, H * Dv}};
    const HostTensor w = dequantizeWeight(*in[9], operand(10), WeightFormat(n.i("format", 0)), H * Dv, n.i("group", 0));
    out = evalMatMul(out, swapLastTwo(w), outT[0]);
    if (const HostTensor* r = operand(11))
      for (int64_t i = 0; i < out.numel(); ++i) storeF(out, i, out.getF(i) + r->getF(i));
  }
  out.type = outT[0];
  std::vector<HostTensor> r;
  r.push_back(std::move(out));
  r.push_back(std::move(keys));
  r.push_back(std::move(values));
  return r;
}

HostTensor evalQGatedMlp(const Node& n, const Inputs& in, const TensorType& outT) {
  const HostTensor& x = *in[0];
  const WeightFormat f = WeightFormat(n.i("format", 0));
  const int64_t group = n.i("group", 0), K = x.type.shape.back();
  auto weight = [&](size_t k, int64_t cols) {  // words k, scales k + 3
    return dequantizeWeight(*in[k], in.size() > k + 3 ? in[k + 3] : nullptr, f, cols, group);
  };
  auto operand = [&](size_t k) { return in.size() > k ? in[k] : nullptr; };
  HostTensor xn = x;
  if (operand(7)) {
    Node norm;
    norm.op = Op::RMSNorm;
    norm.name = n.name;
    norm.attrs["epsilon"] = n.f("norm_eps");
    xn = evalRMSNorm(norm, {&x, operand(7)}, x.type);
  }
  const HostTensor wg = weight(1, K), wu = weight(2, K);
  TensorType hidden = x.type;
  hidden.shape.back() = wg.type.shape[0];
  const HostTensor gate = evalMatMul(xn, swapLastTwo(wg), hidden), up = evalMatMul(xn, swapLastTwo(wu), hidden);
  HostTensor h(hidden);
  for (int64_t i = 0; i < h.numel(); ++i) {
    const double v = gate.getF(i);
    storeF(h, i, silu(v) * up.getF(i));
  }
  HostTensor out = evalMatMul(h, swapLastTwo(weight(3, hidden.shape.back())), outT);
  if (const HostTensor* r = operand(8))
    for (int64_t i = 0; i < out.numel(); ++i) storeF(out, i, out.getF(i) + r->getF(i));
  return out;
}

HostTensor evalSoftmax(const Node& n, const HostTensor& x, const TensorType& outT, bool logarithm) {
  int rank = x.type.rank();
  int64_t axis = n.i("axis", -1);
  if (axis < 0) axis += rank;
  int64_t outer = 1, D = rank ? x.type.shape[size_t(axis)] : 1, inner = 1;
  for (int64_t d = 0; d < axis; ++d) outer *= x.type.shape[size_t(d)];
  for (int64_t d = axis + 1; d < rank; ++d) inner *= x.type.shape[size_t(d)];
  std::vector<double> X = toDoubles(x), Y(X.size());
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      auto at = [&](int64_t d) { return size_t((o * D + d) * inner + i); };
      double mx = -INFINITY, sum = 0;
      for (int64_t d = 0; d < D; ++d) mx = nanMax(mx, X[at(d)]);
      for (int64_t d = 0; d < D; ++d) sum += std::exp(X[at(d)] - mx);  // shifted: never overflows
      for (int64_t d = 0; d < D; ++d)
        Y[at(d)] = logarithm ? X[at(d)] - mx - std::log(sum) : std::exp(X[at(d)] - mx) / sum;
    }
  HostTensor out(outT);
  storeDoubles(out, Y);
  return out;
}

// The fused epilogue (ir/epilogue.h) on an already computed Conv /
// MatMul result: each step in double on the stored value, operands read at
// the same element (full shape) or at its last-axis index (row vector).
void applyEpilogue(const Node& n, const Inputs& in, HostTensor& out) {
  Epilogue e = readEpilogue(n);
  if (e.steps.empty()) return;
  int64_t count = out.numel(), cols = out.type.shape.empty() ? 1 : out.type.shape.back();
  size_t first = size_t(epilogueFirstInput(n.op));
  for (int64_t i = 0; i < count; ++i) {
    double v = out.getF(i);
    size_t operand = first;
    for (size_t s = 0; s < e.steps.size(); ++s) {
      if (takesOperand(e.steps[s])) {
        const HostTensor& t = *in.at(operand++);
        const double o = t.getF(t.numel() == count ? i : i % cols);
        if (e.steps[s] == EpilogueStep::Add) v += o;
        else v *= silu(o);  // mul_silu
      } else {
        v = applyEpilogueStep(e.steps[s], v, e.args[2 * s], e.args[2 * s + 1]);
      }
    }
    storeF(out, i, v);
  }
}

}  // namespace mgc::eval
