// support/kept_until_exit.hpp: what it takes is the object returned, alive
// and unchanged after the owner that gave it up is gone, from any thread.
#include "support/kept_until_exit.hpp"

#include <catch2/catch.hpp>

#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace {

std::atomic<int> destroyed{0};

struct Counted {
  std::string text;
  explicit Counted(std::string t) : text(std::move(t)) {}
  ~Counted() { ++destroyed; }
};

}  // namespace

TEST_CASE("kept objects are returned and never destroyed", "[support][kept_until_exit]") {
  const int before = destroyed.load();
  auto object = std::make_unique<Counted>("rules");
  const Counted* address = object.get();
  const Counted& kept = eqsat::support::keep_until_exit(std::move(object));
  CHECK(object == nullptr);
  CHECK(&kept == address);
  CHECK(kept.text == "rules");
  std::vector<std::thread> threads;
  std::vector<const Counted*> from_threads(4);
  for (int i = 0; i < 4; ++i)
    threads.emplace_back([&, i] {
      from_threads[i] =
          &eqsat::support::keep_until_exit(std::make_unique<Counted>(std::to_string(i)));
    });
  for (auto& t : threads) t.join();
  for (int i = 0; i < 4; ++i) CHECK(from_threads[i]->text == std::to_string(i));
  CHECK(destroyed.load() == before);
}
