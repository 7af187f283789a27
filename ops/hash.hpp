// Hash combining for the hash-consed structures of ops/.
#pragma once

#include <cstddef>

namespace eqsat::ops {

inline std::size_t hash_combine(std::size_t seed, std::size_t value) {
  return seed ^ (value + 0x9e3779b97f4a7c15ULL + (seed << 6) + (seed >> 2));
}

}  // namespace eqsat::ops
