// Whether a file is an ONNX model, decided without protobuf: the eqsat
// program asks before it opens the ONNX module (module.hpp), so reading a
// graph file never loads protobuf.
#pragma once

#include <fstream>
#include <string>

namespace eqsat::onnx {

// True when `path` names an ONNX model: its suffix is `.onnx`, or its first
// byte is that of a serialized ModelProto (field 1, a varint: 0x08), which
// no graph text starts with.
inline bool is_onnx_model(const std::string& path) {
  if (path.size() >= 5 && path.compare(path.size() - 5, 5, ".onnx") == 0) return true;
  std::ifstream in(path, std::ios::binary);
  char first = 0;
  return in.get(first) && first == 0x08;
}

}  // namespace eqsat::onnx
