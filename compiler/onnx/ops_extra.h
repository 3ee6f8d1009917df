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

// x reversed along `axis` (a Slice with step -1).
ValueId reverseAxis(NodeContext& c, ValueId x, int64_t axis);

// LayerNormalization's optional Mean and InvStdDev outputs (1 and 2),
// computed in f32 over axes [axis, rank) with keepdims.
void layerNormStatistics(NodeContext& c, ValueId x, int64_t axis, double epsilon);

}  // namespace mgc::onnximport
