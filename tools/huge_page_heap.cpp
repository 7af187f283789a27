#include "huge_page_heap.hpp"

#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>

namespace eqsat::tools {

// Defined when AddressSanitizer's runtime is linked in: its allocator, not
// glibc's, serves malloc, and its heap is elsewhere.
extern "C" void __asan_init() __attribute__((weak));

namespace {

// The block below the huge pages, kept (and reachable) for the process.
void* kept_block = nullptr;

}  // namespace

bool back_heap_by_huge_pages() {
#if defined(__GLIBC__) && defined(MADV_HUGEPAGE)
  if (&__asan_init != nullptr || kept_block != nullptr) return false;
  constexpr std::uintptr_t huge = std::uintptr_t{2} << 20;
  constexpr std::size_t reserve = std::size_t{256} << 20;
  constexpr int default_top_pad = 128 << 10;
  constexpr int default_mmap_threshold = 128 << 10;
  const auto brk = reinterpret_cast<std::uintptr_t>(sbrk(0));
  if (brk == std::uintptr_t(-1)) return false;
  std::uintptr_t first = (brk + huge - 1) & ~(huge - 1);
  if (first - brk < (std::uintptr_t{64} << 10)) first += huge;
  // A block from the heap's free top up to a page below `first`, larger
  // than that top, makes malloc grow the heap now, by the reserve; the
  // blocks after it lie past `first`. malloc writes the header of its new
  // top in that last page: a write past `first` before the madvise would
  // give the first 2 MiB ordinary pages. Blocks up to 32 MiB come from the
  // heap (not from fresh mappings of ordinary pages), this one included.
  const std::uintptr_t top_start = brk - mallinfo2().keepcost;
  if (mallopt(M_MMAP_THRESHOLD, 32 << 20) == 0 || mallopt(M_TOP_PAD, reserve) == 0) return false;
  void* block = std::malloc(first - top_start - 4096);
  mallopt(M_TOP_PAD, default_top_pad);
  const auto end = reinterpret_cast<std::uintptr_t>(sbrk(0));
  const std::uintptr_t last = end & ~(huge - 1);
  if (block == nullptr || end == std::uintptr_t(-1) || last < first + huge ||
      madvise(reinterpret_cast<void*>(first), last - first, MADV_HUGEPAGE) != 0) {
    std::free(block);
    mallopt(M_MMAP_THRESHOLD, default_mmap_threshold);
    return false;
  }
  kept_block = block;
  // The heap is never trimmed: that would split its huge pages.
  mallopt(M_TRIM_THRESHOLD, static_cast<int>(reserve * 4));
  return true;
#else
  return false;
#endif
}

}  // namespace eqsat::tools
