// The eqsat program's heap in transparent huge pages: after the call, small
// and large blocks alike lie in a mapping the kernel may back by 2 MiB
// pages (`THPeligible: 1` in /proc/self/smaps). CTest runs each case in a
// process of its own, where the heap is as the program's is at its start.
#include "tools/huge_page_heap.hpp"

#include <catch2/catch.hpp>

#include <cstdint>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

namespace {

// Whether the system hands out transparent huge pages at all.
bool huge_pages_offered() {
  std::ifstream mode("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string text;
  std::getline(mode, text);
  return !text.empty() && text.find("[never]") == std::string::npos;
}

// The THPeligible line of the mapping holding `address` in
// /proc/self/smaps: 1, 0, or -1 when no mapping holds it.
int huge_page_eligible(const void* address) {
  const auto at = reinterpret_cast<std::uintptr_t>(address);
  std::ifstream smaps("/proc/self/smaps");
  std::string line;
  bool inside = false;
  while (std::getline(smaps, line)) {
    std::uintptr_t low = 0, high = 0;
    char dash = 0;
    std::istringstream range(line);
    if (range >> std::hex >> low >> dash >> high && dash == '-') {
      inside = low <= at && at < high;
    } else if (inside && line.rfind("THPeligible:", 0) == 0) {
      return std::stoi(line.substr(12));
    }
  }
  return -1;
}

}  // namespace

// Defined when AddressSanitizer's runtime is linked in, whose allocator
// replaces glibc's (the sanitized build may link it into files compiled
// without the sanitizer's macros).
extern "C" void __asan_init() __attribute__((weak));

TEST_CASE("back_heap_by_huge_pages puts small and large blocks where huge pages may back them") {
  if (&__asan_init != nullptr) {
    // The sanitizer's allocator is not glibc's: the call leaves it alone.
    CHECK_FALSE(eqsat::tools::back_heap_by_huge_pages());
    return;
  }
  if (!huge_pages_offered()) return;
  REQUIRE(eqsat::tools::back_heap_by_huge_pages());
  // Small blocks first reuse what the heap had free; 1 MiB of them reach
  // past it.
  std::vector<std::unique_ptr<char[]> > small;
  for (int i = 0; i < 4096; ++i) small.push_back(std::make_unique<char[]>(256));
  CHECK(huge_page_eligible(small.back().get()) == 1);
  // 8 MiB is past glibc's usual threshold for a mapping of its own.
  const auto large = std::make_unique<char[]>(std::size_t{8} << 20);
  CHECK(huge_page_eligible(large.get()) == 1);
  // Once is enough: a second call changes nothing.
  CHECK_FALSE(eqsat::tools::back_heap_by_huge_pages());
}
