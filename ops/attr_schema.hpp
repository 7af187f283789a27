// Hana's view of the attributes declared in attrs.hpp (EQSAT_ATTRS):
// AttrSchema, one member per AttrKey, and the members of the struct-valued
// attributes. Included only by
// the .cpp files that derive keywords, hashing, parsing, printing or random
// values from them (attrs.cpp, attr_literal.cpp, rules/lang/rule_check.cpp), so
// other files do not compile Hana.
#pragma once

#include "attrs.hpp"

#include <boost/hana/accessors.hpp>
#include <boost/hana/adapt_struct.hpp>
#include <boost/hana/at.hpp>
#include <boost/hana/length.hpp>
#include <boost/hana/second.hpp>

#include <type_traits>
#include <utility>

namespace eqsat::ops {

// EQSAT_ATTRS (attrs.hpp) as a struct, one member per key in order, so that
// Hana derives what every key needs from the one declaration.
struct AttrSchema {
#define EQSAT_ATTR_MEMBER(id, member, type) type member;
  EQSAT_ATTRS(EQSAT_ATTR_MEMBER)
#undef EQSAT_ATTR_MEMBER
};

}  // namespace eqsat::ops

#define EQSAT_ATTR_COMMA_MEMBER(id, member, type) , member
BOOST_HANA_ADAPT_STRUCT(eqsat::ops::AttrSchema EQSAT_ATTRS(EQSAT_ATTR_COMMA_MEMBER));
#undef EQSAT_ATTR_COMMA_MEMBER

namespace eqsat::ops {

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
