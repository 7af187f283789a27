// What a process pays for memory it touches for the first time, on this
// machine: the time per 4 KiB page written once in fresh anonymous memory
// (each write a page fault), and, for comparison, per page of a mapping
// asked to be populated at once (MAP_POPULATE) and then written, and per
// 2 MiB page when the memory is given transparent huge pages
// (MADV_HUGEPAGE, as tools/huge_page_heap.cpp does for the eqsat program's
// heap). A process start and a small `eqsat optimize` are mostly such pages
// on a virtual machine whose faults trap to the host (bench/README.md,
// "Speed round 24", "Start-up round 25"). Last, the time per fault when a
// file already in the page cache is read one 64 KiB window at a time, as a
// process reads its program's code (the kernel maps up to 16 pages a
// fault): what tools/startup_order.txt saves ("Start-up round 26").
//
//   bench_page_fault_cost [--pages N] [--reps R] [--file PATH]
//
// Prints the best of R repetitions of each, in microseconds per page (per
// fault for the file, by default this program's own).
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <utility>

namespace {

constexpr std::size_t kPage = 4096;
constexpr std::size_t kHugePage = std::size_t{2} << 20;

// How the memory is given: page by page at each first write, populated
// when mapped, or in huge pages.
enum class Mode { Fault, Populate, Huge };

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

// Maps `pages` pages as `mode` says, writes one byte in each; returns the
// seconds of the mapping and of the writes. Huge pages are asked for over
// a 2 MiB-aligned part of a larger mapping.
std::pair<double, double> touch(std::size_t pages, Mode mode) {
  const std::size_t bytes = pages * kPage;
  const std::size_t mapped = mode == Mode::Huge ? bytes + kHugePage : bytes;
  const auto t0 = std::chrono::steady_clock::now();
  void* p = mmap(nullptr, mapped, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | (mode == Mode::Populate ? MAP_POPULATE : 0), -1, 0);
  if (p == MAP_FAILED) {
    std::cerr << "bench_page_fault_cost: mmap failed: " << std::strerror(errno) << "\n";
    std::exit(1);
  }
  auto* first = static_cast<char*>(p);
  if (mode == Mode::Huge) {
    const auto at = reinterpret_cast<std::uintptr_t>(p);
    first += ((at + kHugePage - 1) & ~(kHugePage - 1)) - at;
    if (madvise(first, bytes, MADV_HUGEPAGE) != 0) {
      std::cerr << "bench_page_fault_cost: madvise(MADV_HUGEPAGE) failed: " << std::strerror(errno)
                << "\n";
      std::exit(1);
    }
  }
  const double map = seconds_since(t0);
  volatile char* bytes_p = first;
  const auto t1 = std::chrono::steady_clock::now();
  for (std::size_t i = 0; i < bytes; i += kPage) bytes_p[i] = 1;
  const double write = seconds_since(t1);
  munmap(p, mapped);
  return {map, write};
}

// Maps `path` read-only (after reading it once into the page cache) and
// reads a byte of each 64 KiB window; returns the seconds per window and
// the number of windows.
std::pair<double, std::size_t> read_windows(const char* path) {
  constexpr std::size_t kWindow = 64 << 10;
  const int fd = open(path, O_RDONLY | O_CLOEXEC);
  struct stat st {};
  if (fd < 0 || fstat(fd, &st) != 0 || st.st_size == 0) {
    std::cerr << "bench_page_fault_cost: " << path << ": " << std::strerror(errno) << "\n";
    std::exit(1);
  }
  const auto size = static_cast<std::size_t>(st.st_size);
  auto map = [&] {
    void* p = mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED) {
      std::cerr << "bench_page_fault_cost: mmap of " << path << " failed: " << std::strerror(errno)
                << "\n";
      std::exit(1);
    }
    return static_cast<volatile const char*>(p);
  };
  volatile const char* bytes = map();
  char sum = 0;
  for (std::size_t i = 0; i < size; i += kPage) sum = static_cast<char>(sum + bytes[i]);
  munmap(const_cast<char*>(bytes), size);
  bytes = map();
  close(fd);
  const auto t = std::chrono::steady_clock::now();
  std::size_t windows = 0;
  for (std::size_t i = 0; i < size; i += kWindow, ++windows)
    sum = static_cast<char>(sum + bytes[i]);
  const double elapsed = seconds_since(t);
  munmap(const_cast<char*>(bytes), size);
  volatile char keep = sum;  // the reads are not optimized away
  (void)keep;
  return {elapsed / static_cast<double>(windows), windows};
}

}  // namespace

int main(int argc, char** argv) {
  std::size_t pages = 4096;
  int reps = 5;
  const char* file = "/proc/self/exe";
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--pages") == 0) pages = std::strtoull(argv[i + 1], nullptr, 10);
    if (std::strcmp(argv[i], "--reps") == 0) reps = std::atoi(argv[i + 1]);
    if (std::strcmp(argv[i], "--file") == 0) file = argv[i + 1];
  }
  double fault = 1e9, populate = 1e9, after = 1e9, huge = 1e9;
  for (int r = 0; r < reps; ++r) {
    fault = std::min(fault, touch(pages, Mode::Fault).second);
    const auto [map, write] = touch(pages, Mode::Populate);
    populate = std::min(populate, map);
    after = std::min(after, write);
    huge = std::min(huge, touch(pages, Mode::Huge).second);
  }
  const double us = 1e6 / static_cast<double>(pages);
  std::cout << fmt::format(
      "{} pages, best of {}: first write {:.2f} us/page; MAP_POPULATE {:.2f} us/page, then the "
      "write {:.2f} us/page; in huge pages {:.1f} us a 2 MiB page\n",
      pages, reps, fault * us, populate * us, after * us,
      huge * us * static_cast<double>(kHugePage / kPage));
  double window = 1e9;
  std::size_t windows = 0;
  for (int r = 0; r < reps; ++r) {
    const auto [seconds, n] = read_windows(file);
    window = std::min(window, seconds);
    windows = n;
  }
  std::cout << fmt::format("{}, read one 64 KiB window at a time ({} windows): {:.2f} us a fault\n",
                           file, windows, window * 1e6);
}
