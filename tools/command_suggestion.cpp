#include "command_suggestion.hpp"

#include <algorithm>
#include <cstddef>

namespace eqsat::tools {

namespace {

// Insertions, deletions, substitutions and swaps of neighbours turning `a`
// into `b` (the optimal string alignment distance).
std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> before(b.size() + 1), previous(b.size() + 1), row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) previous[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      row[j] = std::min(
          {previous[j] + 1, row[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        row[j] = std::min(row[j], before[j - 2] + 1);
    }
    before.swap(previous);
    previous.swap(row);
  }
  return previous[b.size()];
}

}  // namespace

std::optional<std::string> closest_command(std::string_view typed,
                                           const std::vector<std::string>& names) {
  std::optional<std::string> best;
  std::size_t best_distance = 0;
  for (const std::string& name : names) {
    if (typed.size() >= 2 && name.starts_with(typed)) return name;
    const std::size_t d = edit_distance(typed, name);
    const std::size_t allowed = std::max<std::size_t>(1, std::max(typed.size(), name.size()) / 3);
    if (d <= allowed && (!best || d < best_distance)) {
      best = name;
      best_distance = d;
    }
  }
  return best;
}

}  // namespace eqsat::tools
