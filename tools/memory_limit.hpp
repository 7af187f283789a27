// The memory limit of `eqsat run` (`--memory-limit`): a run whose planned
// memory (backend/memory_plan.hpp) exceeds it fails before it starts.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace eqsat::tools {

// The memory the machine can give now: MemAvailable of /proc/meminfo, else
// the free physical pages; nullopt when neither is known.
std::optional<std::int64_t> available_memory_bytes();

// Parses a size: bytes, or a number with a binary suffix K, M, G or T
// (`512M`, `1.5G`). Nullopt when malformed, negative or over 2^63.
std::optional<std::int64_t> parse_byte_size(const std::string& text);

// `12.3 GiB` style text for messages (with the exact byte count elsewhere).
std::string human_bytes(std::int64_t bytes);

}  // namespace eqsat::tools
