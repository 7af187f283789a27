// ONNX's protobuf classes (Debian's libonnx-dev, built with ONNX_ML) under
// the short name `pb`, so that code in eqsat::onnx never confuses them with
// its own namespace.
#pragma once

#include <onnx/onnx_pb.h>

namespace eqsat::onnx {
namespace pb = ::onnx;
}  // namespace eqsat::onnx
