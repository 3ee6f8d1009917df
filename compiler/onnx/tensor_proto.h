// ONNX TensorProto ↔ mgc HostTensor, with every size checked: a hostile file
// gets an error naming the tensor, never a crash or a huge allocation.
#pragma once

#include <onnx/onnx_pb.h>

#include <optional>
#include <string>
#include <string_view>

#include "ir/builder.h"
#include "ir/types.h"

namespace mgc::onnximport {

// No tensor the importer creates may have more elements than this
// (GraphBuilder's limit, which checkedNumel enforces).
constexpr int64_t kMaxElements = GraphBuilder::kMaxElements;

// ONNX TensorProto::DataType → DType; false for types the IR lacks.
bool dtypeFromOnnx(int32_t onnxType, DType* out);
const char* onnxTypeName(int32_t onnxType);

// Converts raw_data or the typed repeated fields. `what` prefixes messages,
// e.g. "model.onnx: initializer 'w'". `rawData`, when given, stands for the
// tensor's raw_data field, which the import took out of the message before
// parsing it (initializer_bytes.h); the bytes are copied once, into the result.
HostTensor tensorFromProto(const onnx::TensorProto& t, const std::string& what,
                           std::optional<std::string_view> rawData = std::nullopt);

}  // namespace mgc::onnximport
