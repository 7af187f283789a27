#include "cli_checks.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>

namespace eqsat::tools {

CLI::Validator whole_number_in(std::int64_t min, std::int64_t max) {
  return CLI::Validator(
      [min, max](const std::string& text) {
        std::int64_t value = 0;
        const char* end = text.data() + text.size();
        const auto [at, error] = std::from_chars(text.data(), end, value);
        if (text.empty() || error != std::errc() || at != end || value < min || value > max)
          return fmt::format("expected a whole number from {} to {}, got {}", min, max, text);
        return std::string();
      },
      fmt::format("INT in {}..{}", min, max));
}

CLI::Validator seed_number() {
  return CLI::Validator(
      [](const std::string& text) {
        std::uint64_t value = 0;
        const char* end = text.data() + text.size();
        const auto [at, error] = std::from_chars(text.data(), end, value);
        if (text.empty() || error != std::errc() || at != end)
          return fmt::format("expected a whole number from 0 to {}, got {}", UINT64_MAX, text);
        return std::string();
      },
      "UINT64");
}

CLI::Validator positive_seconds() {
  return CLI::Validator(
      [](const std::string& text) {
        char* end = nullptr;
        const double seconds = std::strtod(text.c_str(), &end);
        if (text.empty() || end != text.c_str() + text.size() || !std::isfinite(seconds) ||
            !(seconds > 0))
          return fmt::format("expected a positive number of seconds, got {}", text);
        return std::string();
      },
      "SECONDS > 0");
}

}  // namespace eqsat::tools
