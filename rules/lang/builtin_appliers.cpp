#include "rules/lang/builtin_appliers.hpp"

#include "rules/autodiff/expand_gradients.hpp"
#include "rules/loops/dim_through.hpp"
#include "rules/loops/scan_fusion.hpp"
#include "rules/loops/scan_merge_outputs.hpp"
#include "rules/loops/scan_merge_sequences.hpp"
#include "rules/loops/scan_pushout.hpp"
#include "rules/loops/scan_remove_unused.hpp"
#include "rules/loops/scan_rewrites.hpp"
#include "rules/loops/scan_save_mem.hpp"
#include "rules/loops/scan_to_reduction.hpp"
#include "rules/tensor/dimshuffle_chains.hpp"
#include "rules/tensor/implicit_expand_dims.hpp"
#include "rules/tensor/index_lift.hpp"
#include "rules/tensor/inline_calls.hpp"
#include "rules/tensor/pow_nested_squaring.hpp"
#include "rules/tensor/reduce_chain.hpp"
#include "rules/tensor/shape_identities.hpp"
#include "rules/tensor/stabilize_through_views.hpp"
#include "rules/tensor/view_chains.hpp"
#include "rules/tensor/where_constant.hpp"

#include <array>

namespace eqsat::rules {

namespace {
const std::array kAppliers = {
    BuiltinApplier{"inline-calls",
                   "(call F ARGS...) = F's body on ARGS; (get I (call F ...)) = its output I",
                   &make_inline_calls},
    BuiltinApplier{"scan-remove-unused",
                   "a loop keeps only the outputs read, the states they need and the inputs "
                   "those read",
                   &make_scan_remove_unused},
    BuiltinApplier{"scan-merge-sequences", "a sequence given twice is read once",
                   &make_scan_merge_sequences},
    BuiltinApplier{"scan-merge-outputs", "two outputs of a loop holding the same values become one",
                   &make_scan_merge_outputs},
    BuiltinApplier{"scan-inline-constants",
                   "a non-sequence whose value is a small constant moves into the body",
                   &make_scan_inline_constants},
    BuiltinApplier{"scan-merge-duplicates",
                   "a non-sequence equal to an earlier one is dropped; the body reads that one",
                   &make_scan_merge_duplicates},
    BuiltinApplier{"scan-hoist-invariants",
                   "body work that reads only non-sequences moves out as a new non-sequence",
                   &make_scan_hoist_invariants},
    BuiltinApplier{"scan-fusion", "two independent loops of the same length become one loop",
                   &make_scan_fusion},
    BuiltinApplier{"scan-push-out-seqs",
                   "vectorizable body work on sequence elements moves out as a new sequence",
                   &make_scan_push_out_seqs},
    BuiltinApplier{"scan-push-out-nitsots",
                   "a vectorizable or loop-invariant nit-sot is computed outside the loop",
                   &make_scan_push_out_nitsots},
    BuiltinApplier{"shape-identities",
                   "slices, reshapes, transposes... that do nothing are their operand",
                   &make_shape_identities},
    BuiltinApplier{"dim-through",
                   "the length of an axis read through indexing and loop outputs, not computed",
                   &make_dim_through},
    BuiltinApplier{"scan-save-mem",
                   "a loop read only in its first or last steps runs fewer or keeps fewer",
                   &make_scan_save_mem},
    BuiltinApplier{
        "scan-to-reduction",
        "a sit-sot accumulating add/mul/maximum/minimum, read at its end, is a reduction",
        &make_scan_to_reduction},
    BuiltinApplier{"reduce-chain",
                   "max(max(x, A), B) and min likewise are one reduction; a reduction over "
                   "axes of length 1 is a reshape",
                   &make_reduce_chain},
    BuiltinApplier{"reduce-chain-rounding",
                   "sum(sum(x, A), B) and prod likewise are one reduction (changes rounding)",
                   &make_reduce_chain_rounding},
    BuiltinApplier{"pow-nested-squaring",
                   "x^n for a float x and an integer 3 <= |n| <= 1024 is nested squarings "
                   "(changes rounding)",
                   &make_pow_nested_squaring},
    BuiltinApplier{"stabilize-through-views",
                   "log and exp of a view (slice, index, transpose, ...) of what a "
                   "stabilization rewrites are the view of the log or exp",
                   &make_stabilize_through_views},
    BuiltinApplier{"view-chains",
                   "reshape/squeeze/expand_dims chains, slice of slice, index of slice are one "
                   "view; a whole reversed slice is flip",
                   &make_view_chains},
    BuiltinApplier{"dimshuffle-chains",
                   "a transpose/expand_dims/squeeze of one is one canonical chain (squeeze, "
                   "transpose, expand_dims): PyTensor's DimShuffle merging",
                   &make_dimshuffle_chains},
    BuiltinApplier{"implicit-expand-dims",
                   "an operand expand_dims(x, 0) of a broadcasting elementwise op is x when "
                   "another operand has its rank: PyTensor's DimShuffle lift",
                   &make_implicit_expand_dims},
    BuiltinApplier{"index-lift",
                   "an index or slice of an elementwise op, a reduction or a softmax reads "
                   "its operands instead: PyTensor's subtensor lift",
                   &make_index_lift},
    BuiltinApplier{"where-constant",
                   "a where with a uniform constant condition is its branch, cast and "
                   "broadcast to the result",
                   &make_where_constant},
    BuiltinApplier{"expand-gradients",
                   "(grad COST WRT) = reverse-mode gradient of COST's best term (own phase)",
                   &make_expand_gradients},
};
}  // namespace

std::span<const BuiltinApplier> builtin_appliers() {
  return kAppliers;
}

std::vector<std::string> builtin_applier_names() {
  std::vector<std::string> names;
  for (const auto& a : kAppliers) names.emplace_back(a.name);
  return names;
}

const BuiltinApplier* find_builtin_applier(std::string_view name) {
  for (const auto& a : kAppliers)
    if (a.name == name) return &a;
  return nullptr;
}

}  // namespace eqsat::rules
