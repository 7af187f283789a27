#include "egraph/scheduler.hpp"

#include "egraph/rewrite.hpp"

#include <algorithm>

namespace eqsat::egraph {

BackoffScheduler& BackoffScheduler::rule_match_limit(const std::string& rule, std::size_t limit) {
  match_limits_[rule] = limit;
  return *this;
}

BackoffScheduler& BackoffScheduler::rule_ban_length(const std::string& rule, std::size_t length) {
  ban_lengths_[rule] = length;
  return *this;
}

void BackoffScheduler::start(const std::vector<const Rewrite*>& rules) {
  stats_.assign(rules.size(), Stats{});
  for (std::size_t i = 0; i < rules.size(); ++i) {
    auto m = match_limits_.find(rules[i]->name());
    auto b = ban_lengths_.find(rules[i]->name());
    stats_[i].match_limit = m != match_limits_.end() ? m->second : default_match_limit_;
    stats_[i].ban_length = b != ban_lengths_.end() ? b->second : default_ban_length_;
  }
}

std::size_t BackoffScheduler::threshold(const Stats& s) const {
  // match_limit << times_banned, saturating.
  std::size_t t = s.match_limit;
  for (std::size_t k = 0; k < s.times_banned && t < std::numeric_limits<std::size_t>::max() / 4;
       ++k) {
    t <<= 1;
  }
  return t;
}

std::size_t BackoffScheduler::match_limit(std::size_t iteration, std::size_t rule) {
  const Stats& s = stats_[rule];
  if (iteration < s.banned_until) return 0;
  return threshold(s) + 1;  // one more than allowed tells the rule exploded
}

bool BackoffScheduler::accept(std::size_t iteration, std::size_t rule, std::size_t n_matches) {
  Stats& s = stats_[rule];
  if (n_matches <= threshold(s)) return true;
  s.banned_until = iteration + (s.ban_length << std::min<std::size_t>(s.times_banned, 30));
  ++s.times_banned;
  return false;
}

bool BackoffScheduler::can_stop(std::size_t iteration) {
  std::size_t min_ban = std::numeric_limits<std::size_t>::max();
  for (const Stats& s : stats_) {
    if (s.banned_until > iteration) min_ban = std::min(min_ban, s.banned_until);
  }
  if (min_ban == std::numeric_limits<std::size_t>::max()) return true;
  // Nothing else to do: shorten every ban (as egg does) so that the next
  // iteration searches the rules whose ban ends first.
  std::size_t delta = min_ban - iteration;
  for (Stats& s : stats_) {
    if (s.banned_until > iteration) s.banned_until -= delta;
  }
  return false;
}

}  // namespace eqsat::egraph
