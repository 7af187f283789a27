// Names of ONNX values as names of ours: kept when they are already
// symbols of the graph language and file names (`--out DIR` writes
// DIR/NAME.npy); otherwise every character other than a letter, a digit,
// `_`, `-` or `.` becomes `_`, a name starting with a digit, `-`, `.` or
// `+` (or empty, or `true`/`false`) gets a leading `_`, and a name taken
// by an earlier value gets `_2`, `_3`, ...: `onnx::Gemm_0` is
// `onnx__Gemm_0`, `input.1` stays `input.1`, `23` is `_23`.
#pragma once

#include <set>
#include <string>

namespace eqsat::onnx {

class ValueNames {
 public:
  // The name of ours for ONNX name `onnx_name`, unique among those given.
  std::string make(const std::string& onnx_name);

 private:
  std::set<std::string> taken_;
};

}  // namespace eqsat::onnx
