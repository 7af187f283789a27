// Objects a process keeps until it exits, never destroyed. A command that
// ends right after an optimization need not free the thousands of small
// allocations of its rules: the operating system takes the whole heap back
// at once. Freeing the shipped rules and their lowered rewrites was 14% of
// the instructions of a small `eqsat optimize` (bench/README.md, "Speed
// round 28"); clang's -disable-free skips its own teardown likewise. The
// objects stay reachable from a static pointer, so leak checkers do not
// report them.
#pragma once

#include <memory>
#include <mutex>
#include <vector>

namespace eqsat::support {

// Takes `object` until the process exits; returns it.
template <class T>
T& keep_until_exit(std::unique_ptr<T> object) {
  static std::mutex* const guard = new std::mutex;
  static auto* const kept = new std::vector<std::shared_ptr<void>>;
  T& kept_object = *object;
  const std::lock_guard<std::mutex> lock(*guard);
  kept->push_back(std::shared_ptr<void>(std::move(object)));
  return kept_object;
}

}  // namespace eqsat::support
