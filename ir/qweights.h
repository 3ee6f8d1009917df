// Low-bit weight formats for QMatMul (ops.def): how a linear layer's
// weight matrix W [N, K] (PyTorch Linear layout, K contiguous) is packed
// into 32-bit words, one row of N after another, and how it is read back.
//
//   format   bits  per word  value                      scales
//   f16      16    2         the half                    none
//   int8     8     4         q * s, q in [-127, 127]     s = max|w| / 127 per group
//   int4     4     8         q * s, q in [-7, 7]         s = max|w| / 7 per group
//   ternary  2     16        q * s, q in {-1, 0, 1}      s = mean|w| per group (absmean)
//
// Element k of a row sits in word k / perWord at bits (k % perWord) * bits,
// two's complement (a signed bitfield extract reads it back). A group is
// `group` consecutive k of one row sharing one f32 scale: scales [N, K /
// group]. The kernels (kernels/src/qweights.glsl) decode exactly this.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "ir/types.h"

namespace mgc {

enum class WeightFormat : int64_t { F32 = 0, F16 = 1, Int8 = 2, Int4 = 3, Ternary = 4 };

struct WeightFormatInfo {
  const char* name;
  int bits;       // bits per weight
  bool scaled;    // per-group scales
};

const WeightFormatInfo& weightFormatInfo(WeightFormat f);

// How a frontend holds the weights of linear layers (`mgc compile
// --weights F --group-size G`): f32 as read, or packed for QMatMul.
struct WeightPacking {
  WeightFormat format = WeightFormat::F32;
  int64_t group = 64;  // weights per scale (scaled formats)
};
inline int weightsPerWord(WeightFormat f) { return 32 / weightFormatInfo(f).bits; }
// "f32", "fp32", "f16", "fp16", "int8", "int4", "ternary"; false otherwise.
bool parseWeightFormat(std::string_view s, WeightFormat* out);

// Why W [N, K] cannot be packed as `f` with groups of `group` (K or the
// group not a multiple of the word, K not a multiple of the group), or ""
// when it can.
std::string quantizeProblem(WeightFormat f, int64_t K, int64_t group);

// qmatvec's one-row path (kernels/src/qmatvec_rows.glsl) stages a row of x
// of at most kStagedOnceK values once per workgroup; a longer row is staged
// chunk by chunk for every row group (kernels/lower_qmatmul.cpp,
// passes/graph/fuse_swiglu_epilogue.cpp).
constexpr int64_t kStagedOnceK = 4096;

// QGatedMlp's kernel (kernels/src/qgated_mlp.comp) takes its intermediates
// kGatedMlpRows at a time, the gate / up rows with qmatvec's one-row path.
// Why x [K] times gate / up [I, K] and down [N, I] packed as `f` with
// groups of `group` cannot run there (rows of gate / up not whole 16-byte
// columns, I not a multiple of kGatedMlpRows, a group that is not), or "".
constexpr int64_t kGatedMlpRows = 16;
std::string qgatedMlpProblem(WeightFormat f, int64_t K, int64_t I, int64_t group);

// Why an attention_cache with the output projection (o [N, K] packed as
// `f`, K = H · Dv) cannot run attention_cache_proj.comp, which reads each
// head's slice of a row of o in at most 16 16-byte loads, or "".
std::string attentionProjProblem(WeightFormat f, int64_t K, int64_t Dv);

struct QuantizedWeight {
  HostTensor words;   // i32 [N, K / perWord]
  HostTensor scales;  // f32 [N, K / group]; empty (numel 0, rank 0) for f16
};

// W f32 [N, K] → packed words and scales (quantizeProblem must be "").
QuantizedWeight quantizeWeight(const HostTensor& w, WeightFormat f, int64_t group);
// The f32 values a packed weight stands for: [N, K].
HostTensor dequantizeWeight(const HostTensor& words, const HostTensor* scales, WeightFormat f, int64_t K,
                            int64_t group);

}  // namespace mgc
