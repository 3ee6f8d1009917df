// Private to compiler/onnx/: helpers of ops_extra*.cpp that the older
// converter files call.
#pragma once

#include "compiler/onnx/importer.h"

namespace mgc::onnximport {

void addExtraConverters(ConverterTable& t);
void addLossConverters(ConverterTable& t);    // ops_loss.cpp
void addEinsumConverters(ConverterTable& t);  // ops_einsum.cpp
void addMoreConverters(ConverterTable& t);    // ops_more.cpp
void addRecurrentConverters(ConverterTable& t);  // ops_rnn.cpp
void addSequenceConverters(ConverterTable& t);   // ops_sequence.cpp
void addResizeConverters(ConverterTable& t);     // ops_resize.cpp
void addCumSumConverters(ConverterTable& t);     // ops_cumsum.cpp
void addTopKConverters(ConverterTable& t);       // ops_topk.cpp
void addScatterNDConverters(ConverterTable& t);  // ops_scatter_nd.cpp
void addTrainingConverters(ConverterTable& t);   // ops_training.cpp (ai.onnx.preview.training)
void addWindowConverters(ConverterTable& t);     // ops_window.cpp
void addIntegerConverters(ConverterTable& t);    // ops_integer.cpp
void addGridSampleConverters(ConverterTable& t); // ops_grid_sample.cpp
void addDftConverters(ConverterTable& t);        // ops_dft.cpp (DFT, STFT)
void addDetConverters(ConverterTable& t);        // ops_det.cpp
void addMaxUnpoolConverters(ConverterTable& t);  // ops_max_unpool.cpp

// Pad in mode "reflect" or "edge" as Slices and Concats per axis; `pads`
// is [begin..., end...] with one entry per axis (negative entries crop).
ValueId padByMode(NodeContext& c, ValueId x, const std::vector<int64_t>& pads, const std::string& mode);

// ArgMax with select_last_index=1: the first maximum of x reversed along
// `axis`, mapped back (dim - 1 - i). Output like ArgMax{axis, keepdims}.
ValueId argMaxLast(NodeContext& c, ValueId x, int64_t axis, int64_t keepdims);

// BatchNormalization with training_mode=1 (opset >= 14): batch statistics
// normalize; outputs 1 and 2 are the updated running mean / variance.
void batchNormTraining(NodeContext& c);

// 3-D windows (ops_3d.cpp): MaxPool / AvgPool (op) and Conv over [N, C, D, H, W].
void pool3d(NodeContext& c, Op op);
void conv3d(NodeContext& c);

// v as f32 (v itself when it is f32 already). ops_more.cpp
ValueId toF32(NodeContext& c, ValueId v);
// saturate(round_half_even(scaled) + zp) into u8 / i8 (zpF32 may be
// kNoValue). ops_more.cpp
ValueId quantize(NodeContext& c, ValueId scaled, ValueId zpF32, DType to);

// Conv of x [N,C,(H,)W] with weight wt (and bias or kNoValue) under the
// node's window attributes (auto_pad, dilations, group, kernel_shape, pads,
// strides): 1-D and 2-D windows. ops_nn.cpp
ValueId convValue(NodeContext& c, ValueId x, ValueId wt, ValueId bias);

// x reversed along `axis` (a Slice with step -1).
ValueId reverseAxis(NodeContext& c, ValueId x, int64_t axis);

// LayerNormalization's optional Mean and InvStdDev outputs (1 and 2),
// computed in f32 over axes [axis, rank) with keepdims.
void layerNormStatistics(NodeContext& c, ValueId x, int64_t axis, double epsilon);

}  // namespace mgc::onnximport
