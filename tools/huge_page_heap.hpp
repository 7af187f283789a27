// Backs the eqsat program's heap by transparent huge pages where the
// system allows them (the `madvise` mode, Debian's default). A page fault
// costs about 0.1 µs on bare metal but 10 µs under some hypervisors
// (bench/page_fault_cost.cpp), and a small `eqsat optimize` touched some
// 270 heap pages: a third of the process's time there. A 2 MiB page is
// one fault.
#pragma once

namespace eqsat::tools {

// Grows the heap now by a reserve of address space (nothing is touched),
// asks the kernel for huge pages over it, and has malloc serve blocks up to
// 32 MiB from it and never hand it back. For the command-line program: a
// touched 2 MiB region costs 2 MiB of memory. Returns whether the heap is
// so backed; false where it cannot be (another allocator, an address-space
// limit), with malloc's settings at their defaults.
bool back_heap_by_huge_pages();

}  // namespace eqsat::tools
