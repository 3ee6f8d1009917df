// ONNX TensorProto ↔ mgc HostTensor, with every size checked: a hostile file
// gets an error naming the tensor, never a crash or a huge allocation.
#pragma once

#include <onnx/onnx_pb.h>

#include <string>

#include "compiler/ir/types.h"

namespace mgc::onnximport {

// No tensor the importer creates may have more elements than this (2^36
// elements = 256 GiB of f32: far beyond any model, far below overflow).
constexpr int64_t kMaxElements = int64_t(1) << 36;

// ONNX TensorProto::DataType → DType; false for types the IR lacks.
bool dtypeFromOnnx(int32_t onnxType, DType* out);
const char* onnxTypeName(int32_t onnxType);

// Element count of `s`; throws Error("<what>: ...") on a negative dim or a
// count past kMaxElements (checked before any multiplication overflows).
int64_t checkedNumel(const Shape& s, const std::string& what);

// Converts raw_data or the typed repeated fields. `what` prefixes messages,
// e.g. "model.onnx: initializer 'w'".
HostTensor tensorFromProto(const onnx::TensorProto& t, const std::string& what);

}  // namespace mgc::onnximport
