// Splits the weights out of an ONNX model's bytes before protobuf sees them.
//
// Parsing a 600 MB model with protobuf copies every initializer's raw_data
// into a std::string of its own. Instead, the wire format of the mapped
// file is scanned three levels deep (ModelProto.graph = 7 → GraphProto.
// initializer = 5 → TensorProto.raw_data = 9); the result is a copy of the
// model without those raw_data fields (enclosing lengths re-encoded), small
// enough to parse as usual, plus where each initializer's raw_data lies in
// the original bytes. Every other field is copied verbatim, so protobuf
// sees exactly what it would have seen, minus the weights.
//
//   model bytes:   [graph: [node...][initializer: [dims][name][raw_data 9 MB]]...]
//   stripped:      [graph: [node...][initializer: [dims][name]]...]
//   rawData[k]:    view of the 9 MB inside the model bytes
//
// Constant nodes' tensors (attributes) keep their raw_data: they are small.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mgc::onnximport {

struct SplitModel {
  // The model without initializer raw_data; empty when nothing was taken
  // out (the original bytes parse as they are).
  std::string stripped;
  // Per initializer, in the order the parsed GraphProto lists them (graph
  // fields that repeat are merged by protobuf, their initializers
  // appended): the bytes of its raw_data, pointing into the scanned bytes,
  // or nullopt when it has none. Of several raw_data fields in one tensor,
  // the last, as protobuf keeps.
  std::vector<std::optional<std::string_view>> rawData;
};

// Scans `size` bytes of a serialized ModelProto. On malformed wire data
// (truncated varint, a length past the end of its message, a field number
// 0, an invalid or group wire type) returns "byte N: reason" and leaves
// `out` unspecified; returns "" on success.
std::string splitInitializerBytes(const void* data, size_t size, SplitModel& out);

}  // namespace mgc::onnximport
