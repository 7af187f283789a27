#include "memory_limit.hpp"

#include <fmt/format.h>

#include <cmath>
#include <fstream>
#include <sstream>

#include <unistd.h>

namespace eqsat::tools {

std::optional<std::int64_t> available_memory_bytes() {
  std::ifstream meminfo("/proc/meminfo");
  std::string key;
  std::int64_t kib = 0;
  std::string unit;
  while (meminfo >> key >> kib >> unit)
    if (key == "MemAvailable:") return kib * 1024;
  const long pages = ::sysconf(_SC_AVPHYS_PAGES), page = ::sysconf(_SC_PAGESIZE);
  if (pages > 0 && page > 0) return static_cast<std::int64_t>(pages) * page;
  return std::nullopt;
}

std::optional<std::int64_t> parse_byte_size(const std::string& text) {
  std::istringstream in(text);
  double value = 0;
  if (!(in >> value) || !std::isfinite(value) || value < 0) return std::nullopt;
  std::string suffix;
  in >> suffix;
  if (!in.eof()) return std::nullopt;
  static constexpr const char* kSuffixes[] = {"", "K", "M", "G", "T"};
  for (int power = 0; power < 5; ++power) {
    if (suffix != kSuffixes[power] &&
        (power == 0 || suffix != std::string(kSuffixes[power]) + "iB"))
      continue;
    const double bytes = std::ldexp(value, 10 * power);
    if (bytes >= 0x1p63) return std::nullopt;
    return static_cast<std::int64_t>(bytes);
  }
  return std::nullopt;
}

std::string human_bytes(std::int64_t bytes) {
  static constexpr const char* kUnits[] = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  double v = static_cast<double>(bytes);
  int unit = 0;
  while (v >= 1024 && unit < 6) {
    v /= 1024;
    ++unit;
  }
  return unit == 0 ? fmt::format("{} bytes", bytes) : fmt::format("{:.1f} {}", v, kUnits[unit]);
}

}  // namespace eqsat::tools
