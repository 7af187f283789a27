// The attributes declared once with Boost.Hana: AttrSchema, one member per
// AttrKey, and the members of the struct-valued attributes. Included only by
// the .cpp files that derive keywords, hashing, parsing, printing or random
// values from them (attrs.cpp, attr_literal.cpp, rules/lang/rule_check.cpp), so
// other files do not compile Hana.
#pragma once

#include "attrs.hpp"

#include <boost/hana/accessors.hpp>
#include <boost/hana/adapt_struct.hpp>
#include <boost/hana/at.hpp>
#include <boost/hana/define_struct.hpp>
#include <boost/hana/length.hpp>
#include <boost/hana/second.hpp>

#include <type_traits>
#include <utility>

namespace eqsat::ops {

// The value type of every attribute key, declared once: member i is AttrKey
// i, the member's name is the key's keyword (`_` written `-`, a trailing `_`
// dropped: `inline_` is `:inline`), its type what follows the keyword in a
// file. Hashing, equality, printing and the literal parser (attr_literal.hpp)
// follow from it. Keys whose type has no literal form (a name, an array, a
// scan's layout, types) are internal: set by the parsers, never written
// after a keyword.
using AxisAttr = std::variant<std::int64_t, IntList>;  // one axis or several
struct AttrSchema {
  BOOST_HANA_DEFINE_STRUCT(AttrSchema, (AxisAttr, axis), (bool, keepdims), (IntList, shape),
                           (IntList, perm), (DType, dtype), (std::int64_t, start),
                           (std::int64_t, stop), (std::int64_t, step), (std::int64_t, index),
                           (bool, inline_), (std::string, name), (std::int64_t, slot),
                           (Array, value), (std::string, path), (std::vector<TensorType>, params),
                           (ScanSpec, scan), (TensorType, type), (std::int64_t, checkpoint));
};

// The number of attribute keys, and the value type of AttrKey I.
inline constexpr std::size_t kNumAttrKeys =
    decltype(boost::hana::length(boost::hana::accessors<AttrSchema>()))::value;
template <std::size_t I>
using AttrType = std::remove_cvref_t<decltype(boost::hana::second(
    boost::hana::at_c<I>(boost::hana::accessors<AttrSchema>()))(std::declval<AttrSchema&>()))>;

}  // namespace eqsat::ops

// Members of the struct-valued attributes, for the generic hash and printing
// (attrs.cpp checks that every member is listed).
BOOST_HANA_ADAPT_STRUCT(eqsat::ops::ScanSpec, sequence_taps, mitsot_taps, num_sitsot, num_nitsot,
                        num_nonsequences, has_n_steps, until, keep);
BOOST_HANA_ADAPT_STRUCT(eqsat::ops::TensorType, dtype, dims);
