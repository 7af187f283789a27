// The type rules of the op catalogue (see op_list.hpp for which op uses
// which). Each checks operands and attributes, canonicalizes the attributes
// and returns the result type, or throws TypeError.
#pragma once

#include "op.hpp"

namespace eqsat::ops::type_rules {

#define EQSAT_DECLARE_RULE(name) Type name(OpKind, Attrs&, std::span<const TermRef>);
EQSAT_DECLARE_RULE(leaf_rule)
EQSAT_DECLARE_RULE(const_rule)
EQSAT_DECLARE_RULE(same_numeric_rule)
EQSAT_DECLARE_RULE(float_unary_rule)
EQSAT_DECLARE_RULE(bool_unary_rule)
EQSAT_DECLARE_RULE(cast_rule)
EQSAT_DECLARE_RULE(arith_rule)
EQSAT_DECLARE_RULE(div_rule)
EQSAT_DECLARE_RULE(promote_rule)
EQSAT_DECLARE_RULE(compare_rule)
EQSAT_DECLARE_RULE(where_rule)
EQSAT_DECLARE_RULE(sum_rule)
EQSAT_DECLARE_RULE(extremum_rule)
EQSAT_DECLARE_RULE(float_reduce_rule)
EQSAT_DECLARE_RULE(softmax_rule)
EQSAT_DECLARE_RULE(dot_rule)
EQSAT_DECLARE_RULE(reshape_rule)
EQSAT_DECLARE_RULE(transpose_rule)
EQSAT_DECLARE_RULE(expand_dims_rule)
EQSAT_DECLARE_RULE(squeeze_rule)
EQSAT_DECLARE_RULE(broadcast_to_rule)
EQSAT_DECLARE_RULE(broadcast_like_rule)
EQSAT_DECLARE_RULE(flip_rule)
EQSAT_DECLARE_RULE(concat_rule)
EQSAT_DECLARE_RULE(stack_rule)
EQSAT_DECLARE_RULE(dim_rule)
EQSAT_DECLARE_RULE(index_rule)
EQSAT_DECLARE_RULE(resize_rows_rule)
EQSAT_DECLARE_RULE(slice_rule)
EQSAT_DECLARE_RULE(set_index_rule)
EQSAT_DECLARE_RULE(set_slice_rule)
EQSAT_DECLARE_RULE(fill_rule)
EQSAT_DECLARE_RULE(full_rule)
EQSAT_DECLARE_RULE(like_rule)
EQSAT_DECLARE_RULE(arange_rule)
EQSAT_DECLARE_RULE(fn_rule)
EQSAT_DECLARE_RULE(scan_rule)
EQSAT_DECLARE_RULE(call_rule)
EQSAT_DECLARE_RULE(get_rule)
EQSAT_DECLARE_RULE(grad_rule)
#undef EQSAT_DECLARE_RULE

}  // namespace eqsat::ops::type_rules
