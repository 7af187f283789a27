#include "memory_limit.hpp"

#include "backend/memory_plan.hpp"
#include "backend/runtime_error.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstdio>
#include <sstream>
#include <string_view>

#include <fcntl.h>
#include <unistd.h>

namespace eqsat::tools {

namespace {

// The text of a small /proc file, with read(2) (no iostream: the optimizer
// reads /proc/self/statm after each iteration); empty when unreadable.
std::string read_proc_file(const char* path) {
  std::string text;
  const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return text;
  char buffer[4096];
  for (ssize_t n; (n = ::read(fd, buffer, sizeof buffer)) > 0;)
    text.append(buffer, static_cast<std::size_t>(n));
  ::close(fd);
  return text;
}

}  // namespace

std::optional<std::int64_t> available_memory_bytes() {
  const std::string meminfo = read_proc_file("/proc/meminfo");
  constexpr std::string_view kKey = "MemAvailable:";
  if (const auto at = meminfo.find(kKey); at != std::string::npos) {
    long long kib = 0;
    if (std::sscanf(meminfo.c_str() + at + kKey.size(), "%lld", &kib) == 1) return kib * 1024;
  }
  const long pages = ::sysconf(_SC_AVPHYS_PAGES), page = ::sysconf(_SC_PAGESIZE);
  if (pages > 0 && page > 0) return static_cast<std::int64_t>(pages) * page;
  return std::nullopt;
}

std::optional<std::int64_t> resident_memory_bytes() {
  const std::string statm = read_proc_file("/proc/self/statm");
  long long size = 0, resident = 0;
  const long page = ::sysconf(_SC_PAGESIZE);
  if (std::sscanf(statm.c_str(), "%lld %lld", &size, &resident) != 2 || page <= 0)
    return std::nullopt;
  return resident * page;
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

void MemoryLimitFlag::add_to(CLI::App& cmd) {
  cmd.add_option("--memory-limit", text,
                 "refuse a run planned to need more memory, and stop an optimization whose "
                 "saturation holds more: bytes, or with K/M/G/T (default: the memory available "
                 "now)")
      ->check([](const std::string& s) {
        return parse_byte_size(s) ? std::string()
                                  : std::string("expected a size such as 4096, 512M or 2G");
      });
}

std::optional<std::int64_t> MemoryLimitFlag::bytes() const {
  return text.empty() ? available_memory_bytes() : parse_byte_size(text);
}

void MemoryLimitFlag::check(const std::string& graph_file, const ops::Graph& graph,
                            const std::vector<ops::TensorType>& input_types) const {
  const std::optional<std::int64_t> limit = bytes();
  if (!limit) return;
  const std::int64_t planned = backend::planned_bytes(graph, input_types);
  if (planned <= *limit) return;
  throw backend::RuntimeError(
      fmt::format("{}: error: the run is planned to need {} bytes ({}) of memory, more than the "
                  "limit of {} bytes ({}{})",
                  graph_file, planned, human_bytes(planned), *limit, human_bytes(*limit),
                  text.empty() ? ", the memory available now; set it with --memory-limit" : ""),
      /*located=*/true);
}

}  // namespace eqsat::tools
