#include "rules/lang/predicate.hpp"

#include <array>

namespace eqsat::rules {

namespace {
constexpr std::array kPredicates = {
#define EQSAT_PREDICATE_INFO(id, name, args, doc) PredicateInfo{name, args, doc},
    EQSAT_PREDICATES(EQSAT_PREDICATE_INFO)
#undef EQSAT_PREDICATE_INFO
};
}  // namespace

const PredicateInfo& predicate_info(Predicate p) {
  return kPredicates[static_cast<int>(p)];
}

std::optional<Predicate> parse_predicate(std::string_view name) {
  for (std::size_t i = 0; i < kPredicates.size(); ++i)
    if (kPredicates[i].name == name) return static_cast<Predicate>(i);
  return std::nullopt;
}

int num_predicates() {
  return static_cast<int>(kPredicates.size());
}

}  // namespace eqsat::rules
