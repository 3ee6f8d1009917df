// ONNX TensorProto files (the backend test data's input_N.pb / output_N.pb)
// as mgc host tensors.
#pragma once

#include <string>

#include "ir/types.h"
#include "runtime/include/mgrt.h"

namespace mgc::conformance {

// Maps an ONNX TensorProto::DataType to an mgc dtype. Returns false for
// element types mgc has no dtype for (string, uint16/32/64, int16, bf16,
// complex); *name gets the ONNX name for the message.
bool onnxDTypeToMgc(int onnxType, DType* out, std::string* name);

// Parses a serialized TensorProto file. On failure returns false and sets
// *err; *unsupported tells whether the failure is an element type mgc lacks
// (as opposed to a corrupt file).
bool loadTensorProto(const std::string& path, HostTensor* out, std::string* err, bool* unsupported);

// The same element types under the runtime's names.
mgrt_dtype mgcToMgrtDType(DType t);
DType mgrtToMgcDType(mgrt_dtype t);

// `src` converted element by element to `dtype` (same shape).
HostTensor convertTensor(const HostTensor& src, DType dtype);

}  // namespace mgc::conformance
