// One sample application of every op of the catalogue, shared by the tests
// that iterate over the catalogue (printing, pullbacks): ops of a group
// share a pattern, the others are listed by name. A new op outside the
// unary, binary and reduction groups needs a line here.
#pragma once

#include "ops/op.hpp"

#include <fmt/format.h>

#include <map>
#include <string>
#include <string_view>

namespace eqsat::ops::test {

// Inputs the op samples use.
inline const char* const kInputs = R"(
  (input x (f64 3))
  (input m (f64 2 3))
  (input u (f32 ? 3))
  (input b (bool 3))
  (input i i64)
  (input k (i32 3))
)";

// The sample application of `kind` over kInputs; "" when there is none.
inline std::string op_sample(OpKind kind) {
  static const std::map<std::string_view, std::string> kSamples = {
      {"logical_not", "(logical_not b)"},
      {"cast", "(cast m :dtype i32)"},
      {"where", "(where b x 0.5)"},
      {"softmax", "(softmax m :axis 0)"},
      {"log_softmax", "(log_softmax u)"},
      {"dot", "(dot m x)"},
      {"reshape", "(reshape m :shape (3 -1))"},
      {"transpose", "(transpose m :perm (1 0))"},
      {"expand_dims", "(expand_dims x :axis -1)"},
      {"squeeze", "(squeeze (expand_dims x :axis 0))"},
      {"broadcast_to", "(broadcast_to x :shape (4 3))"},
      {"broadcast_like", "(broadcast_like x m)"},
      {"flip", "(flip m :axis 1)"},
      {"concat", "(concat m m (ones :shape (1 3)) :axis 0)"},
      {"stack", "(stack x x x :axis 1)"},
      {"dim", "(dim u :axis 0)"},
      {"index", "(index m -1)"},
      {"slice", "(slice m :axis 1 :start 1 :stop -1 :step 2)"},
      {"resize_rows", "(resize_rows m 4)"},
      {"set_index", "(set_index m i x)"},
      {"inc_index", "(inc_index m 0 1.5)"},
      {"set_slice", "(set_slice m x :axis 0 :start 1)"},
      {"inc_slice", "(inc_slice k 2 :step 2)"},
      {"zeros", "(zeros :shape (2 2) :dtype i32)"},
      {"ones", "(ones :shape ())"},
      {"full", "(full 1.5 :shape (2) :dtype f32)"},
      {"zeros_like", "(zeros_like k)"},
      {"ones_like", "(ones_like u)"},
      {"arange", "(arange 4 :dtype f64)"},
      {"grad", "(grad (sum (exp m)) m)"},
      {"call", "(call twice x)"},
      {"get", "(get 0 (call stats m))"},
      {"scan", "(get 0 (scan :sequences (m) :sit-sot (x) (fn (r h) (add r h))))"},
  };
  const OpInfo& info = op_info(kind);
  if (auto it = kSamples.find(info.name); it != kSamples.end()) return it->second;
  const std::string name(info.name);
  switch (info.group) {
    case OpGroup::Unary:
      return fmt::format("({} m)", name);
    case OpGroup::Binary:
      return fmt::format("({} m x)", name);
    case OpGroup::Reduction:
      return fmt::format("({} m :axis 1 :keepdims true)", name);
    case OpGroup::Leaf:
    case OpGroup::Select:
    case OpGroup::Softmax:
    case OpGroup::LinAlg:
    case OpGroup::Shape:
    case OpGroup::Indexing:
    case OpGroup::Creation:
    case OpGroup::Control:
    case OpGroup::Gradient:
      break;  // listed above by name, or none (leaves and fn are not written as ops)
  }
  return "";
}

}  // namespace eqsat::ops::test
