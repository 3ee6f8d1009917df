#include "tools/conformance/tensor_proto.h"

#include <cstring>
#include <fstream>

#include "onnx/onnx_pb.h"

namespace mgc::conformance {

bool onnxDTypeToMgc(int onnxType, DType* out, std::string* name) {
  using TP = onnx::TensorProto;
  *name = TP::DataType_Name(static_cast<TP::DataType>(onnxType));
  switch (onnxType) {
    case TP::FLOAT: *out = DType::F32; return true;
    case TP::FLOAT16: *out = DType::F16; return true;
    case TP::DOUBLE: *out = DType::F64; return true;
    case TP::INT64: *out = DType::I64; return true;
    case TP::INT32: *out = DType::I32; return true;
    case TP::INT8: *out = DType::I8; return true;
    case TP::UINT8: *out = DType::U8; return true;
    case TP::BOOL: *out = DType::Bool; return true;
    case TP::BFLOAT16: *out = DType::BF16; return true;
    case TP::INT16: *out = DType::I16; return true;
    case TP::UINT16: *out = DType::U16; return true;
    case TP::UINT32: *out = DType::U32; return true;
    case TP::UINT64: *out = DType::U64; return true;
    default: return false;
  }
}

namespace {

// TensorProto keeps values either in raw_data (little-endian bytes of the
// element type) or in a typed repeated field whose width depends on the
// element type: int32_data also carries f16 / bf16 bit patterns, int8, uint8,
// int16, uint16 and bool; uint64_data carries uint32 and uint64.
bool fillFromTypedFields(const onnx::TensorProto& tp, HostTensor* t, std::string* err) {
  const int64_t n = t->numel();
  auto sizeMismatch = [&](int64_t have) {
    *err = "tensor '" + tp.name() + "' has " + std::to_string(have) + " values for shape " +
           shapeStr(t->type.shape);
    return false;
  };
  switch (t->type.dtype) {
    case DType::F32:
      if (tp.float_data_size() != n) return sizeMismatch(tp.float_data_size());
      for (int64_t i = 0; i < n; ++i) t->as<float>()[i] = tp.float_data(int(i));
      return true;
    case DType::F64:
      if (tp.double_data_size() != n) return sizeMismatch(tp.double_data_size());
      for (int64_t i = 0; i < n; ++i) t->as<double>()[i] = tp.double_data(int(i));
      return true;
    case DType::I64:
      if (tp.int64_data_size() != n) return sizeMismatch(tp.int64_data_size());
      for (int64_t i = 0; i < n; ++i) t->as<int64_t>()[i] = tp.int64_data(int(i));
      return true;
    case DType::F16:
    case DType::BF16:
      if (tp.int32_data_size() != n) return sizeMismatch(tp.int32_data_size());
      for (int64_t i = 0; i < n; ++i) t->as<uint16_t>()[i] = uint16_t(tp.int32_data(int(i)));
      return true;
    case DType::I32:
    case DType::I8:
    case DType::U8:
    case DType::Bool:
    case DType::I16:
    case DType::U16:
      if (tp.int32_data_size() != n) return sizeMismatch(tp.int32_data_size());
      for (int64_t i = 0; i < n; ++i) t->setI(i, tp.int32_data(int(i)));
      return true;
    case DType::U32:
    case DType::U64:
      if (tp.uint64_data_size() != n) return sizeMismatch(tp.uint64_data_size());
      for (int64_t i = 0; i < n; ++i) t->setI(i, int64_t(tp.uint64_data(int(i))));
      return true;
  }
  return false;
}

}  // namespace

bool loadTensorProto(const std::string& path, HostTensor* out, std::string* err, bool* unsupported) {
  *unsupported = false;
  std::ifstream f(path, std::ios::binary);
  onnx::TensorProto tp;
  if (!f || !tp.ParseFromIstream(&f)) {
    *err = "cannot parse TensorProto " + path;
    return false;
  }
  if (tp.has_data_location() && tp.data_location() == onnx::TensorProto::EXTERNAL) {
    *err = "external tensor data in " + path;
    *unsupported = true;
    return false;
  }
  DType dt;
  std::string typeName;
  if (!onnxDTypeToMgc(tp.data_type(), &dt, &typeName)) {
    *err = "unsupported dtype " + typeName + " in " + path;
    *unsupported = true;
    return false;
  }
  TensorType type{dt, Shape(tp.dims().begin(), tp.dims().end())};
  *out = HostTensor(type);
  if (tp.has_raw_data()) {
    if (tp.raw_data().size() != out->data.size()) {
      *err = "raw_data of " + path + " has " + std::to_string(tp.raw_data().size()) +
             " bytes, expected " + std::to_string(out->data.size()) + " for " + type.str();
      return false;
    }
    if (!out->data.empty()) std::memcpy(out->data.data(), tp.raw_data().data(), out->data.size());
    return true;
  }
  return fillFromTypedFields(tp, out, err);
}

mgrt_dtype mgcToMgrtDType(DType t) {
  switch (t) {
    case DType::F32: return MGRT_F32;
    case DType::F16: return MGRT_F16;
    case DType::F64: return MGRT_F64;
    case DType::I64: return MGRT_I64;
    case DType::I32: return MGRT_I32;
    case DType::I8: return MGRT_I8;
    case DType::U8: return MGRT_U8;
    case DType::Bool: return MGRT_BOOL;
    case DType::BF16: return MGRT_BF16;
    case DType::I16: return MGRT_I16;
    case DType::U16: return MGRT_U16;
    case DType::U32: return MGRT_U32;
    case DType::U64: return MGRT_U64;
  }
  return MGRT_F32;
}

DType mgrtToMgcDType(mgrt_dtype t) {
  switch (t) {
    case MGRT_F32: return DType::F32;
    case MGRT_F16: return DType::F16;
    case MGRT_F64: return DType::F64;
    case MGRT_I64: return DType::I64;
    case MGRT_I32: return DType::I32;
    case MGRT_I8: return DType::I8;
    case MGRT_U8: return DType::U8;
    case MGRT_BOOL: return DType::Bool;
    case MGRT_BF16: return DType::BF16;
    case MGRT_I16: return DType::I16;
    case MGRT_U16: return DType::U16;
    case MGRT_U32: return DType::U32;
    case MGRT_U64: return DType::U64;
  }
  return DType::F32;
}

HostTensor convertTensor(const HostTensor& src, DType dtype) {
  if (src.type.dtype == dtype) return src;
  HostTensor dst(TensorType{dtype, src.type.shape});
  const bool exactInts = !isFloat(src.type.dtype) && !isFloat(dtype);
  for (int64_t i = 0; i < src.numel(); ++i) {
    if (exactInts)
      dst.setI(i, src.getI(i));  // int64 values past 2^53 survive
    else
      dst.setF(i, src.getF(i));
  }
  return dst;
}

}  // namespace mgc::conformance
