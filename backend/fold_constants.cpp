// Constant folding at compile time (Function::fold_constants): what a
// body computes from its constants alone is computed once, when the
// Program is made, instead of on every run or loop step.
#include "function.hpp"

#include "kernel_support.hpp"
#include "kernels.hpp"
#include "runtime_error.hpp"

#include "ops/type_error.hpp"

#include <algorithm>

namespace eqsat::backend::detail {

using ops::Array;

// An instruction whose operands are all constants (or values folded
// before it) and whose result is no larger than its largest operand (a
// weight's transpose, reshape or slice, the sum of two bias halves) runs
// here; its result becomes a pinned slot, as a constant is. So an imported
// LSTM's transposed weights are made once, as onnxruntime folds initializer
// arithmetic when a session is made. A result larger than its operands
// (a broadcast, an outer product) is left to run, so folding never raises
// the memory a Program holds by more than the constants it reads; an op
// that fails (an index out of range) is left too, to fail at run time at
// its position. Loops and calls are never folded.
void Function::fold_constants() {
  std::vector<bool> constant(slots_.size(), false);
  for (std::size_t s = num_params_; s < slots_.size(); ++s) constant[s] = pinned_[s];
  std::vector<Instruction> kept;
  for (Instruction& in : code_) {
    const bool closed =
        (in.step == Step::Kernel || in.step == Step::View) && !in.operands.empty() &&
        std::ranges::all_of(in.operands, [&](int s) { return static_cast<bool>(constant[s]); });
    if (closed) {
      for (std::size_t k = 0; k < in.operands.size(); ++k) in.args[k] = &slots_[in.operands[k]];
      std::size_t largest = 0;
      for (const Array* a : in.args) largest = std::max(largest, a->nbytes());
      try {
        result_shape(in.term, in.args, in.shape);
        const ops::DType dtype = in.term->tensor_type().dtype;
        if (static_cast<std::size_t>(num_elements(in.shape)) * ops::dtype_size(dtype) <= largest) {
          Array& dst = slots_[in.out];
          if (in.step == Step::View) {
            dst = slots_[in.operands[0]].reshaped(in.shape);
          } else {
            dst = Array(dtype, in.shape);
            run_kernel(in.term, in.args, dst);
          }
          pinned_[in.out] = true;
          constant[in.out] = true;
          continue;
        }
      } catch (const RuntimeError&) {
        slots_[in.out] = Array();
      } catch (const ops::TypeError&) {
        slots_[in.out] = Array();
      }
    }
    kept.push_back(std::move(in));
  }
  code_ = std::move(kept);
}

}  // namespace eqsat::backend::detail
