// Rule schedulers: which rules the runner searches in an iteration and
// whether their matches are applied. `SimpleScheduler` runs every rule
// every time. `BackoffScheduler` (egg's default) bans a rule that matches
// too often: a rule whose search finds more than `match_limit << times_banned`
// matches is banned for `ban_length << times_banned` iterations (defaults:
// 1,000 matches, 5 iterations), so explosive rules (associativity,
// commutativity) cannot starve the others. When nothing else changes, the
// runner fast-forwards to the end of the shortest ban instead of stopping.
#pragma once

#include <cstddef>
#include <limits>
#include <map>
#include <string>
#include <vector>

namespace eqsat::egraph {

class Rewrite;

class Scheduler {
 public:
  virtual ~Scheduler() = default;
  // A run starts with these rules (indices below refer to this list).
  virtual void start(const std::vector<const Rewrite*>& rules) { (void)rules; }
  // How many matches to look for with rule `rule` in iteration `iteration`
  // (0: skip it).
  virtual std::size_t match_limit(std::size_t iteration, std::size_t rule) = 0;
  // Whether the `n_matches` found are applied (false: dropped).
  virtual bool accept(std::size_t iteration, std::size_t rule, std::size_t n_matches) = 0;
  // Whether the runner may report saturation after an iteration that
  // changed nothing.
  virtual bool can_stop(std::size_t iteration) = 0;
  virtual std::string name() const = 0;
};

class SimpleScheduler final : public Scheduler {
 public:
  std::size_t match_limit(std::size_t, std::size_t) override {
    return std::numeric_limits<std::size_t>::max();
  }
  bool accept(std::size_t, std::size_t, std::size_t) override { return true; }
  bool can_stop(std::size_t) override { return true; }
  std::string name() const override { return "simple"; }
};

class BackoffScheduler final : public Scheduler {
 public:
  explicit BackoffScheduler(std::size_t match_limit = 1000, std::size_t ban_length = 5)
      : default_match_limit_(match_limit), default_ban_length_(ban_length) {}
  // Per-rule settings, by rule name; `do_not_ban` is an unlimited match limit.
  BackoffScheduler& rule_match_limit(const std::string& rule, std::size_t limit);
  BackoffScheduler& rule_ban_length(const std::string& rule, std::size_t length);
  BackoffScheduler& do_not_ban(const std::string& rule) {
    return rule_match_limit(rule, std::numeric_limits<std::size_t>::max() / 2);
  }

  void start(const std::vector<const Rewrite*>& rules) override;
  std::size_t match_limit(std::size_t iteration, std::size_t rule) override;
  bool accept(std::size_t iteration, std::size_t rule, std::size_t n_matches) override;
  bool can_stop(std::size_t iteration) override;
  std::string name() const override { return "backoff"; }

  // How often rule `rule` of the current run has been banned.
  std::size_t times_banned(std::size_t rule) const { return stats_[rule].times_banned; }

 private:
  struct Stats {
    std::size_t match_limit = 0;
    std::size_t ban_length = 0;
    std::size_t times_banned = 0;
    std::size_t banned_until = 0;
  };
  std::size_t threshold(const Stats& s) const;

  std::size_t default_match_limit_, default_ban_length_;
  std::map<std::string, std::size_t> match_limits_, ban_lengths_;
  std::vector<Stats> stats_;
};

}  // namespace eqsat::egraph
